#!/usr/bin/env python3
"""CPU (user + sys) of typical `amddbg` subprocesses, the kind the test suite spawns hundreds of times.

    python3 bench/startup.py [--repeat N]

Each command runs N times (default 5) as `sys.executable -m amddbg ...`; the line shows the median and the
minimum CPU seconds of one process (resource.getrusage of the waited child: CPU, not wall time, so a loaded
machine changes the figures little). The commands: `--help`, `info` and a batch `bt` on a scenario core (no
replay, no emulator needed), `explain --json` on a fault core and a hang core, `run --core` of a small kernel.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SC = ROOT / "corefiles" / "scenarios"


def commands(tmp: str) -> list[tuple[str, list[str]]]:
    fault = str(SC / "memory-fault-gfx90a.gpu")
    hang = str(SC / "barrier-deadlock-gfx90a.gpu")
    return [
        ("--help", ["--help"]),
        ("info CORE", ["info", fault]),
        ("-batch -ex bt CORE", ["-batch", "-ex", "bt", fault]),
        ("explain --json fault core", ["explain", "--json", fault]),
        ("explain hang core", ["explain", hang]),
        ("run --core (memory_fault)", ["run", str(SC / "scenarios-gfx90a-O2.co"), "--kernel", "memory_fault",
                                       "--grid", "64", "--block", "64", "--arg", "buf:i32:64",
                                       "--arg", "i32:60", "--core", os.path.join(tmp, "c.gpu")]),
    ]


def cpu_of(argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "amddbg", *argv], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{'command':32} {'median CPU s':>12} {'min CPU s':>10}   (python -c pass: ", end="")
        base = []
        for _ in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-c", "pass"], check=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            base.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        print(f"{statistics.median(base):.3f} s)")
        for name, argv in commands(tmp):
            times = [cpu_of(argv) for _ in range(args.repeat)]
            print(f"{name:32} {statistics.median(times):12.3f} {min(times):10.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
