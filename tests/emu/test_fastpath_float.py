"""The float and true16 fast-path closures added for issue 22's speed work, on the wave states that take them.

tests/emu/test_fastpath.py runs every closure on random states, where a zero, NaN or denormal in some lane sends
the division closures (and a NaN the others) back to the generic function: the fast branch itself is then rarely
what is compared. Here the states hold ordinary floats (both signs, exponents near 1.0, some far apart, every
MODE the closures accept and some they refuse), and the test counts how often the closure did *not* fall back,
so each new closure's own arithmetic is compared with vfloat's, bit for bit, on the whole wave: v_pk_fma/mul/
add_f32 (every op_sel/op_sel_hi dword choice in the corpus), v_div_scale/fmas/fixup_f32, v_fma_f32 with neg/abs,
v_fmaak/v_fmamk_f32, VOPD pairs, the true16 b16 moves and logic ops, and GFX9 SDWA integer operations.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from amddbg.emu.errors import EmulatorError
from amddbg.emu.machine import Machine
from amddbg.emu.semantics import Ctx, lookup
from amddbg.emu.semantics.fastpath import compile_fast
from amddbg.emu.wave import Wave

COREFILES = Path(__file__).resolve().parents[2] / "corefiles"
OBJECTS = ["speed/speed-llvm22-gfx942-w64-O2", "speed/speed-llvm22-gfx1100-w32-O2", "speed/speed-llvm22-gfx1200-w32-O2",
           "oracle/oracle-llvm22-gfx90a-w64-O2", "oracle/oracle-llvm22-gfx1100-w64-O2",
           "oracle/oracle-llvm19-gfx1200-w32-O2", "heldout/heldout-llvm22-gfx942-w64-O2",
           "heldout/heldout-llvm19-gfx1100-w32-O2"]
WANTED = ("v_pk_fma_f32", "v_pk_mul_f32", "v_pk_add_f32", "v_div_scale_f32", "v_div_fmas_f32", "v_div_fixup_f32",
          "v_fma_f32", "v_fmaak_f32", "v_fmamk_f32", "v_fmac_f32", "v_dual_", "v_mov_b16", "v_and_b16", "v_or_b16",
          "v_xor_b16")


def _ordinary(gen: np.random.Generator, shape, spread: bool) -> np.ndarray:
    """f32 bit patterns of ordinary numbers: both signs, |x| in [2**-8, 2**8) (or [2**-60, 2**60) with `spread`)."""
    e = gen.integers(-60, 60, shape) if spread else gen.integers(-8, 8, shape)
    x = np.ldexp(gen.uniform(1.0, 2.0, shape), e) * np.where(gen.random(shape) < 0.5, -1.0, 1.0)
    return x.astype(np.float32).view(np.uint32)


def _wave(m: Machine, lanes: int, rng: random.Random, case: str) -> Wave:
    w = Wave(family=m.family, processor=m.processor, lanes=lanes, vgprs=256, workgroup=(0, 0, 0), wave_in_group=0,
             group_key=0, index=0)
    gen = np.random.default_rng(rng.getrandbits(64))
    w.v = _ordinary(gen, (256, lanes), "spread" in case)
    w.s = [int(x) for x in _ordinary(gen, (128,), "spread" in case)]
    if "special" in case:  # a few lanes of zeros, infinities, NaNs and denormals: the closures must fall back
        for bits in (0, 0x80000000, 0x7F800000, 0x7FC00000, 0x00000010, 0xFF800001):
            w.v[gen.integers(0, 256, 8), gen.integers(0, lanes, 8)] = bits
    full = (1 << lanes) - 1
    w.exec = full if "all" in case else (rng.getrandbits(lanes) & full) or 1
    w.vcc = 0 if rng.random() < 0.7 else rng.getrandbits(lanes)  # (v_div_fmas scales in VCC lanes: generic)
    w.scc = rng.getrandbits(1)
    w.pc = 0x1000
    w.mode = 0x3F0 if "mode" not in case else rng.choice([0x0, 0x3F1, 0x3C0, 0x330])
    return w


def _run(fn, m: Machine, w: Wave, insn) -> tuple:
    """The whole wave after `fn` (as tests/emu/test_fastpath.py compares it), or the error it raised."""
    ctx = Ctx(w, m)
    try:
        with np.errstate(all="ignore"):
            fn(ctx, insn)
    except EmulatorError as exc:
        return ("raised", type(exc).__name__)
    return (list(w.s), w.v.tobytes(), w.v.shape, w.a.tobytes(), w.a.shape, w.exec, w.vcc, w.scc, ctx.next_pc,
            w.state, w.sleep_until)


@pytest.mark.parametrize("name", OBJECTS)
def test_float_and_b16_closures_take_their_fast_branch_and_match(name):
    m = Machine(COREFILES / f"{name}.co")
    m.clock = 1000
    lanes = 32 if "-w32-" in name else 64
    rng = random.Random(name)
    seen: dict[str, int] = {}
    fast_taken: dict[str, int] = {}
    forms: dict[str, int] = {}
    for insn in m.instructions.values():
        mn = insn.mnemonic
        if not mn.startswith(WANTED) and not mn.endswith("_sdwa"):
            continue
        calls = [0]
        generic = lookup(insn)

        def counting(ctx, i, generic=generic, calls=calls):
            calls[0] += 1
            return generic(ctx, i)

        fast = compile_fast(insn, counting, lanes)
        if fast is None:
            continue
        key = insn.text.split(" ", 1)[0]
        forms[insn.text] = forms.get(insn.text, 0) + 1
        if forms[insn.text] > 1:
            continue
        for case in ("all", "some", "all-spread", "some-spread", "all-special", "some-mode"):
            seed = rng.getrandbits(32)
            want = _run(generic, m, _wave(m, lanes, random.Random(seed), case), insn)
            before = calls[0]
            got = _run(fast, m, _wave(m, lanes, random.Random(seed), case), insn)
            assert got == want, f"{name} {insn.address:#x} {insn.text} ({case}): fast path differs"
            seen[key] = seen.get(key, 0) + 1
            if calls[0] == before:
                fast_taken[key] = fast_taken.get(key, 0) + 1
    # every kind of closure this object has ran its own arithmetic (not only the generic fallback) somewhere
    assert seen, f"{name}: no instruction of the kinds under test got a closure"
    never = sorted(k for k in seen if not fast_taken.get(k) and not k.startswith("v_dual_"))
    assert not never, f"{name}: the fast branch never ran for {never}"
