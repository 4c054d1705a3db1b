#!/usr/bin/env python3
"""Rebuild the teaching kernels: clang-22 HIP device code, -O1 -g, gfx90a (wave64) and gfx1100 (wave32).

    python3 corefiles/teach/build.py          # needs clang-22 and lld-22 (apt-get install clang-22 lld-22)
"""

from __future__ import annotations

import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = [("gfx90a", []), ("gfx1100", [])]


def main() -> None:
    for target, extra in TARGETS:
        out = HERE / f"divergence-{target}-O1.co"
        subprocess.run(["clang-22", "-x", "hip", f"--offload-arch={target}", "-nogpulib", "-nogpuinc",
                        "--cuda-device-only", "--no-gpu-bundle-output", "-g", "-O1",
                        "-fdebug-compilation-dir=/amddbg", "-cuid=amddbg-teach", *extra,
                        "corefiles/teach/divergence.hip", "-o", str(out)], check=True, cwd=HERE.parents[1])
        dump = subprocess.run(["llvm-objdump-22", "-d", "--no-show-raw-insn", str(out)], check=True,
                              capture_output=True, text=True).stdout
        (HERE / f"{out.name}.objdump.txt").write_text(dump)
        print(out.name)


if __name__ == "__main__":
    main()
