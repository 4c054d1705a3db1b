"""The fast-path closures (amddbg/emu/semantics/fastpath.py) against the generic semantics they replace.

Every instruction of real clang code objects that gets a closure runs both ways on the same random wave states
(all lanes, some lanes, no lane active; random SGPRs, VGPRs, VCC, SCC), and the whole wave must come out the same.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from amddbg.emu.barriers import WaitCounters
from amddbg.emu.errors import EmulatorError
from amddbg.emu.machine import Machine
from amddbg.emu.semantics import Ctx, lookup
from amddbg.emu.semantics.fastpath import compile_fast
from amddbg.emu.wave import Wave

ORACLE = Path(__file__).resolve().parents[2] / "corefiles" / "oracle"
COUNTERS = ["vmcnt", "lgkmcnt", "vscnt", "loadcnt", "storecnt", "dscnt", "kmcnt"]
OBJECTS = ["llvm22-gfx90a-w64-O0", "llvm22-gfx90a-w64-O2", "llvm19-gfx942-w64-O0", "llvm22-gfx1100-w32-O0",
           "llvm22-gfx1100-w64-O2", "llvm19-gfx1200-w32-O2", "llvm22-gfx1200-w64-O0"]


def _wave(m: Machine, lanes: int, rng: random.Random, exec_kind: str) -> Wave:
    w = Wave(family=m.family, processor=m.processor, lanes=lanes, vgprs=256, workgroup=(0, 0, 0), wave_in_group=0,
             group_key=0, index=0)
    # values from a small pool (equal operands, zero, sign and carry edges are likely) or fully random
    pool = [0, 1, 2, 31, 32, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, rng.getrandbits(32), rng.getrandbits(5)]
    w.s = [rng.choice(pool) if rng.random() < 0.7 else rng.getrandbits(32) for _ in range(128)]
    gen = np.random.default_rng(rng.getrandbits(64))
    w.v = np.where(gen.random((256, lanes)) < 0.7, np.array(pool, dtype=np.uint32)[gen.integers(0, len(pool),
                   (256, lanes))], gen.integers(0, 1 << 32, size=(256, lanes), dtype=np.uint32)).astype(np.uint32)
    full = (1 << lanes) - 1
    w.exec = {"all": full, "some": rng.getrandbits(lanes) & full or 1, "none": 0}[exec_kind]
    w.vcc = rng.getrandbits(64) & full
    w.scc = rng.getrandbits(1)
    w.pc = 0x1000
    if rng.random() < 0.5:  # memory operations in flight (the s_waitcnt forms), some already complete
        w.counters = WaitCounters()
        for counter in rng.sample(COUNTERS, rng.randint(1, 3)):
            for _ in range(rng.randint(1, 4)):
                w.counters.issue(counter, m.clock - rng.randint(0, 200), rng.choice((24, 40, 96, 160)))
    return w


def _state(w: Wave, ctx: Ctx) -> tuple:
    return (list(w.s), w.v.tobytes(), w.exec, w.vcc, w.scc, ctx.next_pc, w.state, w.sleep_until,
            w.counters.state_bytes(0) if w.counters is not None else None)


def _run(fn, m: Machine, w: Wave, insn) -> tuple:
    ctx = Ctx(w, m)
    try:
        with np.errstate(all="ignore"):
            fn(ctx, insn)
    except EmulatorError as exc:
        return ("raised", type(exc).__name__)
    return _state(w, ctx)


@pytest.mark.parametrize("name", OBJECTS)
def test_fast_closures_match_the_generic_semantics(name):
    path = ORACLE / f"oracle-{name}.co"
    m = Machine(path)
    m.clock = 1000
    lanes = 32 if "-w32-" in name else 64
    rng = random.Random(name)
    compiled = 0
    kinds: set[str] = set()
    forms: dict[tuple, int] = {}
    for insn in m.instructions.values():
        generic = lookup(insn)
        fast = compile_fast(insn, generic, lanes)
        if fast is None:
            continue
        compiled += 1
        kinds.add(insn.mnemonic)
        form = (insn.mnemonic, tuple((o.kind, o.is_dest, o.text if o.kind.name in ("SPECIAL", "INLINE") else "")
                                     for o in insn.operands))
        forms[form] = forms.get(form, 0) + 1
        if forms[form] > 3:  # every operand form of every mnemonic, a few instances each
            continue
        for exec_kind in ("all", "some", "none", "all", "some"):
            seed = rng.getrandbits(32)
            w1 = _wave(m, lanes, random.Random(seed), exec_kind)
            w2 = _wave(m, lanes, random.Random(seed), exec_kind)
            want = _run(generic, m, w1, insn)
            got = _run(fast, m, w2, insn)
            assert got == want, f"{name} {insn.address:#x} {insn.text} (exec {exec_kind}): fast path differs"
    assert compiled > 300, f"only {compiled} instructions got a closure"
    assert len(kinds) >= 10, sorted(kinds)
