#!/usr/bin/env python3
"""Rebuild the matrix test kernels: mfma.hip for gfx90a and gfx942, wmma.hip for gfx1100 and gfx1200 in wave32 and
wave64, with clang-19 and clang-22 at -O0 and -O2.

    python3 corefiles/mfma/build.py            # rebuild every object beside this script
    python3 corefiles/mfma/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``mfma-llvm{19,22}-<target>-O{0,2}.co`` and ``wmma-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``; the
flags are corefiles/oracle/build.py's (header-free
HIP, fixed -cuid and compilation directory so a rebuild gives the same bytes).
"""

from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = {"gfx90a": (64,), "gfx942": (64,), "gfx1100": (32, 64), "gfx1200": (32, 64)}  # processor -> wave sizes
BUILDS = [(c, t, w, o) for c in ("19", "22") for t, waves in TARGETS.items() for w in waves for o in ("O0", "O2")]


def build_into(dest: Path) -> list[str]:
    made = []
    for c, t, w, o in BUILDS:
        src, name, wave = (("mfma.hip", f"mfma-llvm{c}-{t}-{o}.co", []) if t.startswith("gfx9") else
                           ("wmma.hip", f"wmma-llvm{c}-{t}-w{w}-{o}.co",
                            [f"-DWAVE={w}", "-mwavefrontsize64" if w == 64 else "-mno-wavefrontsize64"]))
        subprocess.run([f"clang-{c}", "-x", "hip", f"--offload-arch={t}", *wave, "-nogpulib", "-nogpuinc",
                        "--cuda-device-only", "--no-gpu-bundle-output", "-cuid=amddbg-mfma", "-g", f"-{o}",
                        "-ffp-contract=off", "-fdebug-compilation-dir=/amddbg", src, "-o", str(dest / name)],
                       cwd=HERE, check=True)
        made.append(name)
    return made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="rebuild into a temp dir, compare with the checked-in objects")
    if ap.parse_args().check:
        with tempfile.TemporaryDirectory() as tmp:
            made = build_into(Path(tmp))
            bad = [n for n in made if not filecmp.cmp(Path(tmp) / n, HERE / n, shallow=False)]
        print(f"{len(made) - len(bad)}/{len(made)} objects reproduce" + "".join(f"\n  differs: {n}" for n in bad))
        return 1 if bad else 0
    print(f"{len(build_into(HERE))} objects in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
