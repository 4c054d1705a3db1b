#!/usr/bin/env python3
"""Rebuild the lanehangs kernels' code objects from lanehangs.hip with clang-19 and clang-22.

    python3 corefiles/lanehangs/build.py            # rebuild every object beside this script
    python3 corefiles/lanehangs/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``lanehangs-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``; the build (targets, wave sizes, flags,
reproducible DWARF) is corefiles/oracle/build.py's for this folder. The kernels: spin loops that count while the
wave combines every lane's poll through __shfl / __shfl_xor (ds_bpermute), DPP row shifts and readlane, or
ds_swizzle and readfirstlane, and two twins that are not hangs (tests/emu/test_lanehangs.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

# gfx1250 objects of this corpus are not checked in (its tests glob the folder): the four older targets
if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__, gfx1250=False))
