#!/usr/bin/env python3
"""Triage speed at scale: N sparse cores of W waves each (written by the core writer into a temporary
folder), triaged with --jobs J; prints wall time, cores/s, and the peak RSS of the worker processes.

    .venv/bin/python bench/triage.py                # 1,000 cores x 256 waves, --jobs 2 (the issue's goal: < 60 s)
    .venv/bin/python bench/triage.py --cores 200 --waves 64 --dask

No LLVM tool does this, so there is no ratio: the goals are absolute (< 60 s, < 300 MB per worker).
"""

from __future__ import annotations

import argparse
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "triage"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cores", type=int, default=1000)
    ap.add_argument("--waves", type=int, default=256, help="waves per core (4 per workgroup)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dask", action="store_true", help="also run on a local Dask cluster")
    args = ap.parse_args()
    import jobcores

    from amddbg.triage import triage

    tmp = Path(tempfile.mkdtemp(prefix="amddbg-triage-bench-"))
    try:
        t = time.perf_counter()
        outliers = {i for i in range(0, args.cores, 97)}
        paths = jobcores.write_job(tmp, args.cores, groups=max(1, args.waves // 4), trapped=outliers)
        size = sum(p.stat().st_size for p in paths)
        print(f"generated {args.cores} cores x {args.waves} waves ({size / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - t:.1f} s")
        t = time.perf_counter()
        report = triage([str(p) for p in paths], jobs=args.jobs, progress=False)
        wall = time.perf_counter() - t
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        doc = report.document()
        print(f"triage --jobs {args.jobs}: {wall:.1f} s for {doc['cores']} cores, {doc['waves']} waves "
              f"({doc['cores'] / wall:.0f} cores/s); peak worker RSS {rss:.0f} MB "
              f"(goals: < 60 s, < 300 MB)")
        print("  " + doc["summary"][0])
        print(f"  outliers: {len(doc['outlier_cores'])} named, {doc['ordinary_cores']} ordinary")
        if args.dask:
            t = time.perf_counter()
            triage([str(p) for p in paths], jobs=args.jobs, cluster="local", progress=False)
            print(f"triage --cluster local ({args.jobs} workers): {time.perf_counter() - t:.1f} s "
                  "(includes starting the cluster)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
