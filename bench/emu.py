#!/usr/bin/env python3
"""Emulator speed: wave-instructions per second over real kernels, and the instruction mix of the slowest.

    .venv/bin/python bench/emu.py          # goal (issue 10): >= 200k wave-instructions/s on one core

No LLVM tool emulates AMDGPU code, so the figure is absolute, not a ratio.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNS = [
    ("corefiles/co/llvm22-gfx90a-w64-O2-hip.co", "divergent_barrier", 256, 256, ["buf:i32:256", "buf:i32:1:fill=1"]),
    ("corefiles/co/llvm22-gfx942-w64-O2-hip.co", "probe<int>", 256, 64, ["buf:i32:256", "buf:i32:4", "buf:i32:1",
                                                                         "i32:5"]),
    ("corefiles/co/llvm22-gfx1100-w32-O2-hip.co", "probe<int>", 256, 64, ["buf:i32:256", "buf:i32:4", "buf:i32:1",
                                                                          "i32:5"]),
    ("corefiles/teach/divergence-gfx90a-O1.co", "lane_loop", 64, 64, ["buf:i32:64:iota"]),
    ("corefiles/scenarios/scenarios-gfx1100.co", "barrier_deadlock", 256, 256, ["buf:i32:1", "buf:i32:256"]),
]


def main() -> None:
    from amddbg.emu.machine import Machine

    total_n = total_t = 0.0
    rows = []
    for path, kernel, grid, block, args in RUNS:
        m = Machine(ROOT / path)
        m.dispatch(kernel, (grid, 1, 1), (block, 1, 1), args)
        mix: Counter = Counter()

        def hook(ev, mix=mix):
            mix[ev.instruction.mnemonic.split("_e32")[0].split("_e64")[0]] += 1

        t = time.perf_counter()
        r = m.run(max_instructions=200_000, hook=hook)
        dt = time.perf_counter() - t
        total_n += r.wave_instructions
        total_t += dt
        rate = r.wave_instructions / dt if dt else 0
        rows.append((rate, path, kernel, r, mix))
        print(f"{Path(path).name:<34} {kernel:<18} {r.status:<11} {r.wave_instructions:>8} wave-instr "
              f"{rate:>10,.0f}/s")
    print(f"overall: {total_n / total_t:,.0f} wave-instructions/s (goal >= 200,000; hook on, one core)")
    rate, path, kernel, _r, mix = min(rows, key=lambda x: x[0])
    print(f"slowest: {Path(path).name} {kernel}; top of its mix: "
          + ", ".join(f"{k} {v}" for k, v in mix.most_common(8)))


if __name__ == "__main__":
    main()
