#!/usr/bin/env python3
"""Emulator speed: wave-instructions per second over real kernels, and the instruction mix of the slowest.

    .venv/bin/python bench/emu.py [--repeat N] [--wide] [--kernels]   # goal (issue 10): >= 200k/s, one core

Each pass dispatches every kernel of the corpus on a fresh `Machine` and times only `Machine.run` with a step hook
on (the hook counts mnemonics, so StepEvents are built as replay and the teaching views see them); loading and
decoding the code object are not timed, and the previous dispatches' garbage is collected before the clock starts
(a fresh process has none). Cold passes drop the per-process decoded code first (`machine.forget_decoded`). The rate is
wave-instructions per CPU second of this process (`time.process_time`: the machine's two cores are shared, so
wall time measures the neighbours too); the wall-clock rate is printed beside it. `--repeat` passes give the
median and the spread. `--wide` adds the -O0 `probe<int>` runs (scratch-heavy code) as a second corpus.
No LLVM tool emulates AMDGPU code, so the figure is absolute, not a ratio.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = ["buf:i32:256", "buf:i32:4", "buf:i32:1", "i32:5"]
RUNS = [
    ("corefiles/co/llvm22-gfx90a-w64-O2-hip.co", "divergent_barrier", 256, 256, ["buf:i32:256", "buf:i32:1:fill=1"]),
    ("corefiles/co/llvm22-gfx942-w64-O2-hip.co", "probe<int>", 256, 64, PROBE),
    ("corefiles/co/llvm22-gfx1100-w32-O2-hip.co", "probe<int>", 256, 64, PROBE),
    ("corefiles/teach/divergence-gfx90a-O1.co", "lane_loop", 64, 64, ["buf:i32:64:iota"]),
    ("corefiles/scenarios/scenarios-gfx1100.co", "barrier_deadlock", 256, 256, ["buf:i32:1", "buf:i32:256"]),
]
WIDE = [(f"corefiles/co/llvm22-{t}-O0-hip.co", "probe<int>", 128, 64, ["buf:i32:128", "buf:i32:4", "buf:i32:1",
                                                                          "i32:5"])
        for t in ("gfx90a-w64", "gfx942-w64", "gfx1100-w32", "gfx1200-w64")]
LIMIT = 200_000


def _base(mnemonic: str) -> str:
    return mnemonic.split("_e32")[0].split("_e64")[0]


def run_corpus(runs: list, cold: bool = True) -> list[dict]:
    """One pass: each kernel on a fresh machine; `cold`: as a fresh `amddbg run` process sees it (the per-process
    decoded code and everything derived per instruction are dropped first, `machine.forget_decoded`, so first
    executions are paid again); per kernel its status, count, CPU and wall seconds and mix."""
    from amddbg.emu import machine as emu_machine

    out = []
    for run in runs:
        path, kernel, grid, block, args = run[:5]
        setup = run[5] if len(run) > 5 else None
        if cold:
            emu_machine.forget_decoded()
        # The previous machines (and, cold, the code they decoded) are garbage now, in reference cycles: collect
        # them before the clock starts, or the collector does it inside this run (about 10% of the cold figure
        # was that, not this run's work; a fresh `amddbg run` process has no such garbage).
        gc.collect()
        m = emu_machine.Machine(ROOT / path)
        m.dispatch(kernel, grid if isinstance(grid, tuple) else (grid, 1, 1),
                   block if isinstance(block, tuple) else (block, 1, 1), args, **(run[7] if len(run) > 7 else {}))
        if setup is not None:
            setup(m)
        counts: Counter = Counter()

        def hook(ev, counts=counts):
            counts[ev.instruction.mnemonic] += 1

        c0, t0 = time.process_time(), time.perf_counter()
        r = m.run(max_instructions=run[6] if len(run) > 6 else LIMIT, hook=hook)
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        mix: Counter = Counter()
        for k, v in counts.items():
            mix[_base(k)] += v
        out.append({"path": path, "kernel": kernel, "status": r.status, "n": r.wave_instructions, "cpu": cpu,
                    "wall": wall, "mix": mix})
    return out


def report(name: str, runs: list, repeat: int, per_kernel: bool = True) -> float:
    """`repeat` cold passes (each dispatch as a fresh process sees it) and `repeat` warm ones (the same dispatches
    again in this process: what a replay's second seed, a what-if or a long-running loop sees); the per-kernel
    lines and the slowest kernels' mixes are from the cold passes."""
    passes = [run_corpus(runs, cold=True) for _ in range(repeat)]
    warm = [run_corpus(runs, cold=False) for _ in range(repeat)]
    print(f"corpus {name}: {len(runs)} dispatches, {repeat} cold + {repeat} warm passes, step hook on, "
          f"limit {LIMIT:,} per dispatch")
    rates = []
    for p in passes:
        rates.append(sum(k["n"] for k in p) / sum(k["cpu"] for k in p))
    warm_rates = [sum(k["n"] for k in p) / sum(k["cpu"] for k in p) for p in warm]
    walls = [sum(k["n"] for k in p) / sum(k["wall"] for k in p) for p in passes]
    last = passes[-1]
    for i, k in enumerate(last):
        if not per_kernel:
            break
        per = [p[i]["n"] / p[i]["cpu"] if p[i]["cpu"] else 0.0 for p in passes]
        print(f"  {Path(k['path']).name:<34} {k['kernel']:<18} {k['status']:<11} {k['n']:>8} wave-instr "
              f"{statistics.median(per):>10,.0f}/s")
    med = statistics.median(rates)
    total = sum(k["n"] for k in last)
    print(f"  overall cold: {med:,.0f} wave-instructions per CPU second ({total:,} wave-instructions; median of "
          f"{repeat}; min {min(rates):,.0f}, max {max(rates):,.0f}); wall clock {statistics.median(walls):,.0f}/s; "
          "goal >= 200,000")
    print(f"  overall warm: {statistics.median(warm_rates):,.0f} wave-instructions per CPU second (median of {repeat}; "
          f"min {min(warm_rates):,.0f}, max {max(warm_rates):,.0f})")
    slowest = sorted(range(len(last)), key=lambda i: statistics.median(
        p[i]["n"] / p[i]["cpu"] if p[i]["cpu"] else 0.0 for p in passes))[:2]
    for i in slowest:
        k = last[i]
        print(f"  slow: {Path(k['path']).name} {k['kernel']}; top of its mix: "
              + ", ".join(f"{m} {v}" for m, v in k["mix"].most_common(8)))
    return med


def differential_runs(corpus: str, objects: list[str]) -> list:
    """The real computations of a differential corpus (`corefiles/oracle`, `corefiles/heldout`: LDS reductions
    and scans, sorts, histograms, GEMM tiles, stencils, SpMV, hashes, recursion...), each dispatched with its
    inputs as its runner does; the outputs are not checked here (the tests do)."""
    import importlib.util
    import sys

    here = ROOT / "corefiles" / corpus
    spec = importlib.util.spec_from_file_location(f"amddbg_bench_{corpus}_runner", here / "runner.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    shared = getattr(mod, "oracle_runner", mod)  # (the held-out runner dispatches through the oracle runner's)
    prepare, write_inputs = shared.prepare, shared.write_inputs
    runs = []
    for obj in objects:
        for case in mod.twins.all_cases():
            specs, initial, launch = prepare(case)
            grid = tuple(case.grid) + (1,) * (3 - len(case.grid))
            block = tuple(case.block) + (1,) * (3 - len(case.block))
            runs.append((f"corefiles/{corpus}/{corpus}-{obj}.co", case.kernel, grid, block, specs,
                         lambda m, initial=initial: write_inputs(m, initial), case.max_instructions or LIMIT, launch))
    return runs


# one object per target generation, -O0 and -O2, both compilers
DIFFERENTIAL_OBJECTS = ["llvm22-gfx90a-w64-O2", "llvm19-gfx942-w64-O0", "llvm22-gfx1100-w32-O0",
                        "llvm19-gfx1200-w64-O2"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="passes over the corpus (median and spread reported)")
    ap.add_argument("--wide", action="store_true", help="also run the -O0 probe<int> corpus")
    ap.add_argument("--kernels", action="store_true",
                    help="also run the oracle and held-out corpora's real computations on four objects")
    a = ap.parse_args()
    report("default", RUNS, a.repeat)
    if a.wide:
        report("-O0 probe", WIDE, a.repeat)
    if a.kernels:
        for corpus in ("oracle", "heldout"):
            report(f"{corpus} kernels ({', '.join(DIFFERENTIAL_OBJECTS)})",
                   differential_runs(corpus, DIFFERENTIAL_OBJECTS), a.repeat, per_kernel=False)


if __name__ == "__main__":
    main()
