"""The one loader of corefiles/oracle/build.py for the corpus folders built with its matrix and flags.

corefiles/<corpus>/build.py (builtins, causehangs, explorehangs, gridhangs, heldout, inlinehangs, issue22, launch,
scalarhangs, gfx1250) is run as a script from any directory, so it cannot import oracle/build.py as a package; each
used to carry its own copy of this importlib loader. Now each puts corefiles/ on sys.path and calls `main` (or
`oracle_build` when it runs oracle's command() itself): targets, wave sizes, flags, reproducible DWARF and
`--check` stay oracle/build.py's, for any folder.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent


def oracle_build() -> ModuleType:
    """corefiles/oracle/build.py as a module (object_name, command, builds, build_into, main, TARGETS)."""
    spec = importlib.util.spec_from_file_location("amddbg_oracle_build", HERE / "oracle" / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(script: str, doc: str, targets: dict[str, tuple[int, ...]] | None = None, gfx1250: bool = True) -> int:
    """oracle/build.py's command line (rebuild, or `--check`) for the corpus folder holding `script`: the folder's
    name is the corpus name (corefiles/<corpus>/<corpus>.hip -> <corpus>-llvm{19,22}-<target>-w{32,64}-O{0,2}.co).
    The targets (processor -> wave sizes) are oracle/build.py's TARGETS, or its PRE_GFX1250 for a corpus whose
    gfx1250 objects are not checked in (`gfx1250=False`: its tests glob the folder for the 24-object matrix), or
    `targets` for a corpus built for others. `doc` is the script's docstring, whose first line is its --help."""
    ob = oracle_build()
    if targets is None:
        targets = ob.TARGETS if gfx1250 else ob.PRE_GFX1250
    return ob.main(Path(script).resolve().parent.name, doc.strip().splitlines()[0], targets=targets)
