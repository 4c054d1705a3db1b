"""Benchmark: opening big GPU cores and listing their waves.

1. A 100 GB core (sparse file: 100 GB of dumped agent memory that is all holes, plus a queue with a few
   hundred waves) must open and list its waves in < 2 s with < 300 MB RSS.
2. A core with 10,000 waves must list them in < 3 s.

Each measurement runs in a fresh subprocess (open + list every wave's dispatch, workgroup, PC, EXEC,
stop reason) so the RSS is that of the reader alone. For scale it also times `llvm-readelf -l -n` (program
headers + notes, no wave decoding) on the same files when available and prints the ratio.

usage: python bench/core_open.py [--dir DIR] [--waves N] [--big-gb N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from amddbg.core.writer import CoreBuilder  # noqa: E402

CHILD = r"""
import resource, sys, time
sys.path.insert(0, sys.argv[2])
t0 = time.perf_counter()
from amddbg.core import open_core
core = open_core(sys.argv[1])
rows = [(w.dispatch_id, w.workgroup, w.wave_in_group, w.pc, w.exec, w.stop_reason) for w in core.waves]
t1 = time.perf_counter()
# VmHWM is this process's own peak (ru_maxrss would include the parent's peak inherited across exec)
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")]
rss = int(hwm[0].split()[1]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{t1 - t0:.3f} {rss:.1f} {len(rows)} {len(core.warnings)}")
"""


def make_big(path: Path, gigabytes: int, waves: int) -> None:
    b = CoreBuilder(arch="gfx90a")
    q = b.add_queue()
    d = b.add_dispatch(q, entry=0x7000_0000_1000, grid=(1 << 20, 1, 1), workgroup=(256, 1, 1))
    for i in range(waves):
        b.add_wave(
            d,
            workgroup=(i // 4, 0, 0),
            wave_in_group=i % 4,
            pc=0x7000_0000_1000 + 4 * i,
            sgprs=list(range(26)),
            vgprs=[i] * 8,
            lds=b"\1" * 512 if i % 4 == 0 else None,
        )
    b.add_sparse(0x2000_0000_0000, gigabytes << 30)  # agent VRAM aperture, all holes
    b.write_split(str(path))


def make_many(path: Path, waves: int) -> None:
    b = CoreBuilder(arch="gfx90a")
    q = b.add_queue(ring_packets=256)
    ds = [
        b.add_dispatch(q, entry=0x7000_0000_1000 + 0x100 * k, grid=(1 << 16, 1, 1), workgroup=(256, 1, 1))
        for k in range(8)
    ]
    for i in range(waves):
        b.add_wave(
            ds[i % 8],
            workgroup=(i // 32, 0, 0),
            wave_in_group=(i // 8) % 4,
            pc=0x7000_0000_1000 + 4 * i,
            sgprs=[i] * 10,
            vgprs=[i] * 4,
            trap_id=2 if i % 100 == 0 else None,
        )
    b.write_split(str(path))


def measure(path: Path) -> tuple[float, float, int, int]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(ROOT)], check=True, capture_output=True, text=True
    ).stdout.split()
    return float(out[0]), float(out[1]), int(out[2]), int(out[3])


def readelf_time(path: Path) -> float | None:
    tool = shutil.which("llvm-readelf-22") or shutil.which("llvm-readelf")
    if tool is None:
        return None
    t0 = time.perf_counter()
    subprocess.run([tool, "-l", "-n", str(path)], check=False, capture_output=True)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", help="where to write the cores (default: a temporary directory)")
    ap.add_argument("--waves", type=int, default=10_000)
    ap.add_argument("--big-gb", type=int, default=100)
    args = ap.parse_args()
    tmp = Path(args.dir or tempfile.mkdtemp(prefix="amddbg-bench-"))
    ok = True
    try:
        big = tmp / "big.gpu"
        t0 = time.perf_counter()
        make_big(big, args.big_gb, 256)
        wt = time.perf_counter() - t0
        st = os.stat(big)
        secs, rss, n, nw = measure(big)
        ref = readelf_time(big)
        good = secs < 2.0 and rss < 300
        ok &= good
        print(
            f"[{'ok' if good else 'FAIL'}] {args.big_gb} GB sparse core ({st.st_size / 2**30:.1f} GiB apparent, "
            f"{st.st_blocks * 512 / 2**20:.1f} MiB on disk, written in {wt:.2f} s): opened and listed {n} waves "
            f"in {secs:.3f} s (limit 2 s), max RSS {rss:.0f} MB (limit 300 MB)"
            + (f"; llvm-readelf -l -n: {ref:.3f} s, ratio {secs / ref:.1f}x" if ref else "")
        )
        many = tmp / "many.gpu"
        t0 = time.perf_counter()
        make_many(many, args.waves)
        wt = time.perf_counter() - t0
        secs, rss, n, nw = measure(many)
        ref = readelf_time(many)
        good = secs < 3.0 and n == args.waves and nw == 0
        ok &= good
        print(
            f"[{'ok' if good else 'FAIL'}] {n}-wave core ({os.path.getsize(many) / 2**20:.1f} MiB, written in "
            f"{wt:.2f} s): opened and listed in {secs:.3f} s (limit 3 s), max RSS {rss:.0f} MB"
            + (f"; llvm-readelf -l -n: {ref:.3f} s, ratio {secs / ref:.1f}x" if ref else "")
        )
    finally:
        if not args.dir:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
