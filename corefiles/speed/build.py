#!/usr/bin/env python3
"""Rebuild the emulator speed-bench kernels (speed.hip) with clang-22 at -O2 for gfx942, gfx1100 and gfx1200.

    python3 corefiles/speed/build.py            # rebuild every object beside this script
    python3 corefiles/speed/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``speed-llvm22-<target>-w{32,64}-O2.co`` and built with corefiles/oracle/build.py's command line
(fixed -cuid, -fdebug-compilation-dir=/amddbg, -g, -ffp-contract=off): gfx942 wave64, gfx1100 and gfx1200 wave32,
the three targets on which issue 22 compared amddbg with tinygrad's emulator (bench/emu_vs_tinygrad.py).
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
    ob.COMPILERS = ("22",)
    ob.OPTS = ("O2",)
    ob.TARGETS = {"gfx942": (64,), "gfx1100": (32,), "gfx1200": (32,)}
    raise SystemExit(ob.main("speed", __doc__.splitlines()[1]))
