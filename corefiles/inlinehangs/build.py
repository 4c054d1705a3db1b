#!/usr/bin/env python3
"""Rebuild the inlined-helper hang kernels' code objects from inlinehangs.hip with clang-19 and clang-22.

    python3 corefiles/inlinehangs/build.py            # rebuild every object beside this script
    python3 corefiles/inlinehangs/build.py --check    # rebuild into a temp dir and compare the bytes

Hangs and traps inside always-inline helpers, where every view must name the kernel's call site with the helper's
line as detail. Built for gfx90a and gfx942 (wave64), gfx1100 and gfx1200 (wave32 and wave64) at -O0 and -O2 by
both compilers, ``inlinehangs-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``, with oracle/build.py's flags and
reproducible DWARF (``-DINLINEHANGS_WAVE=<wave>``). No cores are checked in: tests/replay/test_inlinehangs.py
writes them with ``amddbg run --core``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

# gfx1250 objects of this corpus are not checked in (its tests glob the folder): the four older targets
if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__, gfx1250=False))
