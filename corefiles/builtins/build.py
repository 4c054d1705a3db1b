#!/usr/bin/env python3
"""Rebuild the builtins coverage probe's code objects from builtins.hip with clang-19 and clang-22.

    python3 corefiles/builtins/build.py            # rebuild every object beside this script
    python3 corefiles/builtins/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``builtins-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``; the build (targets, wave sizes, flags,
reproducible DWARF) is corefiles/oracle/build.py's for this folder.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_build import main  # noqa: E402  (corefiles/corpus_build.py: oracle/build.py's matrix for this folder)

if __name__ == "__main__":
    raise SystemExit(main(__file__, __doc__))
