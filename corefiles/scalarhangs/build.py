#!/usr/bin/env python3
"""Rebuild the scalar-cache hang kernels' code objects from scalarhangs.hip with clang-19 and clang-22.

    python3 corefiles/scalarhangs/build.py            # rebuild every object beside this script
    python3 corefiles/scalarhangs/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``scalarhangs-llvm{19,22}-<target>-w{32,64}-O{0,2}.co`` for gfx90a and gfx942 (wave64) and gfx1100
and gfx1200 (wave32): the build (flags, reproducible DWARF) is corefiles/oracle/build.py's for this folder. No core
is checked in: tests/replay/test_scalarhangs.py runs each kernel with `amddbg run ... --core` and explains the core.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

TARGETS = {"gfx90a": (64,), "gfx942": (64,), "gfx1100": (32,), "gfx1200": (32,)}

if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__, targets=TARGETS))
