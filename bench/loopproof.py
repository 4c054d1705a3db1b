#!/usr/bin/env python3
"""What the loop proofs (amddbg/emu/loopproof.py) find and what they cost.

    python3 bench/loopproof.py             # counting spins on all 24 explorehangs objects, barrier_deadlock seeds,
                                           # and the held-out corpus (gfx90a, clang-22) with the proofs on and off
    python3 bench/loopproof.py --quick     # one object per part

Prints, per part: the run status and wave-instructions of every counting spin (a hang the machine-state repeat
never proves), the CPU seconds of `barrier_deadlock --grid 4096 --block 256` under seeds 0-3 and 6 (which ran for
minutes before the proofs), and for the held-out corpus the wave-instructions, the instructions the proofs
recorded and the CPU seconds of `Machine.run` with the proofs on and off. Instruction counts are deterministic;
seconds are CPU time of this process.
"""

from __future__ import annotations

import collections
import glob
import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from amddbg.codeobj import CodeObject  # noqa: E402
from amddbg.emu import loopproof  # noqa: E402
from amddbg.emu.args import parse_arg  # noqa: E402
from amddbg.emu.machine import Machine  # noqa: E402

COUNTING = {"count_atomic": ["buf:i32:1", "buf:i32:128"], "count_volatile": ["buf:i32:1", "buf:i64:128"],
            "count_sleep": ["buf:i32:1", "buf:i32:128"], "count_backoff": ["buf:i32:1", "buf:i32:128"]}


def counting(quick: bool) -> None:
    objs = sorted(glob.glob(str(ROOT / "corefiles/explorehangs/*.co")))
    if quick:
        objs = objs[:1]
    worst = 0
    for o in objs:
        co = CodeObject.from_path(o)
        row = []
        for k, args in COUNTING.items():
            m = Machine(co)
            m.dispatch(k, (128, 1, 1), (64, 1, 1), [parse_arg(a) for a in args])
            t = time.process_time()
            r = m.run(max_instructions=2_000_000)
            worst = max(worst, r.wave_instructions)
            row.append(f"{k} {r.status} {r.wave_instructions} ({time.process_time() - t:.2f} s)")
        print(f"{Path(o).name}: " + ", ".join(row))
    print(f"most wave-instructions before the proof: {worst}")


def deadlock(quick: bool) -> None:
    co = CodeObject.from_path(ROOT / "corefiles/scenarios/scenarios-gfx90a.co")
    for seed in (0, 6) if quick else (0, 1, 2, 3, 6):
        m = Machine(co, seed=seed)
        m.dispatch("barrier_deadlock", (4096, 1, 1), (256, 1, 1), [parse_arg("buf:i32:1"), parse_arg("buf:i32:4096")])
        t = time.process_time()
        r = m.run(max_instructions=20_000_000)
        print(f"barrier_deadlock 4096/256 seed {seed}: {r.status} after {r.wave_instructions} wave-instructions, "
              f"{time.process_time() - t:.2f} s ({r.reason[:60]})")


def heldout(quick: bool) -> None:
    spec = importlib.util.spec_from_file_location("heldout_runner", ROOT / "corefiles/heldout/runner.py")
    runner = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = runner
    spec.loader.exec_module(runner)
    objs = [o for o in runner.objects() if "llvm22-gfx90a" in o.name]
    if quick:
        objs = objs[:1]
    recorded = collections.Counter()
    hook = loopproof.Prover.hook

    def counting_hook(self, ev):
        recorded["events"] += 1
        hook(self, ev)

    for on in (True, False):
        total = seconds = 0
        recorded.clear()
        loopproof.Prover.hook = counting_hook
        orig = Machine.run

        def run(self, *a, _orig=orig, _on=on, **k):
            nonlocal total, seconds
            self.prove_loops = _on
            t = time.process_time()
            r = _orig(self, *a, **k)
            seconds += time.process_time() - t
            total += r.wave_instructions
            return r

        Machine.run = run
        try:
            bad = [(o.name, c.kernel) for o in objs for c in runner.twins.all_cases() if not runner.run_case(o, c).ok]
        finally:
            Machine.run = orig
            loopproof.Prover.hook = hook
        print(f"held-out corpus ({len(objs)} objects), proofs {'on' if on else 'off'}: {total} wave-instructions, "
              f"{recorded['events']} recorded by the proofs, Machine.run {seconds:.2f} s CPU, failures {bad}")


if __name__ == "__main__":
    q = "--quick" in sys.argv
    counting(q)
    deadlock(q)
    heldout(q)
