#!/usr/bin/env python3
"""Rebuild the hang-cause kernels' code objects from causehangs.hip with clang-19 and clang-22.

    python3 corefiles/causehangs/build.py            # rebuild every object beside this script
    python3 corefiles/causehangs/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``causehangs-llvm{19,22}-<target>-w{32,64}-O{0,2}.co`` (gfx1250: clang-22, wave32 only); the
build (targets, wave sizes, flags, reproducible DWARF) is corefiles/oracle/build.py's for this folder. No core is
checked in: the tests run each kernel with `amddbg run ... --core` and explain the core it writes
(tests/replay/test_causehangs.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

if __name__ == "__main__":  # the whole matrix, gfx1250 included (clang-22, wave32)
    raise SystemExit(main(__file__, __doc__))
