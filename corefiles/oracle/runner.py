#!/usr/bin/env python3
"""Run the oracle corpus in the emulator and compare every output buffer with its host twin.

    .venv/bin/python corefiles/oracle/runner.py                 # every object x kernel, a summary per object
    .venv/bin/python corefiles/oracle/runner.py --status FILE   # also write failing runs + missing mnemonics
    .venv/bin/python corefiles/oracle/runner.py --only llvm22-gfx90a --kernel bitops -v

tests/emu/test_oracle.py uses `run_case` and `corpus_mnemonics`; this script is the same check by hand, for
seeing the whole picture at once (which kernels fail where, and which mnemonics the emulator lacks).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _twins():
    spec = importlib.util.spec_from_file_location("amddbg_oracle_twins", HERE / "twins.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


twins = _twins()


def objects() -> list[Path]:
    return sorted(HERE.glob("oracle-llvm*.co"))


@dataclass
class Outcome:
    ok: bool
    status: str  # emulator status (completed/unsupported/fault/...) or 'mismatch'
    detail: str
    wave_instructions: int
    seconds: float


def _type_name(dtype) -> str:
    return {np.uint8: "u8", np.int8: "i8", np.uint16: "u16", np.int16: "i16", np.uint32: "u32", np.int32: "i32",
            np.uint64: "u64", np.int64: "i64", np.float32: "f32", np.float64: "f64",
            np.float16: "f16"}[np.dtype(dtype).type]


def prepare(case) -> tuple[list[str], list[np.ndarray], dict]:
    """What dispatching `case` takes: its `--arg` specs, each buffer's initial contents (in argument order) and the
    dispatch keywords it asks for (dynamic LDS, a stack size). Shared by both corpora's runners and bench/emu.py."""
    specs, initial = [], []
    for a in case.args:
        if isinstance(a, str):
            specs.append(a)
            continue
        arr = a if isinstance(a, np.ndarray) else a.initial()
        specs.append(f"buf:{_type_name(arr.dtype)}:{arr.size}")
        initial.append(arr)
    launch = {k: getattr(case, k) for k in ("dynamic_lds", "stack_size") if getattr(case, k, 0)}
    return specs, initial, launch


def write_inputs(m, initial: list[np.ndarray]) -> None:
    """Fill the dispatched machine's buffers with the case's initial contents."""
    for b, arr in zip(m.buffers, initial, strict=True):
        m.memory.write(b["address"], np.ascontiguousarray(arr).tobytes())


def run_case(co: Path, case) -> Outcome:
    """Dispatch `case` on a fresh machine for code object `co`, run it, compare the outputs bit for bit."""
    from amddbg.emu.machine import Machine

    t0 = time.perf_counter()
    m = Machine(co)
    specs, initial, launch = prepare(case)
    m.dispatch(case.kernel, case.grid, case.block, specs, **launch)
    write_inputs(m, initial)
    r = m.run(max_instructions=case.max_instructions)
    if r.status != "completed":
        return Outcome(False, r.status, r.reason, r.wave_instructions, time.perf_counter() - t0)
    expected = case.expected(m.lanes, m.processor)
    outs = [(b, arr) for b, arr in zip(m.buffers, initial, strict=True)]
    out_idx = [i for i, a in enumerate(a for a in case.args if not isinstance(a, str)) if isinstance(a, twins.Out)]
    problems = []
    for want, i in zip(expected, out_idx, strict=True):
        b, arr = outs[i]
        raw = m.memory.read(b["address"], arr.nbytes)
        got = np.frombuffer(raw, dtype=arr.dtype)
        want = np.asarray(want, dtype=arr.dtype)
        ui = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize]
        bad = np.nonzero(got.view(ui) != want.view(ui))[0]
        if bad.size:
            shown = ", ".join(f"[{k}] got {got[k].item()!r} want {want[k].item()!r}" for k in bad[:4].tolist())
            problems.append(f"arg {b['arg']}: {bad.size}/{got.size} differ: {shown}")
    dt = time.perf_counter() - t0
    if problems:
        return Outcome(False, "mismatch", "; ".join(problems), r.wave_instructions, dt)
    return Outcome(True, "completed", "", r.wave_instructions, dt)


def corpus_mnemonics(paths: list[Path] | None = None) -> dict[str, set[str]]:
    """mnemonic -> the objects whose code sections contain it (decoded with the project's decoder)."""
    from amddbg.codeobj import CodeObject
    from amddbg.isa import decoder_for

    found: dict[str, set[str]] = {}
    for p in paths or objects():
        co = CodeObject.from_path(p)
        dec = decoder_for(co.processor.split(":")[0])
        for sec in co.code_sections():
            for insn in dec.decode_all(bytes(sec.data), sec.address):
                found.setdefault(insn.mnemonic, set()).add(p.name)
    return found


def missing_mnemonics(found: dict[str, set[str]]) -> dict[str, set[str]]:
    from amddbg.emu.semantics import SEMANTICS, load_all, lookup

    load_all()
    del SEMANTICS

    class _I:
        def __init__(self, mn: str) -> None:
            self.mnemonic = mn

    def known(mn: str) -> bool:
        if lookup(_I(mn)) is None:
            return False
        # VOPD (GFX11+): `v_dual` runs the pair, so each half needs semantics of its own (v_dual_mul_f32 -> v_mul_f32)
        return all(lookup(_I("v_" + half.strip()[len("v_dual_"):])) is not None for half in mn.split("::")
                   if "::" in mn)

    return {mn: objs for mn, objs in found.items() if not known(mn)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    ap.add_argument("--only", help="substring of object names")
    ap.add_argument("--kernel", help="one kernel")
    ap.add_argument("--status", help="write failing runs and missing mnemonics to this file")
    ap.add_argument("-v", action="store_true")
    args = ap.parse_args()
    objs = [p for p in objects() if not args.only or args.only in p.name]
    cases = [c for c in twins.all_cases() if not args.kernel or c.kernel == args.kernel]
    failures = []
    per_obj = {}
    t0 = time.perf_counter()
    for p in objs:
        passed = 0
        for c in cases:
            o = run_case(p, c)
            passed += o.ok
            if not o.ok:
                failures.append((p.name, c.kernel, o))
            if args.v:
                print(f"{p.name} {c.kernel}: {'ok' if o.ok else o.status} {o.wave_instructions} insns "
                      f"{o.seconds:.2f}s {o.detail[:200]}", flush=True)
        per_obj[p.name] = passed
        print(f"{p.name}: {passed}/{len(cases)}", flush=True)
    total = sum(per_obj.values())
    runs = len(objs) * len(cases)
    print(f"total {total}/{runs} in {time.perf_counter() - t0:.1f}s")
    if args.status:
        missing = missing_mnemonics(corpus_mnemonics(objs))
        reasons = Counter()
        lines = [f"oracle status ({time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}): {total}/{runs} runs pass",
                 "", "per object:"]
        lines += [f"  {n}: {k}/{len(cases)}" for n, k in per_obj.items()]
        lines += ["", "failing runs (object kernel: status detail):"]
        for name, kernel, o in failures:
            lines.append(f"  {name} {kernel}: {o.status}: {o.detail[:300]}")
            if o.status == "unsupported":
                reasons[o.detail.split(" at ")[0]] += 1
        lines += ["", "unsupported-instruction stops by text (count):"]
        lines += [f"  {n:4d}  {t}" for t, n in reasons.most_common()]
        lines += ["", f"mnemonics in the corpus with no semantics ({len(missing)}):"]
        lines += [f"  {mn}  ({len(objs_)} objects)" for mn, objs_ in sorted(missing.items())]
        Path(args.status).write_text("\n".join(lines) + "\n")
    return 0 if total == runs else 1


if __name__ == "__main__":
    raise SystemExit(main())
