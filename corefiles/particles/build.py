#!/usr/bin/env python3
"""Rebuild the plugin-test kernel's code object (clang-22, gfx90a, -O0 -g, reproducible DWARF paths).

    python3 corefiles/particles/build.py            # rebuild particles-gfx90a-O0.co beside this script
    python3 corefiles/particles/build.py --check    # rebuild into a temp dir and compare the bytes

Tests run it to a trap with `amddbg run --core` and print its locals through a plugin's pretty-printer.
"""

from __future__ import annotations

import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OBJECT = "particles-gfx90a-O0.co"


def build(out: Path) -> None:
    subprocess.run(["clang-22", "-x", "hip", "--offload-arch=gfx90a", "-nogpulib", "-nogpuinc", "--cuda-device-only",
                    "--no-gpu-bundle-output", "-cuid=amddbg-particles", "-g", "-O0", "-fdebug-compilation-dir=/amddbg",
                    "particles.hip", "-o", str(out)], check=True, cwd=HERE)


if __name__ == "__main__":
    if "--check" in sys.argv[1:]:
        with tempfile.TemporaryDirectory() as tmp:
            build(Path(tmp) / OBJECT)
            same = filecmp.cmp(Path(tmp) / OBJECT, HERE / OBJECT, shallow=False)
        print(f"{OBJECT}: {'reproduces' if same else 'differs'}")
        raise SystemExit(0 if same else 1)
    build(HERE / OBJECT)
