#!/usr/bin/env python3
"""Rebuild the issue-22 kernels (issue22.hip) for the targets and compilers where the issue found them.

    python3 corefiles/issue22/build.py            # rebuild every object beside this script
    python3 corefiles/issue22/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``issue22-llvm{19,22}-<target>-w{32,64}-O{0,2}.co`` and built with corefiles/oracle/build.py's
command line (fixed -cuid, -fdebug-compilation-dir=/amddbg, -g): clang-19 and clang-22 for gfx90a, gfx942, gfx1030,
gfx1100 and gfx1200 (wave64 on GFX9, wave32 on GFX10+) at -O0 and -O2.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

TARGETS = {"gfx90a": (64,), "gfx942": (64,), "gfx1030": (32,), "gfx1100": (32,), "gfx1200": (32,)}

if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__, TARGETS))
