#!/usr/bin/env python3
"""Rebuild the pointer-origin fault kernels' code objects from originfaults.hip with clang-19 and clang-22.

    python3 corefiles/originfaults/build.py            # rebuild every object beside this script
    python3 corefiles/originfaults/build.py --check    # rebuild into a temp dir and compare the bytes

The kernels fault at an address taken from a pointer the user can name (a NULL entry of a pointer table, an index
one past the end of an array argument, a pointer read from a struct field; originfaults.hip lists them all), for
`amddbg explain` to trace back at -O0 and -O2. The 24 objects,
``originfaults-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``, are corefiles/oracle/build.py's matrix without gfx1250,
built with its flags and reproducible DWARF (``-DORIGINFAULTS_WAVE=<wave>``); the cores are written at test time
(tests/replay/test_originfaults.py runs the launches with ``amddbg run --core``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

# gfx1250 objects of this corpus are not checked in (its tests glob the folder): the four older targets
if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__, gfx1250=False))
