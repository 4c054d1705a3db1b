#!/usr/bin/env python3
"""Rebuild the backoffhangs kernels' code objects from backoffhangs.hip with clang-19 and clang-22.

    python3 corefiles/backoffhangs/build.py            # rebuild every object beside this script
    python3 corefiles/backoffhangs/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``backoffhangs-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``; the build (targets, wave sizes, flags,
reproducible DWARF) is corefiles/oracle/build.py's for this folder. The kernels: counting polls whose loop branches
on the counter (a back-off every N polls, a timeout that only logs, an exponential back-off with a nested delay
loop, a switch on the count), each with a twin launch whose last workgroup writes the flag
(tests/emu/test_backoffhangs.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

# gfx1250 objects of this corpus are not checked in (its tests glob the folder): the four older targets
if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__, gfx1250=False))
