#!/usr/bin/env python3
"""Rebuild the held-out-style hang kernels' code objects from freshhangs.hip with clang-19 and clang-22.

    python3 corefiles/freshhangs/build.py            # rebuild every object beside this script
    python3 corefiles/freshhangs/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``freshhangs-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``; the build (targets, wave sizes, flags,
reproducible DWARF) is corefiles/oracle/build.py's for this folder. No core is checked in: score.py and the tests run each
kernel with `amddbg run ... --core` and explain the core it writes (tests/replay/test_freshhangs.py).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _oracle_build():
    spec = importlib.util.spec_from_file_location("amddbg_oracle_build", HERE.parent / "oracle" / "build.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


if __name__ == "__main__":
    raise SystemExit(_oracle_build().main("freshhangs", __doc__.splitlines()[1]))
