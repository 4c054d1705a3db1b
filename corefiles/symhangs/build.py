#!/usr/bin/env python3
"""Rebuild the symhangs kernels' code objects from symhangs.hip with clang-19 and clang-22.

    python3 corefiles/symhangs/build.py            # rebuild every object beside this script
    python3 corefiles/symhangs/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``symhangs-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``; the build (targets, wave sizes, flags,
reproducible DWARF) is corefiles/oracle/build.py's for this folder. The kernels: many workgroups polling a flag
no one writes while they store to global memory, each to its own word, all to one word, or where another wave reads
(tests/replay/test_symmetry.py, bench/explain_scale.py --kernel alive_poll).
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
    ob = _oracle_build()
    raise SystemExit(ob.main("symhangs", __doc__.splitlines()[1], targets=ob.PRE_GFX1250))
