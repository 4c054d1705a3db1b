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

COREFILES = Path(__file__).resolve().parents[2] / "corefiles"
COUNTERS = ["vmcnt", "lgkmcnt", "vscnt", "loadcnt", "storecnt", "dscnt", "kmcnt"]
OBJECTS = ["oracle-llvm22-gfx90a-w64-O0", "oracle-llvm22-gfx90a-w64-O2", "oracle-llvm19-gfx942-w64-O0",
           "oracle-llvm22-gfx1100-w32-O0", "oracle-llvm22-gfx1100-w64-O2", "oracle-llvm19-gfx1200-w32-O2",
           "oracle-llvm22-gfx1200-w64-O0", "heldout-llvm19-gfx1100-w32-O2", "heldout-llvm22-gfx942-w64-O2",
           "heldout-llvm19-gfx90a-w64-O0", "heldout-llvm22-gfx1200-w64-O2"]


def _wave(m: Machine, lanes: int, rng: random.Random, exec_kind: str) -> Wave:
    w = Wave(family=m.family, processor=m.processor, lanes=lanes, vgprs=256, workgroup=(0, 0, 0), wave_in_group=0,
             group_key=0, index=0)
    # values from a small pool (equal operands, zero, sign and carry edges are likely) or fully random
    pool = [0, 1, 2, 31, 32, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, rng.getrandbits(32), rng.getrandbits(5),
            0x3F800000, 0xBF800000, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0x00000001, 0x3FF00000, 0x7FF00000]
    # (float bit patterns too: 1.0, -1.0, infinities, the largest f32, a denormal, the high dwords of 1.0 and inf)
    w.s = [rng.choice(pool) if rng.random() < 0.7 else rng.getrandbits(32) for _ in range(128)]
    gen = np.random.default_rng(rng.getrandbits(64))
    w.v = np.where(gen.random((256, lanes)) < 0.7, np.array(pool, dtype=np.uint32)[gen.integers(0, len(pool),
                   (256, lanes))], gen.integers(0, 1 << 32, size=(256, lanes), dtype=np.uint32)).astype(np.uint32)
    if exec_kind.endswith("finite"):  # ordinary floats only (a NaN in any lane sends float closures to the generic)
        for r in range(len(w.s)):
            w.s[r] = int(np.float32(rng.uniform(-64, 64)).view(np.uint32))
        w.v = (gen.standard_normal((256, lanes)) * 8).astype(np.float32).view(np.uint32)
        w.v[::7] = 0x3FF00000  # some VGPR pairs hold f64 1.0, 1.5... in their high dwords
        zeros = gen.random((256, lanes)) < 0.3  # signed zeros in many lanes of every register (min/max order them)
        w.v[zeros] = np.where(gen.random(int(zeros.sum())) < 0.5, 0x80000000, 0).astype(np.uint32)
        w.v[::5] = (gen.standard_normal((52, lanes)) * 8).astype(np.float32).view(np.uint32) & np.uint32(0x3FFFFFFF)
    full = (1 << lanes) - 1
    if rng.random() < 0.7:  # AccVGPRs (gfx90a/gfx942 code moves through them), sometimes not yet allocated
        w.a = np.random.default_rng(rng.getrandbits(64)).integers(0, 1 << 32, size=(256, lanes), dtype=np.uint32)
    w.exec = {"all": full, "some": rng.getrandbits(lanes) & full or 1, "none": 0}[exec_kind.split("-")[0]]
    w.vcc = rng.getrandbits(64) & full
    w.scc = rng.getrandbits(1)
    w.pc = 0x1000
    # MODE: the kernels' default (nearest even, denormals kept, IEEE and DX10 clamp on) mostly; a flush mode,
    # a directed rounding or all zero sometimes (the fast float closures must then defer to the generic path)
    w.mode = 0x3F0 if exec_kind.endswith("finite") else rng.choice([0x3F0, 0x3F0, 0x3F0, 0x0, 0x3F1, 0x3C0, 0x330])
    if rng.random() < 0.5:  # memory operations in flight (the s_waitcnt forms), some already complete
        w.counters = WaitCounters()
        for counter in rng.sample(COUNTERS, rng.randint(1, 3)):
            for _ in range(rng.randint(1, 4)):
                w.counters.issue(counter, m.clock - rng.randint(0, 200), rng.choice((24, 40, 96, 160)))
    return w


def _state(w: Wave, ctx: Ctx) -> tuple:
    return (list(w.s), w.v.tobytes(), w.v.shape, w.a.tobytes(), w.a.shape, w.exec, w.vcc, w.scc, ctx.next_pc,
            w.state, w.sleep_until, w.counters.state_bytes(0) if w.counters is not None else None)


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
    path = COREFILES / name.split("-")[0] / f"{name}.co"
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
        if forms[form] > 2:  # every operand form of every mnemonic, a few instances each
            continue
        for exec_kind in ("all", "some", "none", "all-finite", "some-finite"):
            seed = rng.getrandbits(32)
            w1 = _wave(m, lanes, random.Random(seed), exec_kind)
            w2 = _wave(m, lanes, random.Random(seed), exec_kind)
            want = _run(generic, m, w1, insn)
            got = _run(fast, m, w2, insn)
            assert got == want, f"{name} {insn.address:#x} {insn.text} (exec {exec_kind}): fast path differs"
    assert compiled > 300, f"only {compiled} instructions got a closure"
    assert len(kinds) >= 10, sorted(kinds)


def test_pk_mov_closure_with_constants_and_every_op_sel():
    """v_pk_mov_b32 as compiled code writes it reads SGPR or VGPR pairs; the closure also takes inline constants
    (a 64-bit constant's high dword is not its low one) and every op_sel, which no corpus instruction shows."""
    import dataclasses

    from amddbg.isa.model import Operand, OperandKind

    m = Machine(COREFILES / "oracle" / "oracle-llvm22-gfx90a-w64-O0.co")
    m.clock = 1000
    insn = next(i for i in m.instructions.values() if i.mnemonic == "v_pk_mov_b32")
    dest, src0, src1 = insn.operands
    constants = [Operand(OperandKind.INLINE, text, value=value) for text, value in
                 (("1", 1), ("-1", -1), ("-16", -16), ("64", 64), ("0.5", 0.5), ("-4.0", -4.0))]
    rng = random.Random(7)
    checked = 0
    for a in [src0, *constants]:
        for b in [src1, *constants[:3]]:
            for sel in ("[0,0]", "[0,1]", "[1,0]", "[1,1]"):
                text = f"v_pk_mov_b32 {dest.text}, {a.text}, {b.text} op_sel:{sel}"
                variant = dataclasses.replace(insn, operands=(dest, a, b), text=text)
                generic = lookup(variant)
                fast = compile_fast(variant, generic, 64)
                assert fast is not None, text
                for exec_kind in ("all", "some"):
                    seed = rng.getrandbits(32)
                    want = _run(generic, m, _wave(m, 64, random.Random(seed), exec_kind), variant)
                    got = _run(fast, m, _wave(m, 64, random.Random(seed), exec_kind), variant)
                    assert got == want, f"{text} (exec {exec_kind}): fast path differs"
                checked += 1
    assert checked == 7 * 4 * 4
