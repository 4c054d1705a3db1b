#!/usr/bin/env python3
"""Rebuild the third-party samples corpus from samples.hip with clang-19 and clang-22.

    python3 corefiles/samples/build.py            # rebuild every object beside this script
    python3 corefiles/samples/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``samples-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``; the build (flags, reproducible DWARF,
``-DSAMPLES_WAVE``, ``--check``) is corefiles/oracle/build.py's for this folder, on its four targets in their
native wave size only (gfx90a and gfx942 wave64, gfx1100 and gfx1200 wave32): 16 objects, to keep the checked-in
size modest (the samples choose their launch shapes for the device's warpSize, which is the native one).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

TARGETS = {"gfx90a": (64,), "gfx942": (64,), "gfx1100": (32,), "gfx1200": (32,)}

if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__, TARGETS))
