#!/usr/bin/env python3
"""Rebuild the differential-oracle code objects from oracle.hip with clang-19 and clang-22.

    python3 corefiles/oracle/build.py            # rebuild every object beside this script
    python3 corefiles/oracle/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``oracle-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``. The source is compiled from this folder
under its relative name with ``-fdebug-compilation-dir=/amddbg`` and a fixed ``-cuid``, so DWARF does not name
the checkout and a rebuild with the same compiler package gives the same bytes. ``-ffp-contract=off`` keeps
``a * b + c`` as two rounded operations, which is what the host twins (twins.py) compute. ``-DORACLE_WAVE`` tells
the source the wave size (clang-22 no longer predefines a macro for it; ``__builtin_amdgcn_ballot_w32`` needs it).
"""

from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = "oracle"  # corefiles/heldout/build.py builds its corpus with these same functions
COMPILERS = ("19", "22")
OPTS = ("O0", "O2")
# processor -> wave sizes (gfx9 is wave64 only; gfx10+ runs wave32 natively and wave64 on request)
TARGETS = {"gfx90a": (64,), "gfx942": (64,), "gfx1100": (32, 64), "gfx1200": (32, 64)}


def object_name(compiler: str, target: str, wave: int, opt: str, corpus: str = CORPUS) -> str:
    return f"{corpus}-llvm{compiler}-{target}-w{wave}-{opt}.co"


def command(compiler: str, target: str, wave: int, opt: str, out: Path, corpus: str = CORPUS) -> list[str]:
    """The clang command line for one object of `corpus` (run in its folder: corefiles/<corpus>/<corpus>.hip)."""
    wave_flags = [] if target.startswith("gfx9") else ["-mwavefrontsize64" if wave == 64 else "-mno-wavefrontsize64"]
    return [f"clang-{compiler}", "-x", "hip", f"--offload-arch={target}", *wave_flags, "-nogpulib", "-nogpuinc",
            "--cuda-device-only", "--no-gpu-bundle-output", f"-cuid=amddbg-{corpus}", "-g", f"-{opt}",
            "-ffp-contract=off", f"-D{corpus.upper()}_WAVE={wave}", "-fdebug-compilation-dir=/amddbg",
            f"{corpus}.hip", "-o", str(out)]


def builds() -> list[tuple[str, str, int, str]]:
    return [(c, t, w, o) for c in COMPILERS for t, waves in TARGETS.items() for w in waves for o in OPTS]


def build_into(dest: Path, corpus: str = CORPUS) -> tuple[list[str], list[str]]:
    """Build every combination into `dest`; (built names, rejected 'name: first error line')."""
    made, rejected = [], []
    for c, t, w, o in builds():
        name = object_name(c, t, w, o, corpus)
        r = subprocess.run(command(c, t, w, o, dest / name, corpus), cwd=HERE.parent / corpus, capture_output=True,
                           text=True)
        if r.returncode != 0:
            first = next((line for line in r.stderr.splitlines() if "error" in line), r.stderr.strip()[:200])
            rejected.append(f"{name}: {first}")
            continue
        made.append(name)
    return made, rejected


def main(corpus: str = CORPUS, description: str = __doc__.splitlines()[1]) -> int:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help="rebuild into a temp dir, compare with the checked-in objects")
    args = ap.parse_args()
    here = HERE.parent / corpus
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            made, rejected = build_into(Path(tmp), corpus)
            bad = [n for n in made
                   if not (here / n).exists() or not filecmp.cmp(Path(tmp) / n, here / n, shallow=False)]
        print(f"{len(made) - len(bad)}/{len(made)} objects reproduce")
        for n in bad:
            print(f"  differs: {n}")
        for line in rejected:
            print(f"  rejected by the compiler: {line}")
        return 1 if bad else 0
    made, rejected = build_into(here, corpus)
    print(f"{len(made)} objects in {here}")
    for line in rejected:
        print(f"rejected by the compiler: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
