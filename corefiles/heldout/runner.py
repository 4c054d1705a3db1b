#!/usr/bin/env python3
"""Run the held-out proxy corpus in the emulator and compare every output buffer with its host twin.

    .venv/bin/python corefiles/heldout/runner.py                 # every object x kernel, a summary per object
    .venv/bin/python corefiles/heldout/runner.py --status FILE   # also write the failing runs
    .venv/bin/python corefiles/heldout/runner.py --only llvm22-gfx90a --kernel softmax_rows -v

Like corefiles/oracle/runner.py (whose mnemonic helpers it reuses), but with the held-out twins: outputs are
compared bit for bit unless the case names a tolerance for that output (twins.py says which and why), and a
case may ask for dynamic LDS (extern __shared__).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))
from corpus_twins import load as _load  # noqa: E402  (corefiles/corpus_twins.py: shared by the corpus runners)

twins = _load("amddbg_heldout_twins", HERE / "twins.py")
oracle_runner = _load("amddbg_oracle_runner", HERE.parent / "oracle" / "runner.py")
corpus_mnemonics = oracle_runner.corpus_mnemonics
missing_mnemonics = oracle_runner.missing_mnemonics


def objects() -> list[Path]:
    return sorted(HERE.glob("heldout-llvm*.co"))


@dataclass
class Outcome:
    ok: bool
    status: str  # emulator status (completed/unsupported/fault/...), 'mismatch' or 'error'
    detail: str
    wave_instructions: int
    seconds: float


def _differ(got: np.ndarray, want: np.ndarray, tol: tuple[float, float] | None) -> np.ndarray:
    """Indices where got and want disagree: bit for bit, or (floats with a tolerance) beyond rtol*|want| + atol."""
    ui = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[got.dtype.itemsize]
    same = got.view(ui) == want.view(ui)
    if tol is not None:
        rtol, atol = tol
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        with np.errstate(all="ignore"):
            close = np.abs(g - w) <= rtol * np.abs(w) + atol
        same |= close | (np.isnan(g) & np.isnan(w))
    return np.nonzero(~same)[0]


def run_case(co: Path, case) -> Outcome:
    """Dispatch `case` on a fresh machine for code object `co`, run it, compare the outputs with the twin."""
    from amddbg.emu.machine import Machine

    t0 = time.perf_counter()
    m = Machine(co)
    specs, initial, launch = oracle_runner.prepare(case)
    try:
        m.dispatch(case.kernel, case.grid, case.block, specs, **launch)
    except TypeError as e:  # an emulator without the keyword
        return Outcome(False, "error", f"dispatch: {e}", 0, time.perf_counter() - t0)
    oracle_runner.write_inputs(m, initial)
    r = m.run(max_instructions=case.max_instructions)
    if r.status != "completed":
        return Outcome(False, r.status, r.reason, r.wave_instructions, time.perf_counter() - t0)
    expected = case.expected(m.lanes, m.processor)
    bufs = list(zip(m.buffers, initial, strict=True))
    out_idx = [i for i, a in enumerate(a for a in case.args if not isinstance(a, str)) if isinstance(a, twins.Out)]
    problems = []
    for k, (want, i) in enumerate(zip(expected, out_idx, strict=True)):
        b, arr = bufs[i]
        got = np.frombuffer(m.memory.read(b["address"], arr.nbytes), dtype=arr.dtype)
        want = np.asarray(want, dtype=arr.dtype)
        bad = _differ(got, want, case.tolerance.get(k))
        if bad.size:
            shown = ", ".join(f"[{j}] got {got[j].item()!r} want {want[j].item()!r}" for j in bad[:4].tolist())
            problems.append(f"arg {b['arg']}: {bad.size}/{got.size} differ: {shown}")
    dt = time.perf_counter() - t0
    if problems:
        return Outcome(False, "mismatch", "; ".join(problems), r.wave_instructions, dt)
    return Outcome(True, "completed", "", r.wave_instructions, dt)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--only", help="substring of object names")
    ap.add_argument("--kernel", help="one kernel")
    ap.add_argument("--status", help="write failing runs and missing mnemonics to this file")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    objs = [p for p in objects() if not args.only or args.only in p.name]
    cases = [c for c in twins.all_cases() if not args.kernel or c.kernel == args.kernel]
    failures, per_obj = [], {}
    per_kernel = {c.kernel: 0 for c in cases}
    t0 = time.perf_counter()
    for p in objs:
        passed = 0
        for c in cases:
            try:
                o = run_case(p, c)
            except Exception as e:  # an emulator crash is a failing run, not the end of the measurement
                o = Outcome(False, "crash", f"{type(e).__name__}: {e}", 0, 0.0)
            passed += o.ok
            per_kernel[c.kernel] += o.ok
            if not o.ok:
                failures.append((p.name, c.kernel, o))
            if args.v or not o.ok:
                print(f"  {p.name} {c.kernel}: {'ok' if o.ok else o.status} {o.wave_instructions} insns "
                      f"{o.seconds:.2f}s {o.detail[:300]}", flush=True)
        per_obj[p.name] = passed
        print(f"{p.name}: {passed}/{len(cases)}", flush=True)
    total = sum(per_obj.values())
    runs = len(objs) * len(cases)
    pct = 100.0 * total / runs if runs else 0.0
    print("per kernel: " + ", ".join(f"{k} {n}/{len(objs)}" for k, n in per_kernel.items()))
    print(f"total {total}/{runs} ({pct:.1f}%) in {time.perf_counter() - t0:.1f}s")
    if args.status:
        missing = missing_mnemonics(corpus_mnemonics(objs))
        lines = [f"held-out status ({time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}): {total}/{runs} "
                 f"runs pass ({pct:.1f}%)", "", "per object:"]
        lines += [f"  {n}: {k}/{len(cases)}" for n, k in per_obj.items()]
        lines += ["", "failing runs (object kernel: status detail):"]
        lines += [f"  {name} {kernel}: {o.status}: {o.detail[:300]}" for name, kernel, o in failures]
        lines += ["", f"mnemonics in the corpus with no semantics ({len(missing)}):"]
        lines += [f"  {mn}  ({len(objs_)} objects)" for mn, objs_ in sorted(missing.items())]
        Path(args.status).write_text("\n".join(lines) + "\n")
    return 0 if total == runs else 1


if __name__ == "__main__":
    raise SystemExit(main())
