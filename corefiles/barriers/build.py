#!/usr/bin/env python3
"""Build the barrier, wait-counter and trap kernels (barriers.hip) with clang-22 -O2 -g.

    python3 corefiles/barriers/build.py      # needs clang-22 and lld-22; writes barriers-<target>.co here

gfx90a, gfx1100 and gfx1200 cover GFX9, GFX11 and GFX12's split barriers; gfx1250 (GFX12.5) is the
processor with named barriers (amdgpu-execution-synchronization.rst, "s_barrier IDs GFX12").
"""

from __future__ import annotations

import subprocess
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ("gfx90a", "gfx1100", "gfx1200", "gfx1250")


def build() -> None:
    for t in TARGETS:
        out = HERE / f"barriers-{t}.co"
        subprocess.run(["clang-22", "-x", "hip", f"--offload-arch={t}", "-nogpulib", "-nogpuinc", "--cuda-device-only",
                        "--no-gpu-bundle-output", "-g", "-O2", "-fdebug-compilation-dir=/amddbg",
                        "-cuid=amddbg-barriers", "corefiles/barriers/barriers.hip", "-o", str(out)], check=True,
                       cwd=HERE.parents[1])  # a relative source path keeps the DWARF paths reproducible
        print(out.name)


if __name__ == "__main__":
    build()
