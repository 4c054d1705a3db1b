"""Full runs whose verdicts, counts and final states must not depend on the emulator's code version: run it on the
base and on the change and diff the outputs. Each line: status, reason (hang verdicts), wave-instructions, final
clock and a digest of every wave's fingerprint, instruction count, PC and state. The runs: the speed kernels
(corefiles/speed, 3 targets x 5 kinds x 32/96 waves), bench/emu.py's corpora (hang verdicts included), three
seeded schedules and 16 loop-prover verdicts (corefiles/explorehangs).

    PYTHONPATH=/path/to/base .venv/bin/python bench/emu_identity.py > before.txt
    PYTHONPATH=. .venv/bin/python bench/emu_identity.py > after.txt; diff before.txt after.txt
"""
import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import emu as benchemu  # noqa: E402
import emu_vs_tinygrad as b  # noqa: E402

from amddbg.emu import machine as em  # noqa: E402


def digest(r) -> str:
    """Every wave's fingerprint (registers, PC, EXEC...), instruction count, PC and state, as one short digest."""
    return hashlib.sha256(b"".join(w.fingerprint() + bytes(str((w.instructions, w.pc, w.state)), "ascii")
                                   for w in r.waves)).hexdigest()[:16]


def main() -> None:
    rows = []
    for target in b.TARGETS:
        name, lanes, _arch = b.TARGETS[target]
        for kind in b.KINDS:
            for waves in (32, 96):
                rounds = b.KINDS[kind][1]
                m = em.Machine(b.ROOT / "corefiles" / "speed" / name)
                n = waves * lanes
                ins = b.inputs(kind, n)
                specs = [f"buf:{'u32' if a.dtype == np.uint32 else 'f32'}:{n}" for a in ins]
                specs += [] if kind == "small" else [f"u32:{rounds}"]
                m.dispatch(b.KINDS[kind][0], (n, 1, 1), (256, 1, 1), specs)
                for bb, arr in zip(m.buffers, ins, strict=False):
                    m.memory.write(bb["address"], arr.tobytes())
                r = m.run(max_instructions=10_000_000)
                rows.append((target, kind, waves, r.status, r.wave_instructions, m.clock, digest(r)))
    for run in benchemu.RUNS + benchemu.WIDE:
        path, kernel, grid, block, args = run[:5]
        m = em.Machine(b.ROOT / path)
        m.dispatch(kernel, (grid, 1, 1), (block, 1, 1), args)
        r = m.run(max_instructions=200_000)
        rows.append((path.split("/")[-1], kernel, r.status, r.reason, r.wave_instructions, m.clock, digest(r)))
    for seed in (1, 2, 3):
        m = em.Machine(b.ROOT / "corefiles/scenarios/scenarios-gfx1100.co", seed=seed)
        m.dispatch("barrier_deadlock", (256, 1, 1), (256, 1, 1), ["buf:i32:1", "buf:i32:256"])
        r = m.run(max_instructions=200_000)
        rows.append(("seed", seed, r.status, r.reason, r.wave_instructions, m.clock))
    for row in rows:
        print(*row, flush=True)
    # loop-prover verdicts (corefiles/explorehangs: counting polls, proved hangs after 100k instructions)
    counters = {"count_atomic": ["buf:i32:1", "buf:i32:128"], "count_volatile": ["buf:i32:1", "buf:i64:128"],
                "count_sleep": ["buf:i32:1", "buf:i32:128"], "count_backoff": ["buf:i32:1", "buf:i32:128"]}
    for obj in ("explorehangs-llvm22-gfx90a-w64-O2.co", "explorehangs-llvm19-gfx1100-w32-O0.co",
                "explorehangs-llvm22-gfx1200-w64-O0.co", "explorehangs-llvm19-gfx942-w64-O2.co"):
        for kernel, args in counters.items():
            m = em.Machine(b.ROOT / "corefiles/explorehangs" / obj)
            m.dispatch(kernel, (128, 1, 1), (64, 1, 1), args)
            r = m.run(max_instructions=400_000)
            print(obj, kernel, r.status, r.reason[:90], r.wave_instructions, m.clock, flush=True)


if __name__ == "__main__":
    main()
