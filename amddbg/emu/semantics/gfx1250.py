"""GFX12.5 (gfx1250) additions to the VALU and SALU that clang-22 emits for ordinary HIP code.

Why a module of its own: these opcodes exist only on GFX12.5 (64-bit integer VALU, `v_mad_u32`, the `_i64` names of
the PC instructions, `v_nop`), so keeping them here leaves the shared VALU module unchanged for the other targets.
Each follows the GFX12.5 ISA's pseudocode (LLVM's VOP3Instructions/VOP2Instructions .td patterns agree): 64-bit
results wrap (the `_nc` forms have no carry-out), `v_mad_nc_u64_u32` is the exact 32x32 product plus a 64-bit
addend, `v_mad_u32` keeps the low 32 bits of S0 * S1 + S2. Forms with a modifier these do not model (clamp, neg,
op_sel) stop as unsupported instead of guessing.
"""

from __future__ import annotations

import re

import numpy as np

from amddbg.emu.errors import Unsupported
from amddbg.emu.operands import read_vector
from amddbg.emu.semantics import fp_errstate, semantic
from amddbg.emu.semantics.salu import s_getpc, s_setpc, s_swappc
from amddbg.emu.semantics.valu import _split, dst

U32, U64 = np.uint32, np.uint64
_MODIFIED = re.compile(r"\b(clamp|op_sel|neg_lo|neg_hi)\b|\b(neg|abs)\(|\|")  # -N is an inline constant


def _plain(insn) -> list:
    """The sources of a modifier-free form. Clamp or a source modifier stops the wave naming which: the GFX12.5
    ISA is not public and LLVM 22 never selects these forms (its `llvm.uadd.sat.i64` is v_min_u64 + v_add_nc_u64,
    its saturating add-then-min is v_add_min_* without clamp: llc-22 -mcpu=gfx1250), so what the bits do to these
    integer operations is not known here; llvm-mc-22 accepts clamp on v_add_nc_u64, v_sub_nc_u64,
    v_mad_nc_{u64_u32,i64_i32}, v_add_{min,max}_* and v_pk_add_{min,max}_* and rejects neg on the 64-bit ones."""
    _, _, ss = _split(insn)
    m = _MODIFIED.search(insn.text.split(" ", 1)[-1])
    if m or any(o.modifiers for o in ss):
        what = "clamp" if m and m.group(1) == "clamp" else "a source modifier"
        raise Unsupported(f"{insn.text} ({what} on a gfx1250 integer operation: its effect is not in a public "
                          "source and LLVM never emits it)", insn.address)
    return ss


def _bin64(fn, signed_literal: bool = False):
    def run(ctx, insn):
        a, b = (read_vector(ctx.wave, o, 64, "s" if signed_literal else "i") for o in _plain(insn)[:2])
        with fp_errstate(over="ignore"):
            dst(ctx, insn, fn(a, b), 64)

    return run


def _i64(v):
    return v.view(np.int64)


semantic("v_add_nc_u64")(_bin64(lambda a, b: a + b))
semantic("v_sub_nc_u64")(_bin64(lambda a, b: a - b))
semantic("v_mul_u64")(_bin64(lambda a, b: a * b))
semantic("v_min_u64")(_bin64(np.minimum))
semantic("v_max_u64")(_bin64(np.maximum))
semantic("v_min_i64")(_bin64(lambda a, b: np.where(_i64(a) < _i64(b), a, b), True))
semantic("v_max_i64")(_bin64(lambda a, b: np.where(_i64(a) > _i64(b), a, b), True))


@semantic("v_mad_nc_u64_u32", "v_mad_nc_i64_i32")
def v_mad_nc64(ctx, insn):
    """D.u64 = S0.u32 * S1.u32 + S2.u64 (i64_i32: signed 32-bit factors), wrapping, no carry-out."""
    w = ctx.wave
    ss = _plain(insn)
    signed = "i64" in insn.mnemonic
    a, b = read_vector(w, ss[0]), read_vector(w, ss[1])
    c = read_vector(w, ss[2], 64, "s" if signed else "i")
    if signed:
        p = (a.view(np.int32).astype(np.int64) * b.view(np.int32).astype(np.int64)).view(U64)
    else:
        p = a.astype(U64) * b.astype(U64)
    with fp_errstate(over="ignore"):
        dst(ctx, insn, p + c, 64)


@semantic("v_mad_u32")
def v_mad_u32(ctx, insn):
    """D.u32 = S0.u32 * S1.u32 + S2.u32, the low 32 bits."""
    w = ctx.wave
    a, b, c = (read_vector(w, o).astype(U64) for o in _plain(insn)[:3])
    dst(ctx, insn, ((a * b + c) & U64(0xFFFFFFFF)).astype(U32))


@semantic("v_nop")
def v_nop(ctx, insn):
    return None


semantic("s_get_pc_i64")(s_getpc)
semantic("s_set_pc_i64")(s_setpc)
semantic("s_swap_pc_i64")(s_swappc)


# -- bitop3 (GFX950, GFX12.5) and VOPD3's two-source bitop2


def _bitop3_table(insn) -> int:
    m = re.search(r"bitop3:(0x[0-9a-fA-F]+|\d+)", insn.text)
    return int(m.group(1), 0) & 0xFF if m else 0


def _bitop3(table: int, a, b, c):
    """Bit i of D = bit (S0[i] << 2 | S1[i] << 1 | S2[i]) of the 8-bit truth table (the ISA's BITOP3)."""
    r = np.zeros_like(a)
    for idx in range(8):
        if table >> idx & 1:
            r |= (a if idx & 4 else ~a) & (b if idx & 2 else ~b) & (c if idx & 1 else ~c)
    return r


@semantic("v_bitop3_b32")
def v_bitop3_b32(ctx, insn):
    w = ctx.wave
    a, b, c = (read_vector(w, o) for o in _plain(insn)[:3])
    dst(ctx, insn, _bitop3(_bitop3_table(insn), a, b, c))


@semantic("v_bitop2_b32")
def v_bitop2_b32(ctx, insn):
    """VOPD3's `v_dual_bitop2_b32 vD, S0, S1 bitop3:T`: the truth table with S2 = 0 (clang-22 writes `x & k` as
    bitop3:0x40, `x | k` as 0x54 and `x ^ k` as 0x14: the S0/S1 patterns 0xF0/0xCC restricted to S2 = 0)."""
    w = ctx.wave
    a, b = (read_vector(w, o) for o in _plain(insn)[:2])
    dst(ctx, insn, _bitop3(_bitop3_table(insn), a, b, np.zeros_like(a)))


# -- add then min/max (v_add_{min,max}_{i32,u32}, v_pk_add_{min,max}_{i16,u16})
# The add saturates: LLVM 22 selects these only for `llvm.{s,u}add.sat` feeding smin/smax/umin/umax (a wrapping
# `add` + `smax` stays v_add_nc_u32 + v_max_i32: checked with llc-22 -mcpu=gfx1250), so D = min/max(sat(S0 + S1),
# S2) per 32-bit value or per 16-bit half. The clamp bit's meaning is not settled here: a clamped form stops.

_I32 = (-(1 << 31), (1 << 31) - 1)


def _add_minmax32(signed: bool, is_max: bool):
    def run(ctx, insn):
        w = ctx.wave
        a, b, c = (read_vector(w, o).astype(np.int64) for o in _plain(insn)[:3])
        if signed:
            a, b, c = (np.where(x >> 31, x - (1 << 32), x) for x in (a, b, c))
            s = np.clip(a + b, *_I32)
        else:
            s = np.minimum(a + b, 0xFFFFFFFF)
        r = np.maximum(s, c) if is_max else np.minimum(s, c)
        dst(ctx, insn, (r & 0xFFFFFFFF).astype(U32))

    return run


semantic("v_add_min_i32")(_add_minmax32(True, False))
semantic("v_add_max_i32")(_add_minmax32(True, True))
semantic("v_add_min_u32")(_add_minmax32(False, False))
semantic("v_add_max_u32")(_add_minmax32(False, True))


def _pk_add_minmax(signed: bool, is_max: bool):
    from amddbg.emu.semantics.vfloat import _pk_int

    lo, hi = (-(1 << 15), (1 << 15) - 1) if signed else (0, 0xFFFF)
    pick = np.maximum if is_max else np.minimum
    return _pk_int(lambda a, b, c: pick(np.clip(a + b, lo, hi), c), 3, signed, sat=False)  # clamp: stops


semantic("v_pk_add_min_i16")(_pk_add_minmax(True, False))
semantic("v_pk_add_max_i16")(_pk_add_minmax(True, True))
semantic("v_pk_add_min_u16")(_pk_add_minmax(False, False))
semantic("v_pk_add_max_u16")(_pk_add_minmax(False, True))


# -- conversions and counters


@semantic("v_cvt_pk_bf16_f32")
def v_cvt_pk_bf16_f32(ctx, insn):
    """D[15:0] = bf16(S0.f32), D[31:16] = bf16(S1.f32), rounded to nearest even (what clang-22 emits for a
    `(__bf16)f` store on GFX12.5); a NaN stays a NaN, quieted. Another MODE rounding stops, as do modifiers."""
    from amddbg.emu.semantics.vfloat import _rnd

    if _rnd(ctx, 32):
        raise Unsupported(f"{insn.text} (bf16 conversion under a directed rounding mode)", insn.address)
    w = ctx.wave
    out = []
    for o in _plain(insn)[:2]:
        u = read_vector(w, o, 32, "f").astype(U64)
        nan = (u & U64(0x7FFFFFFF)) > U64(0x7F800000)
        r = (u + U64(0x7FFF) + ((u >> U64(16)) & U64(1))) >> U64(16)
        out.append(np.where(nan, (u >> U64(16)) | U64(0x40), r) & U64(0xFFFF))
    dst(ctx, insn, (out[0] | (out[1] << U64(16))).astype(U32))


@semantic("s_get_shader_cycles_u64")
def s_get_shader_cycles_u64(ctx, insn):
    """The 64-bit shader cycle counter (clang-22's `__builtin_readcyclecounter` on GFX12.5): the machine's clock,
    as s_memtime and the realtime message read it."""
    from amddbg.emu.semantics.salu import _dst

    _dst(ctx, insn, ctx.machine.clock, 64)
