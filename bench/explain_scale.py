#!/usr/bin/env python3
"""How `amddbg explain` and the REPL's start-up summary scale with the waves of a spin-wait dispatch (issue 20).

    python3 bench/explain_scale.py                       # 64, 256, 1024 and 10000 waves
    python3 bench/explain_scale.py --waves 64 1024 --dir /tmp/cores   # keep the cores
    python3 bench/explain_scale.py --kernel alive_poll --waves 1024 --whole   # also `explain --no-symmetry`

Each core comes from `amddbg run` on corefiles/scenarios (spin_no_writer, gfx90a: one 64-lane wave per workgroup
polls a flag no one writes) or, with --kernel alive_poll, corefiles/symhangs (each work-item also stores 1 to its
own word every iteration: a class that writes global memory), stopped by its hang detection or by
--max-instructions. Then, each in a fresh process:
`amddbg explain --json` (wall and CPU seconds, verdict, replayed wave-instructions, how: by symmetry or whole) and
the start-up summary (`amddbg.open` + `summary_lines`, what the REPL prints before its prompt: `prompt s`) and the
summary's explanation the REPL's worker process computes after it (`explain_lines`, `bg s`); with --whole, also
`explain --no-symmetry` (every wave replayed: `whole cpu s`, `whole replayed`). Goals: explain on
10,000 waves < 30 s, prompt < 2 s whatever the core. On a shared machine the wall time includes waiting for a
CPU; the CPU time is what the work costs.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = {  # kernel -> (code object, its --arg list for n waves of 64 lanes)
    "spin_no_writer": (ROOT / "corefiles" / "scenarios" / "scenarios-gfx90a.co",
                       lambda n: ["buf:i32:1", f"buf:i32:{n * 64}"]),
    "alive_poll": (ROOT / "corefiles" / "symhangs" / "symhangs-llvm22-gfx90a-w64-O2.co",
                   lambda n: ["buf:i32:1", f"buf:i32:{n * 64}"]),
}
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
SUMMARY = r"""
import sys, time
t0 = time.perf_counter()
import amddbg
from amddbg.repl.summary import explain_lines, summary_lines
program = amddbg.open(sys.argv[1])
summary_lines(program, explain=False)
t1 = time.perf_counter()
line = explain_lines(program)
print(f"{t1 - t0:.2f} {time.perf_counter() - t1:.2f}", (line or ["-"])[0][:100])
"""


def _timed(cmd: list[str]) -> tuple[float, float, subprocess.CompletedProcess]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=str(ROOT))
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p


def build(waves: int, out: Path, kernel: str = "spin_no_writer") -> tuple[float, Path]:
    core = out / f"{kernel.replace('_', '-')}-{waves}.gpu"
    if core.exists():
        return 0.0, core
    obj, args = KERNELS[kernel]
    cmd = [sys.executable, "-m", "amddbg", "run", str(obj), "--kernel", kernel, "--grid", str(waves * 64),
           "--block", "64", "--max-instructions", str(max(20 * waves, 100_000)), "--core", str(core)]
    for a in args(waves):
        cmd += ["--arg", a]
    wall, _cpu, p = _timed(cmd)
    if not core.exists():
        raise SystemExit(f"amddbg run wrote no core for {waves} waves: {p.stderr or p.stdout}")
    return wall, core


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--waves", type=int, nargs="+", default=[64, 256, 1024, 10000])
    ap.add_argument("--dir", help="where the cores go (kept); default: a temporary directory")
    ap.add_argument("--kernel", choices=sorted(KERNELS), default="spin_no_writer",
                    help="spin_no_writer (scenarios: polls only) or alive_poll (symhangs: each work-item also stores "
                         "to its own word every iteration, a class that writes global memory)")
    ap.add_argument("--whole", action="store_true",
                    help="also time `explain --no-symmetry` (every wave replayed) on each core")
    args = ap.parse_args()
    tmp = None
    if args.dir:
        out = Path(args.dir)
        out.mkdir(parents=True, exist_ok=True)
    else:
        tmp = tempfile.TemporaryDirectory()
        out = Path(tmp.name)
    print(f"{'waves':>6} {'run s':>7} {'explain s':>9} {'cpu s':>6} {'verdict':8} {'replayed':>9}  "
          f"{'prompt s':>8} {'bg s':>6}  how")
    worst = 0.0
    for n in args.waves:
        built, core = build(n, out, args.kernel)
        wall, cpu, p = _timed([sys.executable, "-m", "amddbg", "explain", str(core), "--json"])
        try:
            doc = json.loads(p.stdout)
        except ValueError:
            print(f"{n:>6} explain failed: {p.stderr.strip()[-200:]}")
            continue
        method = doc["replay"].get("method", "")
        how = "by symmetry: " + method.split("by symmetry: ")[1].split(" (")[0] if "by symmetry" in method else \
            ("whole dispatch" if "replay" in method else method[:40])
        _s_wall, _s_cpu, s = _timed([sys.executable, "-c", SUMMARY, str(core)])
        try:
            prompt_s, bg_s = s.stdout.split()[:2]
        except ValueError:
            prompt_s, bg_s = "?", "?"
        print(f"{n:>6} {built:>7.1f} {wall:>9.2f} {cpu:>6.2f} {doc['verdict']:8} "
              f"{doc['replay']['wave_instructions']:>9}  {prompt_s:>8} {bg_s:>6}  {how}")
        if args.whole:
            _w, wcpu, wp = _timed([sys.executable, "-m", "amddbg", "explain", str(core), "--json", "--no-symmetry"])
            try:
                wdoc = json.loads(wp.stdout)
                print(f"{'':>6} whole (--no-symmetry): {wcpu:.2f} s CPU, {wdoc['verdict']}, "
                      f"{wdoc['replay']['wave_instructions']} wave-instructions")
            except ValueError:
                print(f"{'':>6} whole (--no-symmetry) failed: {wp.stderr.strip()[-200:]}")
        worst = max(worst, wall if n >= 10000 else 0.0)
    if tmp is not None:
        tmp.cleanup()
    print("(goals: explain on 10,000 waves < 30 s; the summary, what the REPL prints before its prompt, < 2 s; the "
          "summary's explanation comes after the prompt, from a worker process)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
