#!/usr/bin/env python3
"""Rebuild the gfx1250 (GFX12.5) objects of the differential-oracle corpus (corefiles/oracle) with clang-22.

    python3 corefiles/gfx1250/build.py            # rebuild every object beside this script
    python3 corefiles/gfx1250/build.py --check    # rebuild into a temp dir and compare the bytes

Why a corpus of its own: corefiles/oracle/build.py's matrix is two compilers x four targets x two wave sizes (24
objects per source), and gfx1250 has one compiler (clang-19 does not know it) and one wave size (wave32 only:
clang-22 rejects -mwavefrontsize64). The command line is exactly oracle/build.py's `command()` for the same source,
run in the source's folder, so the DWARF and the bytes reproduce the same way. Objects:
``oracle-llvm22-gfx1250-w32-O{0,2}.co``. corefiles/builtins/builtins.hip is not built here: clang-22 rejects it
for gfx1250 (`__builtin_amdgcn_fdot2` needs dot10-insts, which gfx1250 lacks). ``scratch.hip`` (here) is built
the same way: generic pointers to a lane's own and to lane 0's stack (globally accessible scratch).
"""

from __future__ import annotations

import argparse
import filecmp
import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPORA = ("oracle",)
OPTS = ("O0", "O2")


def _oracle_build():
    spec = importlib.util.spec_from_file_location("amddbg_oracle_build", HERE.parent / "oracle" / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def build_into(dest: Path) -> list[str]:
    ob = _oracle_build()
    made = []
    for corpus in CORPORA:
        for opt in OPTS:
            name = ob.object_name("22", "gfx1250", 32, opt, corpus)
            subprocess.run(ob.command("22", "gfx1250", 32, opt, dest / name, corpus), cwd=HERE.parent / corpus,
                           check=True, capture_output=True, text=True)
            made.append(name)
    for opt in OPTS:  # scratch.hip lives here
        name = ob.object_name("22", "gfx1250", 32, opt, "scratch")
        subprocess.run(ob.command("22", "gfx1250", 32, opt, dest / name, "scratch"), cwd=HERE, check=True,
                       capture_output=True, text=True)
        made.append(name)
    return made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--check", action="store_true", help="rebuild into a temp dir, compare with the checked-in objects")
    args = ap.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            made = build_into(Path(tmp))
            bad = [n for n in made if not (HERE / n).exists()
                   or not filecmp.cmp(Path(tmp) / n, HERE / n, shallow=False)]
        print(f"{len(made) - len(bad)}/{len(made)} objects reproduce")
        for n in bad:
            print(f"  differs: {n}")
        return 1 if bad else 0
    made = build_into(HERE)
    print(f"{len(made)} objects in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
