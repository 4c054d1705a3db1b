#!/usr/bin/env python3
"""Rebuild the gfx1250-only (GFX12.5) kernels beside this script with clang-22.

    python3 corefiles/gfx1250/build.py            # rebuild every object beside this script
    python3 corefiles/gfx1250/build.py --check    # rebuild into a temp dir and compare the bytes

The oracle and builtins corpora build gfx1250 in their own matrices now (corefiles/oracle/build.py: clang-22,
wave32, since clang-19 does not know gfx1250 and clang-22 rejects wave64 for it). What stays here is code only
GFX12.5 runs: ``scratch.hip`` (generic pointers to a lane's own and to lane 0's stack: globally accessible
scratch), built with exactly oracle/build.py's `command()` in this folder, so the DWARF and the bytes reproduce the
same way. ``clusters.hip``: workgroup clusters (`__cluster_dims__`, cluster ids), the cluster barrier, a named
barrier and async copies to LDS, each also in a buggy form (a cluster barrier one workgroup never reaches, a named
barrier short of arrivals, an async copy read before its wait). ``asyncops.hip``: the asynchronous operations no
public source pins down (a cluster multicast load, the tensor data mover's load and store,
ds_atomic_async_barrier_arrive_b64), which the emulator must refuse by name, and an s_wait_tensorcnt with nothing
in flight. Objects: ``{scratch,clusters,asyncops}-llvm22-gfx1250-w32-O{0,2}.co``.
"""

from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from corpus_build import oracle_build  # noqa: E402  (corefiles/corpus_build.py: loads oracle/build.py)

OPTS = ("O0", "O2")
SOURCES = ("scratch", "clusters", "asyncops")


def build_into(dest: Path) -> list[str]:
    ob = oracle_build()
    made = []
    for source in SOURCES:  # they live here
        for opt in OPTS:
            name = ob.object_name("22", "gfx1250", 32, opt, source)
            subprocess.run(ob.command("22", "gfx1250", 32, opt, dest / name, source), cwd=HERE, check=True,
                           capture_output=True, text=True)
            made.append(name)
    return made


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--check", action="store_true", help="rebuild into a temp dir, compare with the checked-in objects")
    args = ap.parse_args()
    if args.check:
        with tempfile.TemporaryDirectory() as tmp:
            made = build_into(Path(tmp))
            bad = [n for n in made if not (HERE / n).exists()
                   or not filecmp.cmp(Path(tmp) / n, HERE / n, shallow=False)]
        print(f"{len(made) - len(bad)}/{len(made)} objects reproduce")
        for n in bad:
            print(f"  differs: {n}")
        return 1 if bad else 0
    made = build_into(HERE)
    print(f"{len(made)} objects in {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
