#!/usr/bin/env python3
"""Run the third-party samples corpus in the emulator (in process, `run_script`) and check each with its host twin.

    .venv/bin/python corefiles/samples/runner.py                        # every object x sample, a line per object
    .venv/bin/python corefiles/samples/runner.py --only llvm22-gfx90a --kernel bodyForce -v

tests/emu/test_samples.py runs the same cases through `amddbg run --script ... --json`; this script is the quick
way to count passes over the whole matrix (docs in corefiles/samples/README.md).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))
from corpus_twins import load as _load  # noqa: E402  (corefiles/corpus_twins.py: shared by the corpus runners)

twins = _load("amddbg_samples_twins", HERE / "twins.py")


def objects() -> list[Path]:
    return sorted(HERE.glob("samples-llvm*.co"))


def wave_of(obj: Path) -> int:
    return int(re.search(r"-w(\d+)-", obj.name).group(1))


def run_case(obj: Path, sample) -> tuple[bool, str, int]:
    """(passed, detail, wave-instructions) of one sample on one object."""
    from amddbg.emu.launch import run_script

    wave = wave_of(obj)
    res = run_script(str(obj), sample.script(wave), max_instructions=sample.max_instructions)
    insns = sum(x.wave_instructions for x in res.launches)
    if res.status != "completed":
        last = res.launches[-1]
        return False, f"launch {last.index}: {last.status}: {last.reason}", insns
    warnings = [w for x in res.launches for w in x.warnings]
    out = {name: res.buffer(name).astype(sample.dtypes.get(name, np.uint8)) for name in res.buffers}
    problems = sample.check(out, wave)
    if warnings:
        problems.append(f"{len(warnings)} LDS warning(s): {warnings[0]}")
    return not problems, "; ".join(problems), insns


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--only", help="substring of object names")
    ap.add_argument("--kernel", help="one sample (its kernel name)")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    objs = [p for p in objects() if not args.only or args.only in p.name]
    samples = [s for s in twins.SAMPLES if not args.kernel or s.kernel == args.kernel]
    total = 0
    t0 = time.perf_counter()
    for p in objs:
        passed = 0
        for s in samples:
            t = time.perf_counter()
            try:
                ok, detail, insns = run_case(p, s)
            except Exception as e:  # an emulator crash is a failing run, not the end of the count
                ok, detail, insns = False, f"crash: {type(e).__name__}: {e}", 0
            passed += ok
            if args.v or not ok:
                print(f"  {p.name} {s.kernel}: {'ok' if ok else 'FAIL'} {insns} insns {time.perf_counter() - t:.1f}s "
                      f"{detail[:400]}", flush=True)
        total += passed
        print(f"{p.name}: {passed}/{len(samples)}", flush=True)
    print(f"total {total}/{len(objs) * len(samples)} in {time.perf_counter() - t0:.0f}s")
    return 0 if total == len(objs) * len(samples) else 1


if __name__ == "__main__":
    raise SystemExit(main())
