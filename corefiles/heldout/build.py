#!/usr/bin/env python3
"""Rebuild the held-out proxy code objects from heldout.hip with clang-19 and clang-22.

    python3 corefiles/heldout/build.py            # rebuild every object beside this script
    python3 corefiles/heldout/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``heldout-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``; the build is corefiles/oracle/build.py's
for this folder (its matrix: 26 objects, gfx1250 from clang-22 in wave32). The source is compiled from this folder
under its relative name with ``-fdebug-compilation-dir=/amddbg`` and a fixed ``-cuid``, so DWARF does not name
the checkout and a rebuild with the same compiler package gives the same bytes. ``-ffp-contract=off`` keeps
``a * b + c`` as two rounded operations, which is what the host twins (twins.py) compute. ``-DHELDOUT_WAVE`` tells
the source the wave size (clang-22 no longer predefines a macro for it; ``__builtin_amdgcn_ballot_w32`` needs it).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__))
