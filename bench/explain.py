#!/usr/bin/env python3
"""How long `amddbg explain` takes on every scenario core (budget: 5 s each, issue 11).

    python3 bench/explain.py            # checked-in -O2 cores + -O0 cores written from the -O0 objects

Prints one line per core (verdict, findings, replayed wave-instructions, seconds) and the slowest.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SC = ROOT / "corefiles" / "scenarios"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(SC))

from make_scenarios import SCENARIOS, STOP_AT, TARGETS  # noqa: E402

from amddbg.emu.machine import Machine  # noqa: E402
from amddbg.replay.explain import explain_core  # noqa: E402


def o0_cores(out: Path) -> list[Path]:
    made = []
    for t in TARGETS:
        for name, (kernel, grid, block, args, _status) in SCENARIOS.items():
            m = Machine(SC / f"scenarios-{t}-O0.co")
            m.dispatch(kernel, (int(grid), 1, 1), (int(block), 1, 1), args)
            m.run(max_instructions=STOP_AT.get(name, 200_000))
            p = out / f"{name}-{t}-O0.gpu"
            m.write_core(str(p))
            made.append(p)
    return made


def main() -> int:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cores = sorted(SC.glob("*.gpu")) + sorted(SC.glob("*.core")) + o0_cores(Path(tmp))
        for core in cores:
            t0 = time.perf_counter()
            exp = explain_core(str(core))
            dt = time.perf_counter() - t0
            rows.append((dt, core.name, exp))
            kinds = ",".join(sorted({f"{f.kind}/{f.cause}" for f in exp.findings}))
            wi = exp.replay.get("wave_instructions", 0)
            print(f"{core.name:38} {exp.verdict:8} {wi:>8} wi  {dt:6.2f} s  {kinds}")
    rows.sort(key=lambda r: -r[0])
    over = [r for r in rows if r[0] >= 5]
    print(f"\n{len(rows)} cores; slowest {rows[0][1]} {rows[0][0]:.2f} s; median {rows[len(rows) // 2][0]:.2f} s; "
          f"{len(over)} over the 5 s budget")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
