#!/usr/bin/env python3
"""Rebuild the emulator speed-bench kernels (speed.hip) with clang-22 at -O2 for gfx942, gfx1100 and gfx1200.

    python3 corefiles/speed/build.py            # rebuild every object beside this script
    python3 corefiles/speed/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``speed-llvm22-<target>-w{32,64}-O2.co`` and built with corefiles/oracle/build.py's command line
(fixed -cuid, -fdebug-compilation-dir=/amddbg, -g, -ffp-contract=off): gfx942 wave64, gfx1100 and gfx1200 wave32,
the three targets on which issue 22 compared amddbg with tinygrad's emulator (bench/emu_vs_tinygrad.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import oracle_build  # noqa: E402  (corefiles/corpus_build.py: loads oracle/build.py)

if __name__ == "__main__":
    ob = oracle_build()
    ob.COMPILERS = ("22",)
    ob.OPTS = ("O2",)
    raise SystemExit(ob.main("speed", __doc__.strip().splitlines()[0],
                             targets={"gfx942": (64,), "gfx1100": (32,), "gfx1200": (32,)}))
