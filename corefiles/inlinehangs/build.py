#!/usr/bin/env python3
"""Rebuild the inlined-helper hang kernels' code objects from inlinehangs.hip with clang-19 and clang-22.

    python3 corefiles/inlinehangs/build.py            # rebuild every object beside this script
    python3 corefiles/inlinehangs/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``inlinehangs-llvm{19,22}-<target>-w{32,64}-O{0,2}.co`` (24: gfx90a and gfx942 wave64, gfx1100
and gfx1200 wave32 and wave64, -O0 and -O2); the build (flags, reproducible DWARF, ``-DINLINEHANGS_WAVE=<wave>``)
is corefiles/oracle/build.py's for this folder. Cores are not checked in: tests write them with ``amddbg run``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

# gfx1250 objects of this corpus are not checked in (its tests glob the folder): the four older targets
if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__, gfx1250=False))
