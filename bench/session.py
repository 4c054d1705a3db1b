"""Benchmark: the session API (amddbg.open -> Program) at scale, figures printed in one run.

1. A 10,000-wave core (real gfx90a -O2 code object, waves parked at a barrier and in an `s_sleep` polling
   loop, as tests/session/tests_session_scale.py builds it): `amddbg.open` + the start-up summary
   (agents, dispatches, waves by state and source line) must take < 2 s.
2. On the same core: every wave's state and frames (`thread apply all bt`'s data, with frame arguments)
   must take < 10 s; also the end-to-end `amddbg -batch -ex "thread apply all bt"` in a fresh process
   (import + open + render every header and frame line).
3. `print -lane all` of a variable over 64 lanes (third_level's `x` in the core stopped three calls deep,
   tests/session/chain_core.py) must take < 50 ms.
4. The first summary on a demo core (corefiles/cores/gfx90a-divergent-barrier.gpu), fresh process.

Each figure is measured in a fresh subprocess (no warm caches from another measurement); the best of
--repeat runs is printed with its budget.

usage: python bench/session.py [--waves N] [--repeat N] [--dir DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "session"))

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1]); sys.path.insert(0, sys.argv[1] + "/tests/session")
what, path = sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
import amddbg
from amddbg.repl.summary import summary_lines
t_import = time.perf_counter() - t0
out = {"import": t_import}
if what == "summary":
    t = time.perf_counter()
    prog = amddbg.open(path)
    lines = summary_lines(prog)
    out["open_summary"] = time.perf_counter() - t
    out["waves"] = len(prog.waves)
    out["lines"] = len(lines)
elif what == "bt":
    prog = amddbg.open(path)
    t = time.perf_counter()
    states = [w.state for w in prog.waves]
    out["states"] = time.perf_counter() - t
    t = time.perf_counter()
    frames = 0
    for w in prog.waves:
        for f in w.frames():
            frames += 1
            for a in f.arguments():
                a.value()
    out["frames"] = time.perf_counter() - t
    out["frame_count"] = frames
    out["waves"] = len(states)
elif what == "lanes":
    prog = amddbg.open(path)
    frame = prog.waves[0].frames()[0]
    frame.value("x", "all")  # first use: DWARF scopes parsed once per (code object, pc)
    best = 1e9
    for _ in range(20):
        t = time.perf_counter()
        text = frame.value("x", "all").format()
        best = min(best, time.perf_counter() - t)
    out["lane_all_warm"] = best
    prog = amddbg.open(path)
    t = time.perf_counter()
    text = prog.evaluate_lanes("x").format()
    out["lane_all_cold_expr"] = time.perf_counter() - t
    out["text"] = text
print(json.dumps(out))
"""


def child(what: str, path: Path) -> dict:
    r = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), what, str(path)], capture_output=True, text=True,
                       check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def timed_cli(args: list[str]) -> tuple[float, int]:
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True)
    dt = time.perf_counter() - t
    if r.returncode not in (0, 1):
        raise SystemExit(f"amddbg {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()[:400]}")
    return dt, len(r.stdout.splitlines())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--waves", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--dir", type=Path)
    a = ap.parse_args()
    tmp = Path(a.dir or tempfile.mkdtemp(prefix="amddbg-bench-session-"))
    tmp.mkdir(parents=True, exist_ok=True)
    try:
        run(a, tmp)
    finally:
        if a.dir is None:
            shutil.rmtree(tmp, ignore_errors=True)


def run(a, tmp: Path) -> None:
    import chain_core
    from tests_session_scale import build_scale_core

    scale = build_scale_core(tmp / "scale.gpu", waves=a.waves)
    chain = tmp / "chain.gpu"
    chain_core.build(chain)
    demo = ROOT / "corefiles" / "cores" / "gfx90a-divergent-barrier.gpu"
    print(f"# bench/session.py: {a.waves} waves ({scale.stat().st_size / 1e6:.1f} MB core), best of {a.repeat}")

    s = min((child("summary", scale) for _ in range(a.repeat)), key=lambda d: d["open_summary"])
    print(f"open + summary, {s['waves']} waves:            {s['open_summary']:.3f} s  (budget 2 s)")
    dt, _ = min(timed_cli(["-batch", str(scale)]) for _ in range(a.repeat))
    print(f"amddbg -batch CORE (summary) end to end:  {dt:.3f} s  (process start, imports, open, summary)")
    b = min((child("bt", scale) for _ in range(a.repeat)), key=lambda d: d["states"] + d["frames"])
    total = b["states"] + b["frames"]
    print(f"all wave states:                       {b['states']:.3f} s")
    print(f"all frames + arguments ({b['frame_count']} frames): {b['frames']:.3f} s")
    print(f"states + frames:                       {total:.3f} s  (budget 10 s)")
    dt, n = min(timed_cli(["-batch", "-ex", "thread apply all bt", str(scale)]) for _ in range(a.repeat))
    print(f"amddbg -batch -ex 'thread apply all bt' end to end: {dt:.3f} s, {n} lines  (budget 10 s)")
    ln = min((child("lanes", chain) for _ in range(a.repeat)), key=lambda d: d["lane_all_warm"])
    print(f"print -lane all x (64 lanes), warm:    {ln['lane_all_warm'] * 1000:.1f} ms  (budget 50 ms)")
    print(f"print -lane all x, first (expression): {ln['lane_all_cold_expr'] * 1000:.1f} ms  -> {ln['text']}")
    d = min((child("summary", demo) for _ in range(a.repeat)), key=lambda d: d["open_summary"] + d["import"])
    print(f"demo core: import + open + summary:    {d['import'] + d['open_summary']:.3f} s  (first prompt budget 1 s)")
    dt, _ = min(timed_cli(["-batch", str(demo)]) for _ in range(a.repeat))
    print(f"demo core: amddbg -batch (summary), process: {dt:.3f} s")
    ok = s["open_summary"] < 2 and total < 10 and ln["lane_all_warm"] < 0.05
    print("within budget" if ok else "OVER BUDGET")
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
