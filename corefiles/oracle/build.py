#!/usr/bin/env python3
"""Rebuild the differential-oracle code objects from oracle.hip with clang-19 and clang-22.

    python3 corefiles/oracle/build.py            # rebuild every object beside this script
    python3 corefiles/oracle/build.py --check    # rebuild into a temp dir and compare the bytes

Objects are named ``oracle-llvm{19,22}-<target>-w{32,64}-O{0,2}.co``. The source is compiled from this folder
under its relative name with ``-fdebug-compilation-dir=/amddbg`` and a fixed ``-cuid``, so DWARF does not name
the checkout and a rebuild with the same compiler package gives the same bytes. ``-ffp-contract=off`` keeps
``a * b + c`` as two rounded operations, which is what the host twins (twins.py) compute. ``-DORACLE_WAVE`` tells
the source the wave size (clang-22 no longer predefines a macro for it; ``__builtin_amdgcn_ballot_w32`` needs it).

gfx1250 (GFX12.5) is in the matrix as far as the compilers allow: clang-19 does not know the processor ("invalid
target ID 'gfx1250'") and clang-22 rejects wave64 for it ("option 'wavefrontsize64' cannot be specified on this
target"), so it adds two objects (clang-22, wave32, -O0/-O2): 26 in all. Corpora whose gfx1250 objects are not
checked in pass ``targets=PRE_GFX1250`` (corefiles/causehangs).
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
# processor -> wave sizes (gfx9 is wave64 only; gfx10+ runs wave32 natively and wave64 on request; gfx1250 is
# wave32 only)
PRE_GFX1250 = {"gfx90a": (64,), "gfx942": (64,), "gfx1100": (32, 64), "gfx1200": (32, 64)}
TARGETS = {**PRE_GFX1250, "gfx1250": (32,)}
# processor -> the oldest compiler of COMPILERS that knows it (clang-19 predates GFX12.5)
FIRST_COMPILER = {"gfx1250": "22"}


def object_name(compiler: str, target: str, wave: int, opt: str, corpus: str = CORPUS) -> str:
    return f"{corpus}-llvm{compiler}-{target}-w{wave}-{opt}.co"


def command(compiler: str, target: str, wave: int, opt: str, out: Path, corpus: str = CORPUS) -> list[str]:
    """The clang command line for one object of `corpus` (run in its folder: corefiles/<corpus>/<corpus>.hip)."""
    wave_flags = [] if target.startswith("gfx9") else ["-mwavefrontsize64" if wave == 64 else "-mno-wavefrontsize64"]
    return [f"clang-{compiler}", "-x", "hip", f"--offload-arch={target}", *wave_flags, "-nogpulib", "-nogpuinc",
            "--cuda-device-only", "--no-gpu-bundle-output", f"-cuid=amddbg-{corpus}", "-g", f"-{opt}",
            "-ffp-contract=off", f"-D{corpus.upper()}_WAVE={wave}", "-fdebug-compilation-dir=/amddbg",
            f"{corpus}.hip", "-o", str(out)]


def builds(targets: dict | None = None) -> list[tuple[str, str, int, str]]:
    """(compiler, target, wave, opt) of the matrix; a target is built by the compilers that know it."""
    return [(c, t, w, o) for c in COMPILERS for t, waves in (targets or TARGETS).items()
            if int(c) >= int(FIRST_COMPILER.get(t, "0")) for w in waves for o in OPTS]


def build_into(dest: Path, corpus: str = CORPUS, targets: dict | None = None) -> tuple[list[str], list[str]]:
    """Build every combination into `dest`; (built names, rejected 'name: first error line')."""
    made, rejected = [], []
    for c, t, w, o in builds(targets):
        name = object_name(c, t, w, o, corpus)
        r = subprocess.run(command(c, t, w, o, dest / name, corpus), cwd=HERE.parent / corpus, capture_output=True,
                           text=True)
        if r.returncode != 0:
            first = next((line for line in r.stderr.splitlines() if "error" in line), r.stderr.strip()[:200])
            rejected.append(f"{name}: {first}")
            continue
        made.append(name)
    return made, rejected


def main(corpus: str = CORPUS, description: str = __doc__.splitlines()[1], targets: dict | None = None) -> int:
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--check", action="store_true", help="rebuild into a temp dir, compare with the checked-in objects")
    args = ap.parse_args()
    here = HERE.parent / corpus
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            made, rejected = build_into(Path(tmp), corpus, targets)
            bad = [n for n in made
                   if not (here / n).exists() or not filecmp.cmp(Path(tmp) / n, here / n, shallow=False)]
        print(f"{len(made) - len(bad)}/{len(made)} objects reproduce")
        for n in bad:
            print(f"  differs: {n}")
        for line in rejected:
            print(f"  rejected by the compiler: {line}")
        return 1 if bad else 0
    made, rejected = build_into(here, corpus, targets)
    print(f"{len(made)} objects in {here}")
    for line in rejected:
        print(f"rejected by the compiler: {line}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
