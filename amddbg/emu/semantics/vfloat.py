"""Floating-point VALU semantics (f16, f32, f64, packed math) and the DPP/SDWA lane modifiers.

Why a separate module: float results depend on wave state the integer ops never look at (the MODE register's
FP_DENORM and FP_ROUND fields and its IEEE and DX10_CLAMP bits) and on encoding details (op_sel, true16 halves,
neg/abs, clamp, omod) that every float op shares; keeping them in one place lets each instruction be a few lines.
It is imported after `valu`, so a mnemonic registered here replaces `valu`'s simpler version.

Policy (docs/emulator.md, "Floating point"):
- Rounding follows MODE.FP_ROUND: nearest even through numpy; a directed mode sends the instruction to the exact
  per-lane slow path of rounding.py (`exact` functions of Fractions, one rounding).
- Denormals follow MODE.FP_DENORM (bits 5:4 for f32, 7:6 for f64 and f16): bit 0 of a field keeps input
  denormals (else they read as a zero of the same sign), bit 1 keeps output denormals (else they flush to zero).
- The hardware's 1-ULP approximations (v_rcp, v_rsq, v_sqrt, v_exp, v_log) are computed correctly rounded
  (rsq/exp/log in binary64 and rounded once), so the compiler's division sequences give the correctly rounded
  quotient. fma is exact (one rounding).
- An invalid operation without a NaN input returns the positive quiet NaN (0x7fc00000 / 0x7e00 /
  0x7ff8000000000000); a NaN input propagates with its payload and the quiet bit set.
- DPP and SDWA are applied around the base operation (source lanes or sub-dword fields substituted, the write
  masked); a DPP control or a combination whose hardware result is not known here stops the wave.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

import numpy as np

from amddbg.emu.errors import Unsupported
from amddbg.emu.operands import M32, read_vector, write_vector
from amddbg.emu.semantics import SEMANTICS, fp_errstate, per_insn_cache, semantic
from amddbg.emu.semantics.rounding import directed, sqrt_fraction
from amddbg.emu.semantics.rounding import product as _prod
from amddbg.emu.semantics.rounding import signed as _sgn
from amddbg.emu.semantics.valu import (
    _explicit_vcc_dest,
    _split,
    read_lane_mask,
    source_indices,
    source_texts,
    write_lane_mask,
)
from amddbg.isa.model import OperandKind

U16 = np.uint16
U32 = np.uint32
U64 = np.uint64

# per width: float dtype, uint dtype, sign bit, quiet bit, exponent mask, canonical quiet NaN
_T = {
    16: (np.float16, U16, 0x8000, 0x0200, 0x7C00, 0x7E00),
    32: (np.float32, U32, 0x80000000, 0x00400000, 0x7F800000, 0x7FC00000),
    64: (np.float64, U64, 1 << 63, 1 << 51, 0x7FF0000000000000, 0x7FF8000000000000),
}


# ---------------------------------------------------------------------------------------------- text parsing


def _bits_field(insn, name: str) -> list[int] | None:
    m = re.search(name + r":\[([\d,]+)\]", insn.text)
    return [int(x) for x in m.group(1).split(",")] if m else None


def _text_mods(t: str) -> set[str]:
    """neg/abs/sext written around a register operand (a leading '-' on a constant is its value)."""
    mods: set[str] = set()
    if re.match(r"^-?[\d.]", t) or t.startswith("0x") or t.startswith("-0x"):
        return mods
    if t.startswith("-"):
        mods.add("neg")
        t = t[1:]
    if t.startswith("neg("):
        mods.add("neg")
    if t.startswith("|") or t.startswith("abs("):
        mods.add("abs")
    if t.startswith("sext("):
        mods.add("sext")
    return mods


@dataclasses.dataclass
class _Form:
    """What the float helpers need from one instruction, parsed once per call."""

    dst: object
    sdst: object
    srcs: list
    mods: list[set]
    op_sel: list[int]
    op_sel_hi: list[int] | None
    neg_lo: list[int]
    neg_hi: list[int]
    clamp: bool
    omod: float


_FORMS: dict[int, tuple[object, _Form]] = {}


def _form(insn) -> _Form:
    """The parsed form of `insn`, once per decoded instruction (the text parsing costs more than the arithmetic)."""
    return per_insn_cache(_FORMS, insn, _parse_form)


def _parse_form(insn) -> _Form:
    vd, sd, ss = _split(insn)
    # the modifiers of GFX9 VOP3 and of DPP/SDWA operands are only in the text
    src_texts = source_texts(insn)
    mods = []
    for o, t in zip(ss, src_texts, strict=True):
        m = set(o.modifiers) | _text_mods(t)
        if o.text.endswith(".h") or "hi" in o.modifiers:
            m.add("hi")
        mods.append(m)
    omod = 1.0
    if " mul:2" in insn.text:
        omod = 2.0
    elif " mul:4" in insn.text:
        omod = 4.0
    elif " div:2" in insn.text:
        omod = 0.5
    return _Form(vd[0] if vd else None, sd[0] if sd else None, ss, mods, _bits_field(insn, "op_sel") or [],
                 _bits_field(insn, "op_sel_hi"), _bits_field(insn, "neg_lo") or [], _bits_field(insn, "neg_hi") or [],
                 insn.text.endswith(" clamp") or " clamp " in insn.text, omod)


def _bit(lst: list[int], i: int) -> int:
    return lst[i] if i < len(lst) else 0


def _dst_hi(f: _Form) -> bool:
    """op_sel's last entry is the destination's (op_sel:[s0,s1,dst] for two sources, [s0,s1,s2,dst] for three)."""
    return len(f.op_sel) == len(f.srcs) + 1 and bool(f.op_sel[-1])


# ---------------------------------------------------------------------------------------------- MODE


def _rnd(ctx, bits: int) -> int:
    """MODE.FP_ROUND for a result of this width (0 nearest even, 1 +inf, 2 -inf, 3 toward zero): one test per
    instruction; a non-zero value sends the instruction to its exact slow path (rounding.py)."""
    mode = ctx.wave.mode
    return (mode & 3) if bits == 32 else (mode >> 2) & 3


def _denorm(ctx, bits: int) -> tuple[bool, bool]:
    """(keep input denormals, keep output denormals) for this width from MODE.FP_DENORM."""
    f = (ctx.wave.mode >> (4 if bits == 32 else 6)) & 3
    return bool(f & 1), bool(f & 2)


def _ieee(ctx) -> bool:
    return ctx.wave.family != "gfx12" and bool(ctx.wave.mode >> 9 & 1)


def _flush(u: np.ndarray, bits: int) -> np.ndarray:
    """Denormal bit patterns become a zero of the same sign."""
    _, ut, sign, _, emask, _ = _T[bits]
    u = u.astype(ut)
    den = ((u & ut(emask)) == 0) & ((u & ut(~sign & ((1 << bits) - 1))) != 0)
    return np.where(den, u & ut(sign), u).astype(ut)


def _as_float(u: np.ndarray, bits: int) -> np.ndarray:
    ft, ut = _T[bits][0], _T[bits][1]
    return u.astype(ut).view(ft)


def _as_bits(f: np.ndarray, bits: int) -> np.ndarray:
    ft, ut = _T[bits][0], _T[bits][1]
    return np.asarray(f).astype(ft).view(ut)


def _is_snan(u: np.ndarray, bits: int) -> np.ndarray:
    _, ut, sign, quiet, emask, _ = _T[bits]
    u = u.astype(ut)
    mant = u & ut(((1 << bits) - 1) ^ sign ^ emask)
    return ((u & ut(emask)) == ut(emask)) & (mant != 0) & ((u & ut(quiet)) == 0)


def _is_nan(u: np.ndarray, bits: int) -> np.ndarray:
    _, ut, sign, _, emask, _ = _T[bits]
    u = u.astype(ut)
    return ((u & ut(emask)) == ut(emask)) & ((u & ut(((1 << bits) - 1) ^ sign ^ emask)) != 0)


def _quiet(u: np.ndarray, bits: int) -> np.ndarray:
    _, ut, _, quiet, _, _ = _T[bits]
    return np.where(_is_nan(u, bits), u.astype(ut) | ut(quiet), u.astype(ut)).astype(ut)


# ---------------------------------------------------------------------------------------------- operands


def _raw(ctx, op, bits: int) -> np.ndarray:
    """Raw source bits: 32-bit registers read whole (halves picked later), constants in the operand's width."""
    w = ctx.wave
    if op.kind in (OperandKind.VGPR, OperandKind.AGPR, OperandKind.SGPR, OperandKind.TTMP, OperandKind.SPECIAL):
        return read_vector(w, op, 64 if bits == 64 else 32)
    return read_vector(w, op, bits, "f")


def _half(v: np.ndarray, hi: bool) -> np.ndarray:
    return ((v >> U32(16)) if hi else v).astype(U32) & U32(0xFFFF)


def _apply_negabs(u: np.ndarray, mods: set, bits: int, neg_extra: int = 0) -> np.ndarray:
    _, ut, sign, _, _, _ = _T[bits]
    u = u.astype(ut)
    if "abs" in mods:
        u = u & ut(((1 << bits) - 1) ^ sign)
    if ("neg" in mods) != bool(neg_extra):
        u = u ^ ut(sign)
    return u


def fsrc(ctx, f: _Form, i: int, bits: int, flush: bool | None = None) -> np.ndarray:
    """Source i as float bits of `bits` width (uint16/32/64), with half select, neg/abs and input flush."""
    op = f.srcs[i]
    v = _raw(ctx, op, bits)
    if bits == 16:
        hi = "hi" in f.mods[i] or bool(_bit(f.op_sel, i))
        v = _half(v, hi)
    u = _apply_negabs(v, f.mods[i], bits)
    if flush is None:
        flush = not _denorm(ctx, bits)[0]
    return _flush(u, bits) if flush else u


def _finish(ctx, f: _Form, u: np.ndarray, bits: int, inputs_nan: np.ndarray | None = None,
            flush: bool | None = None, rnd: int = 0) -> np.ndarray:
    """omod, clamp, canonical NaN for invalid operations and output-denormal flush, on result bits."""
    ft, ut, _, _, _, qnan = _T[bits]
    u = np.asarray(u).astype(ut)
    nan = _is_nan(u, bits)
    if inputs_nan is not None:
        u = np.where(nan & ~inputs_nan, ut(qnan), u).astype(ut)
    if f.omod != 1.0:
        with fp_errstate(all="ignore"):
            scaled = _as_bits(_as_float(u, bits) * ft(f.omod), bits)
        if rnd:  # the output modifier's scaling rounds (overflow, denormals) in the same direction
            k = Fraction(f.omod)
            scaled = directed([u], bits, scaled, bits, rnd, lambda a: a * k)
        u = scaled
    if f.clamp:
        x = _as_float(u, bits)
        dx10 = ctx.wave.family == "gfx12" or bool(ctx.wave.mode >> 8 & 1)
        with fp_errstate(invalid="ignore"):
            c = np.clip(x, ft(0.0), ft(1.0))
        c = np.where(np.isnan(x), ft(0.0) if dx10 else x, c)
        c = np.where(c == 0, ft(0.0), c)  # clamp of -0 gives +0
        u = _as_bits(c.astype(ft), bits)
        if not dx10:
            u = _quiet(u, bits)
    if flush is None:
        flush = not _denorm(ctx, bits)[1]
    return _flush(u, bits) if flush else u


def _write16_mode(ctx, insn, f: _Form) -> tuple[bool, bool]:
    """(write the high half, keep the other half) for a 16-bit result."""
    hi = f.dst is not None and (f.dst.text.endswith(".h") or "hi" in f.dst.modifiers or _dst_hi(f))
    if ctx.wave.family in ("gfx11", "gfx12"):
        return hi, True
    # GFX9/GFX10: 16-bit results zero the high half, except the op_sel-capable VOP3 forms, which keep it
    base = insn.mnemonic.split("_e64")[0].split("_e32")[0]
    keep = base in ("v_mad_f16", "v_fma_f16", "v_div_fixup_f16", "v_mad_u16", "v_mad_i16") or hi
    return hi, keep


def fdst(ctx, insn, f: _Form, u: np.ndarray, bits: int) -> None:
    w = ctx.wave
    if f.dst is None:
        raise Unsupported(insn.text, insn.address)
    if bits == 16:
        hi, keep = _write16_mode(ctx, insn, f)
        v = np.asarray(u).astype(U32) & U32(0xFFFF)
        old = read_vector(w, f.dst, 32)
        if hi:
            out = (old & U32(0xFFFF)) | (v << U32(16)) if keep else v << U32(16)
        else:
            out = (old & U32(0xFFFF0000)) | v if keep else v
        write_vector(w, f.dst, out.astype(U32), 32)
        return
    write_vector(w, f.dst, np.asarray(u).astype(U64 if bits == 64 else U32), bits)


# ---------------------------------------------------------------------------------------------- exact helpers


def _fma_exact(a: np.ndarray, b: np.ndarray, c: np.ndarray, bits: int) -> np.ndarray:
    """Fused multiply-add with one rounding, on float arrays of width `bits`."""
    ft = _T[bits][0]
    with fp_errstate(all="ignore"):
        if bits == 16:  # the f16 product is exact in f64 and so is the sum for every finite f16 result
            return (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float16)
        if bits == 32:
            p = np.multiply(a, b, dtype=np.float64)  # exact
            s = np.add(p, c, dtype=np.float64)
            # s = RN64(x) of the exact x = a*b + c. Every binary32 midpoint (normal, subnormal, the overflow
            # threshold) is a binary64 number with its low 28 significand bits zero, and RN64 is monotone and fixes
            # binary64 numbers: x and s are never on opposite sides of a midpoint, so unless s *is* one, rounding s
            # to binary32 rounds x (zero, infinity and midpoint lanes have those bits zero: the exact path below)
            if np.count_nonzero(s.view(U64) & _LOW28) == s.size:
                return s.astype(np.float32)
            cc = c.astype(np.float64)
            bb = s - p
            err = (p - (s - bb)) + (cc - bb)
            if not np.count_nonzero(err):  # the binary64 sum is exact in every lane: rounding it once is the fma
                return s.astype(np.float32)
            # round to odd in binary64 (53 >= 2*24+2 bits) then to binary32: a single correct rounding
            sb = s.view(U64)
            fix = (err != 0) & np.isfinite(s) & ((sb & U64(1)) == 0)
            s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
            return s.astype(np.float32)
        out, ok = _fma64_lanes(a.astype(np.float64), b.astype(np.float64), c.astype(np.float64))
        for i in np.flatnonzero(~ok).tolist():  # zeros, infinities, NaNs, extreme exponents: exactly, per lane
            out[i] = _fma64(float(a[i]), float(b[i]), float(c[i]))
        return out.astype(ft)


_LOW28 = U64((1 << 28) - 1)
_SPLIT = 134217729.0  # 2**27 + 1: Veltkamp's splitter for binary64
_FMA_LO, _FMA_HI = 2.0 ** -480, 2.0 ** 480  # factors whose product and its error neither overflow nor underflow
_FMA_TINY, _FMA_HUGE = 2.0 ** -960, 2.0 ** 1000


def _fma64_lanes(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Binary64 fma in float operations, all lanes at once: (results, lanes where they are exact-then-rounded).

    Boldo and Melquiond, "Emulation of a FMA and correctly rounded sums: proved algorithms using rounding to odd"
    (IEEE Trans. Computers 57(4), 2008): the product split exactly into uh + ul (Dekker, with Veltkamp's split),
    z + uh exactly into th + tl (TwoSum), tl + ul rounded to odd (its sign's direction where that sum was not
    exact and came out even), then th plus that rounded to nearest: one correct rounding of a*b + c. Their proof
    assumes nothing overflows or underflows, so a lane counts only with both factors within 2**+-480, the addend
    below 2**1000 and a result of magnitude 2**-960 to 2**1000 (the rest, and every zero, infinite or NaN
    operand, go through exact fractions: `_fma64`). tests/emu/test_fma64.py compares the two on random, cancelling
    and exact-midpoint cases."""
    with fp_errstate(all="ignore"):
        t = a * _SPLIT
        ah = t - (t - a)
        al = a - ah
        t = b * _SPLIT
        bh = t - (t - b)
        bl = b - bh
        uh = a * b
        ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl  # uh + ul == a * b
        th = c + uh
        z = th - c
        tl = (c - (th - z)) + (uh - z)  # th + tl == c + uh
        v = tl + ul
        z = v - tl
        e = (tl - (v - z)) + (ul - z)  # v + e == tl + ul
        odd = (e != 0) & ((v.view(U64) & U64(1)) == 0)
        v = np.where(odd, np.nextafter(v, np.where(e > 0, np.inf, -np.inf)), v)
        r = th + v
        aa, ab, ac, ar = np.abs(a), np.abs(b), np.abs(c), np.abs(r)
        ok = ((aa >= _FMA_LO) & (aa <= _FMA_HI) & (ab >= _FMA_LO) & (ab <= _FMA_HI) & (ac <= _FMA_HUGE)
              & (ar >= _FMA_TINY) & (ar <= _FMA_HUGE))
    return r, ok


def _fma64(x: float, y: float, z: float) -> float:
    import math

    if not (math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
        return x * y + z
    p = Fraction(x) * Fraction(y)
    s = p + Fraction(z)
    if s == 0:
        # exact zero: sign per IEEE (x*y and z of the same sign keep it, otherwise +0)
        return x * y + z if p == 0 else 0.0
    try:
        return s.numerator / s.denominator  # int/int true division rounds correctly
    except OverflowError:
        return math.inf if s > 0 else -math.inf


# ---------------------------------------------------------------------------------------------- arithmetic


def _width(mn: str) -> int:
    return 64 if "f64" in mn else 16 if "f16" in mn else 32


_NO_ROUNDING = "exact"  # `exact` of an operation whose result never rounds (floor, ceil, trunc, rndne)


def _arith(fn, nsrc: int, bits: int | None = None, exact=None, addends=None):
    """A float operation on `nsrc` sources of one width; fn works on float arrays. Under a directed MODE.FP_ROUND,
    `exact` (Fractions in, the exact result out, or None to keep fn's) is rounded per lane instead (`addends`: the
    result is a sum, see rounding.directed)."""

    def run(ctx, insn):
        b = bits or _width(insn.mnemonic)
        rnd = _rnd(ctx, b)
        f = _form(insn)
        us = [fsrc(ctx, f, i, b) for i in range(nsrc)]
        xs = [_as_float(u, b) for u in us]
        with fp_errstate(all="ignore"):
            r = fn(*xs)
        nan_in = np.zeros(ctx.wave.lanes, dtype=bool)
        for u in us:
            nan_in |= _is_nan(u, b)
        rb = _as_bits(r, b)
        if rnd and exact is not _NO_ROUNDING:
            if exact is None:
                raise Unsupported(f"{insn.text} (FP_ROUND {rnd}: this operation has no directed rounding here)",
                                  insn.address)
            rb = directed(us, b, rb, b, rnd, exact, addends)
        fdst(ctx, insn, f, _finish(ctx, f, rb, b, nan_in, rnd=rnd), b)

    if nsrc == 1 and bits == 32:
        run.unary32 = fn  # the lane function, for fastpath's closure of the plain f32 unary forms
    return run


def _mac(bits: int):
    """v_fmac/v_mac: the destination is the addend (two-source e32/e64 forms)."""

    def run(ctx, insn):
        rnd = _rnd(ctx, bits)
        f = _form(insn)
        us = [fsrc(ctx, f, i, bits) for i in range(2)]
        if len(f.srcs) >= 3:
            c = fsrc(ctx, f, 2, bits)
        else:
            d = read_vector(ctx.wave, f.dst, 64 if bits == 64 else 32)
            if bits == 16:
                d = _half(d, f.dst.text.endswith(".h") or _dst_hi(f))
            c = d if _denorm(ctx, bits)[0] else _flush(d, bits)
        us.append(c)
        x = [_as_float(u, bits) for u in us]
        r = _as_bits(_fma_exact(x[0], x[1], x[2], bits), bits)
        if rnd:
            r = directed(us, bits, r, bits, rnd, _FMA_EXACT, _FMA_ADDENDS)
        nan_in = _is_nan(us[0], bits) | _is_nan(us[1], bits) | _is_nan(us[2], bits)
        fdst(ctx, insn, f, _finish(ctx, f, r, bits, nan_in, rnd=rnd), bits)

    return run


def _fma_of(a, b, c):
    return _fma_exact(a, b, c, {np.dtype(np.float16): 16, np.dtype(np.float32): 32}.get(a.dtype, 64))


def _FMA_EXACT(a, b, c):
    return a * b + c


def _FMA_ADDENDS(a, b, c):
    return [_prod(a, b), _sgn(c)]


def _ADD_EXACT(a, b):
    return a + b


def _ADD_ADDENDS(a, b):
    return [_sgn(a), _sgn(b)]


def _MUL_EXACT(a, b):
    return a * b


for _w, _s in ((16, "f16"), (32, "f32"), (64, "f64")):
    semantic(f"v_add_{_s}")(_arith(lambda a, b: a + b, 2, _w, _ADD_EXACT, _ADD_ADDENDS))
    semantic(f"v_sub_{_s}")(_arith(lambda a, b: a - b, 2, _w, lambda a, b: a - b,
                                   lambda a, b: [_sgn(a), _sgn(-b)]))
    semantic(f"v_subrev_{_s}")(_arith(lambda a, b: b - a, 2, _w, lambda a, b: b - a,
                                      lambda a, b: [_sgn(b), _sgn(-a)]))
    semantic(f"v_mul_{_s}")(_arith(lambda a, b: a * b, 2, _w, _MUL_EXACT))
    semantic(f"v_fma_{_s}", f"v_fmaak_{_s}", f"v_fmamk_{_s}")(_arith(_fma_of, 3, _w, _FMA_EXACT, _FMA_ADDENDS))
    semantic(f"v_fmac_{_s}")(_mac(_w))
semantic("v_mac_f16")(_mac(16))
# f16 mad is fused on GFX9 (no intermediate rounding of the f16 product)
semantic("v_mad_f16")(_arith(_fma_of, 3, 16, _FMA_EXACT, _FMA_ADDENDS))
SEMANTICS["v_add_f64_e64"] = SEMANTICS["v_add_f64"]  # valu registers this GFX9 spelling; the float one must win


@semantic("v_mac_f32", "v_mad_f32", "v_madak_f32", "v_madmk_f32", "v_mac_legacy_f32", "v_mad_legacy_f32")
def v_mad_f32(ctx, insn):
    """Legacy (unfused) multiply-add: the product is rounded to f32 before the add (both in MODE's direction)."""
    rnd = _rnd(ctx, 32)
    f = _form(insn)
    us = [fsrc(ctx, f, i, 32) for i in range(2)]
    if len(f.srcs) >= 3:
        us.append(fsrc(ctx, f, 2, 32))
    else:
        us.append(read_vector(ctx.wave, f.dst, 32))
    x = [_as_float(u, 32) for u in us]
    legacy = "legacy" in insn.mnemonic
    with fp_errstate(all="ignore"):
        r = (x[0] * x[1]).astype(np.float32)
        if legacy:  # DX9 rule: 0 * anything (even inf/NaN) is 0
            r = np.where((x[0] == 0) | (x[1] == 0), np.float32(0.0), r)
        if rnd:
            r = _as_float(directed(us[:2], 32, _as_bits(r, 32), 32, rnd, _MUL_EXACT), 32)
        s = (r + x[2]).astype(np.float32)
    if rnd:
        s = _as_float(directed([_as_bits(r, 32), us[2]], 32, _as_bits(s, 32), 32, rnd, _ADD_EXACT, _ADD_ADDENDS), 32)
    r = s
    nan_in = _is_nan(us[0], 32) | _is_nan(us[1], 32) | _is_nan(us[2], 32)
    fdst(ctx, insn, f, _finish(ctx, f, _as_bits(r, 32), 32, nan_in), 32)


@semantic("v_mul_legacy_f32", "v_mul_dx9_zero_f32")  # (GFX11 renamed it; clang emits it expanding powf)
def v_mul_legacy_f32(ctx, insn):
    """D = S0 * S1, except that a zero factor (either sign) gives +0 whatever the other is (infinity, NaN): the
    DX9 rule."""
    rnd = _rnd(ctx, 32)
    f = _form(insn)
    a, b = (fsrc(ctx, f, i, 32) for i in range(2))
    x, y = _as_float(a, 32), _as_float(b, 32)
    with fp_errstate(all="ignore"):
        r = _as_bits(np.where((x == 0) | (y == 0), np.float32(0.0), x * y), 32)
    if rnd:  # an exact zero product (0 * anything) keeps its +0
        r = directed([a, b], 32, r, 32, rnd, _MUL_EXACT)
    fdst(ctx, insn, f, _finish(ctx, f, r, 32, _is_nan(a, 32) | _is_nan(b, 32), rnd=rnd), 32)


# -- min/max/med3


def _minmax(ctx, a: np.ndarray, b: np.ndarray, bits: int, is_min: bool, num: bool) -> np.ndarray:
    """One AMD min/max on bits: -0 < +0; IEEE mode returns a quieted signalling NaN, else NaN loses."""
    x, y = _as_float(a, bits), _as_float(b, bits)
    ut = _T[bits][1]
    sign = ut(_T[bits][2])
    xneg = (a & sign) != 0
    yneg = (b & sign) != 0
    bothzero = (x == 0) & (y == 0)
    with fp_errstate(invalid="ignore"):
        if is_min:
            pick_a = (x < y) | (bothzero & xneg & ~yneg)
        else:
            pick_a = (x > y) | (bothzero & ~xneg & yneg)
    r = np.where(pick_a, a, b)
    an, bn = _is_nan(a, bits), _is_nan(b, bits)
    r = np.where(bn & ~an, a, r)
    r = np.where(an & ~bn, b, r)
    r = np.where(an & bn, _quiet(a, bits), r)
    if not num and _ieee(ctx):
        r = np.where(_is_snan(b, bits), _quiet(b, bits), r)
        r = np.where(_is_snan(a, bits), _quiet(a, bits), r)
    return r.astype(ut)


def _mm(is_min: bool, n: int, num: bool = False):
    def run(ctx, insn):
        b = _width(insn.mnemonic)
        f = _form(insn)
        us = [fsrc(ctx, f, i, b) for i in range(n)]
        r = _minmax(ctx, us[0], us[1], b, is_min, num)
        if n == 3:
            r = _minmax(ctx, r, us[2], b, is_min, num)
        fdst(ctx, insn, f, _finish(ctx, f, r, b), b)

    return run


for _s in ("f16", "f32", "f64"):
    semantic(f"v_min_{_s}")(_mm(True, 2))
    semantic(f"v_max_{_s}")(_mm(False, 2))
    semantic(f"v_min_num_{_s}")(_mm(True, 2, True))
    semantic(f"v_max_num_{_s}")(_mm(False, 2, True))
    semantic(f"v_min3_{_s}")(_mm(True, 3))
    semantic(f"v_max3_{_s}")(_mm(False, 3))
    semantic(f"v_min3_num_{_s}")(_mm(True, 3, True))
    semantic(f"v_max3_num_{_s}")(_mm(False, 3, True))


def _mm2(first_min: bool, num: bool):
    """GFX11+ v_minmax (D = max(min(S0, S1), S2)) and v_maxmin (D = min(max(S0, S1), S2)), each step an AMD
    min/max as above (GFX12: the `_num` forms)."""

    def run(ctx, insn):
        b = _width(insn.mnemonic)
        f = _form(insn)
        s0, s1, s2 = (fsrc(ctx, f, i, b) for i in range(3))
        r = _minmax(ctx, _minmax(ctx, s0, s1, b, first_min, num), s2, b, not first_min, num)
        fdst(ctx, insn, f, _finish(ctx, f, r, b), b)

    return run


for _s in ("f16", "f32"):
    semantic(f"v_minmax_{_s}")(_mm2(True, False))
    semantic(f"v_maxmin_{_s}")(_mm2(False, False))
    semantic(f"v_minmax_num_{_s}")(_mm2(True, True))
    semantic(f"v_maxmin_num_{_s}")(_mm2(False, True))


@semantic("v_med3_f32", "v_med3_f16", "v_med3_num_f32", "v_med3_num_f16")
def v_med3(ctx, insn):
    """ISA: any NaN -> min3; else the max of the two operands that are not the max3."""
    b = _width(insn.mnemonic)
    num = "_num_" in insn.mnemonic
    f = _form(insn)
    s0, s1, s2 = (fsrc(ctx, f, i, b) for i in range(3))
    anynan = _is_nan(s0, b) | _is_nan(s1, b) | _is_nan(s2, b)
    mn = _minmax(ctx, _minmax(ctx, s0, s1, b, True, num), s2, b, True, num)
    mx = _minmax(ctx, _minmax(ctx, s0, s1, b, False, num), s2, b, False, num)
    r = np.where(mx == s0, _minmax(ctx, s1, s2, b, False, num),
                 np.where(mx == s1, _minmax(ctx, s0, s2, b, False, num), _minmax(ctx, s0, s1, b, False, num)))
    fdst(ctx, insn, f, _finish(ctx, f, np.where(anynan, mn, r), b), b)


# -- unary


def _unary(fn, bits: int | None = None, exact=None):
    return _arith(fn, 1, bits, exact)


def _fract_exact(bits: int):
    below_one = 1 - Fraction(1, 1 << {16: 11, 32: 24, 64: 53}[bits])  # the largest value below 1

    def exact(a):
        return min(a - (a.numerator // a.denominator), below_one)

    return exact


def _sqrt_exact(bits: int):
    return lambda a: sqrt_fraction(a, bits) if a > 0 else None  # sqrt(+-0) = +-0, negative: NaN (kept)


def _rcp_exact(a):
    return 1 / a if a != 0 else None  # 1/+-0 is +-inf in every direction


def _via64(fn64):
    """An approximation evaluated in binary64 (as the nearest-even path does); a directed MODE rounds that binary64
    value to the result width in its direction."""

    def exact(a):
        with fp_errstate(all="ignore"):
            v = float(fn64(np.float64(float(a))))
        return Fraction(v) if np.isfinite(v) and v != 0 else None

    return exact


def _fract(a):
    ft = a.dtype.type
    below_one = np.nextafter(ft(1.0), ft(0.0))
    r = np.minimum(a - np.floor(a), below_one)
    return np.where(np.isinf(a), ft(np.nan), r)


def _rsq(a):
    return (1.0 / np.sqrt(a.astype(np.float64))).astype(a.dtype)


def _rcp(a):
    return (np.float64(1.0) / a.astype(np.float64)).astype(a.dtype) if a.dtype != np.float64 else 1.0 / a


for _w, _s in ((16, "f16"), (32, "f32"), (64, "f64")):
    semantic(f"v_floor_{_s}")(_unary(np.floor, _w, _NO_ROUNDING))
    semantic(f"v_ceil_{_s}")(_unary(np.ceil, _w, _NO_ROUNDING))
    semantic(f"v_trunc_{_s}")(_unary(np.trunc, _w, _NO_ROUNDING))
    semantic(f"v_rndne_{_s}")(_unary(np.rint, _w, _NO_ROUNDING))
    semantic(f"v_fract_{_s}")(_unary(_fract, _w, _fract_exact(_w)))
    semantic(f"v_sqrt_{_s}")(_unary(np.sqrt, _w, _sqrt_exact(_w)))
    semantic(f"v_rcp_{_s}")(_unary(_rcp, _w, _rcp_exact))
    semantic(f"v_rsq_{_s}")(_unary(_rsq, _w, _via64(lambda x: 1.0 / np.sqrt(x))))
semantic("v_rcp_iflag_f32")(_unary(_rcp, 32, _rcp_exact))  # the integer-division reciprocal: same value, no flags
for _w, _s in ((16, "f16"), (32, "f32")):
    semantic(f"v_exp_{_s}")(_unary(lambda a: np.exp2(a.astype(np.float64)).astype(a.dtype), _w, _via64(np.exp2)))
    semantic(f"v_log_{_s}")(_unary(lambda a: np.log2(a.astype(np.float64)).astype(a.dtype), _w, _via64(np.log2)))
    semantic(f"v_sin_{_s}")(_unary(lambda a: np.sin(2 * np.pi * a.astype(np.float64)).astype(a.dtype), _w,
                                   _via64(lambda x: np.sin(2 * np.pi * x))))
    semantic(f"v_cos_{_s}")(_unary(lambda a: np.cos(2 * np.pi * a.astype(np.float64)).astype(a.dtype), _w,
                                   _via64(lambda x: np.cos(2 * np.pi * x))))


@semantic("v_ldexp_f32", "v_ldexp_f64", "v_ldexp_f16")
def v_ldexp(ctx, insn):
    b = _width(insn.mnemonic)
    rnd = _rnd(ctx, b)
    f = _form(insn)
    a = fsrc(ctx, f, 0, b)
    if b == 16:  # the f16 form takes a 16-bit signed exponent (a true16 half, or op_sel's, picks which)
        ei = _int_src(ctx, f, 1, 16, True)
    else:
        e = read_vector(ctx.wave, f.srcs[1], 32).astype(U32)
        ei = e.view(np.int32).astype(np.int64)
    ei = np.clip(ei, -10000, 10000)  # beyond any width's range: same result
    x = _as_float(a, b)
    with fp_errstate(all="ignore"):
        r = np.ldexp(x.astype(np.float64) if b == 16 else x, ei.astype(np.int32))
        if b == 16:  # scaling an f16 in f64 is exact; one rounding to f16
            r = r.astype(np.float16)
    r = _as_bits(r, b)
    if rnd:  # the scaling is exact but for denormal or overflowing results
        r = directed([a], b, r, b, rnd, lambda x, k: x * Fraction(2) ** k, extra=[ei])
    fdst(ctx, insn, f, _finish(ctx, f, r, b, _is_nan(a, b), rnd=rnd), b)


@semantic("v_frexp_mant_f32", "v_frexp_mant_f64", "v_frexp_mant_f16")
def v_frexp_mant(ctx, insn):
    """Mantissa in [0.5, 1) with the source's sign; NaN and infinity are returned unchanged."""
    b = _width(insn.mnemonic)
    f = _form(insn)
    a = fsrc(ctx, f, 0, b)
    x = _as_float(a, b)
    with fp_errstate(invalid="ignore"):
        m, _ = np.frexp(x.astype(np.float64))
    r = np.where(np.isfinite(x), m.astype(x.dtype), x)
    fdst(ctx, insn, f, _finish(ctx, f, _as_bits(r, b), b, _is_nan(a, b)), b)


@semantic("v_frexp_exp_i32_f32", "v_frexp_exp_i32_f64", "v_frexp_exp_i16_f16")
def v_frexp_exp(ctx, insn):
    """Exponent such that x = mant * 2**exp (mant in [0.5, 1)); 0 for NaN, infinity and zero."""
    b = 64 if "f64" in insn.mnemonic else 16 if "f16" in insn.mnemonic else 32
    f = _form(insn)
    a = fsrc(ctx, f, 0, b)
    x = _as_float(a, b)
    with fp_errstate(invalid="ignore"):
        _, e = np.frexp(x.astype(np.float64))
    e = np.where(np.isfinite(x), e, 0).astype(np.int64)
    if b == 16:
        fdst(ctx, insn, f, (e & 0xFFFF).astype(U32), 16)
    else:
        write_vector(ctx.wave, f.dst, (e & M32).astype(U32), 32)


# -- division helpers


def _exponent(u: np.ndarray, bits: int) -> np.ndarray:
    shift = {16: 10, 32: 23, 64: 52}[bits]
    emask = _T[bits][4]
    return ((u.astype(_T[bits][1]) & _T[bits][1](emask)) >> _T[bits][1](shift)).astype(np.int64)


def _is_denorm(x: np.ndarray) -> np.ndarray:
    tiny = np.finfo(x.dtype).tiny
    return (x != 0) & (np.abs(x) < tiny)


@semantic("v_div_scale_f32", "v_div_scale_f64")
def v_div_scale(ctx, insn):
    """ISA pseudocode: scale S0 (the denominator or numerator) so Newton-Raphson sees no denormals; VCC says the
    quotient needs post-scaling (v_div_fmas)."""
    b = 64 if "f64" in insn.mnemonic else 32
    f = _form(insn)
    s0, s1, s2 = (fsrc(ctx, f, i, b, flush=False) for i in range(3))
    x0, x1, x2 = (_as_float(u, b) for u in (s0, s1, s2))
    big, scale, lim, tiny_exp = (96, 64, 1, 23) if b == 32 else (768, 128, 1, 53)
    del lim
    ft = _T[b][0]
    d = x0.copy()
    vcc = np.zeros(ctx.wave.lanes, dtype=bool)
    done = np.zeros(ctx.wave.lanes, dtype=bool)
    e1, e2 = _exponent(s1, b), _exponent(s2, b)
    with fp_errstate(all="ignore"):
        inv = 1.0 / x1.astype(np.float64)
        q = (x2 / x1).astype(ft)
    with fp_errstate(all="ignore"):
        up = np.ldexp(x0, scale).astype(ft)
        down = np.ldexp(x0, -scale).astype(ft)

    def case(cond, value=None, set_vcc=False):
        nonlocal d, vcc, done
        c = cond & ~done
        if value is not None:
            d = np.where(c, value, d)
        if set_vcc:
            vcc = vcc | c
        done = done | c

    case((x2 == 0) | (x1 == 0), ft(np.nan))
    c = (e2 - e1) >= big
    case(c & (x0 == x1), up, True)
    case(c, None, True)
    case(_is_denorm(x1), up)
    inv_den = _is_denorm(inv)
    q_den = _is_denorm(q)
    # the manual's pseudocode scales the denominator *up* here, which overflows a denominator whose reciprocal is
    # already denormal; scaling it down is what v_div_fmas's 2**-scale (S2 small) undoes, and what gives the IEEE
    # quotient (tests/emu/test_edges.py: 1.0 / 1.7e308)
    case(inv_den & q_den & (x0 == x1), down, True)
    case(inv_den & q_den, None, True)
    case(inv_den, down)
    case(q_den & (x0 == x2), up, True)
    case(q_den, None, True)
    case(e2 <= tiny_exp, up)
    nan_in = _is_nan(s0, b) | _is_nan(s1, b) | _is_nan(s2, b)
    out = _finish(ctx, f, _as_bits(d, b), b, nan_in)
    write_vector(ctx.wave, f.dst, out, b)
    write_lane_mask(ctx, f.sdst if (f.sdst is not None and f.sdst.text not in ("vcc", "vcc_lo")) else None, vcc)


@semantic("v_div_fmas_f32", "v_div_fmas_f64")
def v_div_fmas(ctx, insn):
    """fma, then where VCC is set scale by 2**64 (f32; 2**128 for f64) if S2's exponent says the quotient is
    large, else by the inverse (undoing v_div_scale). Input denormals are not flushed."""
    b = 64 if "f64" in insn.mnemonic else 32
    rnd = _rnd(ctx, b)
    f = _form(insn)
    us = [fsrc(ctx, f, i, b, flush=False) for i in range(3)]
    x = [_as_float(u, b) for u in us]
    r = _fma_exact(x[0], x[1], x[2], b)
    if rnd:
        r = _as_float(directed(us, b, _as_bits(r, b), b, rnd, _FMA_EXACT, _FMA_ADDENDS), b)
    vcc = read_lane_mask(ctx, None)
    scale = 64 if b == 32 else 128
    bias = 127 if b == 32 else 1023
    e2 = _exponent(us[2], b)
    with fp_errstate(all="ignore"):
        scaled = np.where(e2 > bias, np.ldexp(r.astype(np.float64) if b == 32 else r, scale),
                          np.ldexp(r.astype(np.float64) if b == 32 else r, -scale)).astype(r.dtype)
    if rnd:  # the post-scaling rounds (a denormal quotient) in the same direction as the fma
        k = np.where(e2 > bias, scale, -scale)
        scaled = _as_float(directed([_as_bits(r, b)], b, _as_bits(scaled, b), b, rnd,
                                    lambda a, n: a * Fraction(2) ** n, extra=[k]), b)
    r = np.where(vcc, scaled, r)
    nan_in = _is_nan(us[0], b) | _is_nan(us[1], b) | _is_nan(us[2], b)
    fdst(ctx, insn, f, _finish(ctx, f, _as_bits(r, b), b, nan_in, rnd=rnd), b)


@semantic("v_div_fixup_f32", "v_div_fixup_f64", "v_div_fixup_f16")
def v_div_fixup(ctx, insn):
    """ISA pseudocode: special cases of S2/S1 (NaN, 0/0, inf/inf, x/0, inf/y, x/inf, 0/y, under/overflow),
    otherwise the quotient estimate S0 with the quotient's sign."""
    b = _width(insn.mnemonic)
    f = _form(insn)
    s0, s1, s2 = (fsrc(ctx, f, i, b, flush=False) for i in range(3))
    x0, x1, x2 = (_as_float(u, b) for u in (s0, s1, s2))
    ft, ut, sign, _, _, qnan = _T[b]
    sign_out = ((s1 ^ s2) & ut(sign)) != 0
    e1, e2 = _exponent(s1, b), _exponent(s2, b)
    emax = {16: 31, 32: 255, 64: 2047}[b]
    under = {16: -25, 32: -150, 64: -1075}[b]  # below the smallest denormal quotient
    inf = np.where(sign_out, ft(-np.inf), ft(np.inf))
    zero = np.where(sign_out, ft(-0.0), ft(0.0))
    tiny = np.where(sign_out, -np.finfo(ft).smallest_subnormal, np.finfo(ft).smallest_subnormal).astype(ft)
    huge = np.where(sign_out, -np.finfo(ft).max, np.finfo(ft).max).astype(ft)
    r = np.where(sign_out, -np.abs(x0), np.abs(x0)).astype(ft)
    rb = _as_bits(r, b)
    conds = [
        (_is_nan(s2, b), _quiet(s2, b)),
        (_is_nan(s1, b), _quiet(s1, b)),
        ((x1 == 0) & (x2 == 0), np.full(s0.shape, qnan | sign if b != 16 else 0xFE00, dtype=ut)),
        (np.isinf(x1) & np.isinf(x2), np.full(s0.shape, qnan | sign if b != 16 else 0xFE00, dtype=ut)),
        ((x1 == 0) | np.isinf(x2), _as_bits(inf, b)),
        (np.isinf(x1) | (x2 == 0), _as_bits(zero, b)),
        ((e2 - e1) < under, _as_bits(tiny, b)),
        (e1 == emax, _as_bits(huge, b)),
        # a NaN estimate with ordinary operands gives the signed infinity (a known correction of the manual's
        # pseudocode used by other RDNA emulators; not verified on hardware here)
        (_is_nan(s0, b), _as_bits(inf, b)),
    ]
    out = rb.copy()
    done = np.zeros(s0.shape, dtype=bool)
    for cond, val in conds:
        c = cond & ~done
        out = np.where(c, val, out).astype(ut)
        done |= c
    fdst(ctx, insn, f, _finish(ctx, f, out, b), b)


# -- trig_preop

_TWO_OVER_PI_BITS = 1201


def _two_over_pi() -> int:
    """floor(2/pi * 2**1201), from a Machin-formula pi computed with integers (guard bits included)."""
    prec = _TWO_OVER_PI_BITS + 64
    one = 1 << prec

    def arctan_inv(n: int) -> int:
        total, term, k, sign = 0, one // n, 1, 1
        n2 = n * n
        while term:
            total += sign * (term // k)
            term //= n2
            k += 2
            sign = -sign
        return total

    pi = 4 * (4 * arctan_inv(5) - arctan_inv(239))
    return ((2 * one * one) // pi) >> 64


_TOPI = _two_over_pi()


@semantic("v_trig_preop_f64")
def v_trig_preop(ctx, insn):
    """53-bit segment S1[4:0] of 2/pi (shifted further for large S0), scaled so segments sum to 2/pi."""
    f = _form(insn)
    s0 = fsrc(ctx, f, 0, 64, flush=False)
    seg = read_vector(ctx.wave, f.srcs[1], 32)
    out = np.empty(ctx.wave.lanes, dtype=U64)
    for i, (u, s) in enumerate(zip(s0.tolist(), seg.tolist(), strict=True)):
        e = (u >> 52) & 0x7FF
        shift = (s & 31) * 53
        if e > 1077:
            shift += e - 1077
        frac = (_TOPI << shift) & ((1 << (_TWO_OVER_PI_BITS + shift)) - 1)  # drop the integer part
        val = (frac >> (_TWO_OVER_PI_BITS - 53)) & ((1 << 53) - 1) if shift <= _TWO_OVER_PI_BITS else 0
        scale = -53 - shift
        if e >= 1968:
            scale += 128
        out[i] = np.float64(np.ldexp(float(val), scale)).view(U64)
    write_vector(ctx.wave, f.dst, out, 64)


# -- class


@semantic("v_cmp_class_f32", "v_cmp_class_f64", "v_cmp_class_f16", "v_cmpx_class_f32", "v_cmpx_class_f64",
          "v_cmpx_class_f16")
def v_cmp_class(ctx, insn):
    """S1's bits 0..9 select classes: sNaN, qNaN, -inf, -normal, -denormal, -0, +0, +denormal, +normal, +inf."""
    b = _width(insn.mnemonic)
    f = _form(insn)
    a = fsrc(ctx, f, 0, b, flush=False)
    # (the f16 form's class mask is a 16-bit operand: a true16 `.h`, or op_sel, picks the high half)
    mask = _int_src(ctx, f, 1, 16, False) if b == 16 else read_vector(ctx.wave, f.srcs[1], 32).astype(np.int64)
    _compare_tail(ctx, insn, f, _class_bits(a, b, mask), insn.mnemonic.startswith("v_cmpx"))


def _class_bits(a: np.ndarray, b: int, mask: np.ndarray) -> np.ndarray:
    x = _as_float(a, b)
    neg = (a & _T[b][1](_T[b][2])) != 0
    den = _is_denorm(x)
    cls = np.select(
        [_is_snan(a, b), _is_nan(a, b), np.isinf(x) & neg, (x == 0) & neg, den & neg, neg,
         np.isinf(x), x == 0, den],
        [0, 1, 2, 5, 4, 3, 9, 6, 7], 8)
    return ((mask >> cls) & 1).astype(bool)


def _compare_tail(ctx, insn, f: _Form, res: np.ndarray, exec_write: bool) -> None:
    """Write a compare's lane mask the way valu's compares do (VCC, an SGPR pair, or EXEC for v_cmpx)."""
    w = ctx.wave
    res = np.asarray(res, dtype=bool) & w.exec_mask()
    target = f.sdst if f.sdst is not None else _explicit_vcc_dest(insn)
    if exec_write:
        if w.family == "gfx9":
            write_lane_mask(ctx, target if target is not None and target.text != "exec" else None, res)
        w.exec = w.to_mask(res)
    else:
        write_lane_mask(ctx, target if target is not None and target.text not in ("vcc", "vcc_lo") else None, res)


_FCMP = {
    "f": lambda a, b: np.zeros(a.shape, bool), "t": lambda a, b: np.ones(a.shape, bool),
    "tru": lambda a, b: np.ones(a.shape, bool),
    "lt": np.less, "eq": np.equal, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal,
    "lg": lambda a, b: np.less(a, b) | np.greater(a, b), "ne": np.not_equal,
    "o": lambda a, b: ~(np.isnan(a) | np.isnan(b)), "u": lambda a, b: np.isnan(a) | np.isnan(b),
    "nge": lambda a, b: ~np.greater_equal(a, b), "nlg": lambda a, b: ~(np.less(a, b) | np.greater(a, b)),
    "ngt": lambda a, b: ~np.greater(a, b), "nle": lambda a, b: ~np.less_equal(a, b),
    "neq": lambda a, b: ~np.equal(a, b), "nlt": lambda a, b: ~np.less(a, b),
}


def _fcmp(op: str, bits: int, exec_write: bool):
    def run(ctx, insn):
        f = _form(insn)
        a, b = (_as_float(fsrc(ctx, f, i, bits), bits) for i in range(2))
        with fp_errstate(invalid="ignore"):
            res = _FCMP[op](a, b)
        _compare_tail(ctx, insn, f, res, exec_write)

    return run


for _op in _FCMP:
    for _w, _s in ((16, "f16"), (32, "f32"), (64, "f64")):
        semantic(f"v_cmp_{_op}_{_s}")(_fcmp(_op, _w, False))
        semantic(f"v_cmpx_{_op}_{_s}")(_fcmp(_op, _w, True))


# ---------------------------------------------------------------------------------------------- conversions


def _same(a):
    return a


def _cvt_float(src_bits: int, dst_bits: int):
    def run(ctx, insn):
        rnd = _rnd(ctx, dst_bits) if dst_bits < src_bits else 0  # widening is exact
        f = _form(insn)
        a = fsrc(ctx, f, 0, src_bits)
        with fp_errstate(all="ignore"):
            r = _as_float(a, src_bits).astype(_T[dst_bits][0])
        u = _as_bits(r, dst_bits)
        if rnd:
            u = directed([a], src_bits, u, dst_bits, rnd, _same)
        # a NaN keeps its payload's top bits and is quiet (numpy does the same narrowing/widening)
        fdst(ctx, insn, f, _finish(ctx, f, _quiet(u, dst_bits), dst_bits, _is_nan(a, src_bits), rnd=rnd), dst_bits)

    return run


semantic("v_cvt_f16_f32")(_cvt_float(32, 16))
semantic("v_cvt_f32_f16")(_cvt_float(16, 32))
semantic("v_cvt_f32_f64")(_cvt_float(64, 32))
semantic("v_cvt_f64_f32")(_cvt_float(32, 64))


def _int_src(ctx, f: _Form, i: int, width: int, signed: bool) -> np.ndarray:
    op = f.srcs[i]
    v = read_vector(ctx.wave, op, 32)
    if width == 16:
        v = _half(v, "hi" in f.mods[i] or bool(_bit(f.op_sel, i)))
    x = v.astype(np.int64) & ((1 << width) - 1)
    if signed:
        x = np.where(x >> (width - 1), x - (1 << width), x)
    return x


def _cvt_from_int(width: int, signed: bool, dst_bits: int):
    def run(ctx, insn):
        rnd = _rnd(ctx, dst_bits)
        f = _form(insn)
        x = _int_src(ctx, f, 0, width, signed)
        r = _as_bits(x.astype(np.float64).astype(_T[dst_bits][0]), dst_bits)  # |x| < 2**32: exact in f64
        if rnd:
            r = directed([], dst_bits, r, dst_bits, rnd, lambda n: Fraction(n) if n else None, extra=[x])
        fdst(ctx, insn, f, _finish(ctx, f, r, dst_bits, rnd=rnd), dst_bits)

    return run


semantic("v_cvt_f32_u32")(_cvt_from_int(32, False, 32))
semantic("v_cvt_f32_i32")(_cvt_from_int(32, True, 32))
semantic("v_cvt_f64_u32")(_cvt_from_int(32, False, 64))
semantic("v_cvt_f64_i32")(_cvt_from_int(32, True, 64))
semantic("v_cvt_f16_u16")(_cvt_from_int(16, False, 16))
semantic("v_cvt_f16_i16")(_cvt_from_int(16, True, 16))


def _cvt_to_int(src_bits: int, width: int, signed: bool, rnd: str = "trunc"):
    lo, hi = (-(1 << (width - 1)), (1 << (width - 1)) - 1) if signed else (0, (1 << width) - 1)

    def run(ctx, insn):
        f = _form(insn)
        x = _as_float(fsrc(ctx, f, 0, src_bits), src_bits).astype(np.float64)
        with fp_errstate(invalid="ignore"):
            if rnd == "floor":
                x = np.floor(x)
            elif rnd == "rpi":
                x = np.floor(x + 0.5)
            else:
                x = np.trunc(x)
            r = np.where(np.isnan(x), 0, np.clip(x, lo, hi)).astype(np.int64)  # saturate; NaN -> 0
        if width == 16:
            fdst(ctx, insn, f, (r & 0xFFFF).astype(U32), 16)
        else:
            write_vector(ctx.wave, f.dst, (r & M32).astype(U32), 32)

    return run


semantic("v_cvt_u32_f32")(_cvt_to_int(32, 32, False))
semantic("v_cvt_i32_f32")(_cvt_to_int(32, 32, True))
semantic("v_cvt_u32_f64")(_cvt_to_int(64, 32, False))
semantic("v_cvt_i32_f64")(_cvt_to_int(64, 32, True))
semantic("v_cvt_u16_f16")(_cvt_to_int(16, 16, False))
semantic("v_cvt_i16_f16")(_cvt_to_int(16, 16, True))
semantic("v_cvt_i32_f16")(_cvt_to_int(16, 32, True))
semantic("v_cvt_u32_f16")(_cvt_to_int(16, 32, False))
semantic("v_cvt_flr_i32_f32", "v_cvt_floor_i32_f32")(_cvt_to_int(32, 32, True, "floor"))
semantic("v_cvt_rpi_i32_f32", "v_cvt_nearest_i32_f32")(_cvt_to_int(32, 32, True, "rpi"))


def _rtz16(x: np.ndarray) -> np.ndarray:
    """f32 -> f16 rounding toward zero (v_cvt_pkrtz): round to nearest, then step back if that grew |x|."""
    with fp_errstate(all="ignore"):
        h = x.astype(np.float16)
        grew = np.isfinite(x) & (np.abs(h.astype(np.float32)) > np.abs(x))
        return np.where(grew, np.nextafter(h, np.float16(0.0)), h).astype(np.float16)


@semantic("v_cvt_pkrtz_f16_f32", "v_cvt_pk_rtz_f16_f32")
def v_cvt_pkrtz(ctx, insn):
    f = _form(insn)
    a, b = (_as_float(fsrc(ctx, f, i, 32), 32) for i in range(2))
    lo = _as_bits(_rtz16(a), 16).astype(U32)
    hi = _as_bits(_rtz16(b), 16).astype(U32)
    if not _denorm(ctx, 16)[1]:
        lo, hi = _flush(lo, 16).astype(U32), _flush(hi, 16).astype(U32)
    write_vector(ctx.wave, f.dst, lo | (hi << U32(16)), 32)


@semantic("v_cvt_pk_f16_f32")
def v_cvt_pk_f16_f32(ctx, insn):
    rnd = _rnd(ctx, 16)
    f = _form(insn)
    ua, ub = (fsrc(ctx, f, i, 32) for i in range(2))
    a, b = _as_float(ua, 32), _as_float(ub, 32)
    with fp_errstate(all="ignore"):
        la, hb = _as_bits(a.astype(np.float16), 16), _as_bits(b.astype(np.float16), 16)
    if rnd:
        la, hb = directed([ua], 32, la, 16, rnd, _same), directed([ub], 32, hb, 16, rnd, _same)
    lo = _finish(ctx, f, la, 16, rnd=rnd).astype(U32)
    hi = _finish(ctx, f, hb, 16, rnd=rnd).astype(U32)
    write_vector(ctx.wave, f.dst, lo | (hi << U32(16)), 32)


def _cvt_pk_int(signed: bool):
    lo_lim, hi_lim = (-(1 << 15), (1 << 15) - 1) if signed else (0, 0xFFFF)

    def run(ctx, insn):
        f = _form(insn)
        a, b = (_int_src(ctx, f, i, 32, signed) for i in range(2))
        ra = np.clip(a, lo_lim, hi_lim) & 0xFFFF
        rb = np.clip(b, lo_lim, hi_lim) & 0xFFFF
        write_vector(ctx.wave, f.dst, (ra | (rb << 16)).astype(U32), 32)

    return run


semantic("v_cvt_pk_u16_u32")(_cvt_pk_int(False))
semantic("v_cvt_pk_i16_i32")(_cvt_pk_int(True))


def _cvt_pknorm(signed: bool):
    def run(ctx, insn):
        f = _form(insn)
        out = []
        for i in range(2):
            x = _as_float(fsrc(ctx, f, i, 32), 32).astype(np.float64)
            if signed:
                r = np.rint(np.clip(np.nan_to_num(x), -1.0, 1.0) * 32767.0).astype(np.int64)
            else:
                r = np.rint(np.clip(np.nan_to_num(x), 0.0, 1.0) * 65535.0).astype(np.int64)
            out.append(r & 0xFFFF)
        write_vector(ctx.wave, f.dst, (out[0] | (out[1] << 16)).astype(U32), 32)

    return run


semantic("v_cvt_pknorm_i16_f32")(_cvt_pknorm(True))
semantic("v_cvt_pknorm_u16_f32")(_cvt_pknorm(False))


# ---------------------------------------------------------------------------------------------- mixed precision


@semantic("v_fma_mix_f32", "v_fma_mixlo_f16", "v_fma_mixhi_f16", "v_mad_mix_f32", "v_mad_mixlo_f16",
          "v_mad_mixhi_f16")
def v_fma_mix(ctx, insn):
    """Sources are f16 (op_sel_hi bit set; op_sel picks the half) or f32; one fused operation in f32. Under a directed
    MODE.FP_ROUND the f32 result rounds in the f32 field's direction and mixlo/mixhi's conversion to f16 in the
    f16 field's (the nearest-even path's two roundings, each in its own field's direction)."""
    rnd = _rnd(ctx, 32)
    f = _form(insn)
    osh = f.op_sel_hi or [0, 0, 0]
    xs = []
    raw, widths = [], []
    nan_in = np.zeros(ctx.wave.lanes, dtype=bool)
    for i in range(3):
        if _bit(osh, i):
            v = _half(_raw(ctx, f.srcs[i], 32), bool(_bit(f.op_sel, i)))
            u = _apply_negabs(v, f.mods[i] | ({"neg"} if _bit(f.neg_lo, i) else set()), 16)
            u = u if _denorm(ctx, 16)[0] else _flush(u, 16)
            nan_in |= _is_nan(u, 16)
            xs.append(_as_float(u, 16).astype(np.float32))
            raw.append(u)
            widths.append(16)
        else:
            u = _apply_negabs(_raw(ctx, f.srcs[i], 32), f.mods[i] | ({"neg"} if _bit(f.neg_lo, i) else set()), 32)
            u = u if _denorm(ctx, 32)[0] else _flush(u, 32)
            nan_in |= _is_nan(u, 32)
            xs.append(_as_float(u, 32))
            raw.append(u)
            widths.append(32)
    if "mad_mix" in insn.mnemonic:
        with fp_errstate(all="ignore"):
            p = (xs[0] * xs[1]).astype(np.float32)
            if rnd:
                p = _as_float(directed(raw[:2], widths[:2], _as_bits(p, 32), 32, rnd, _MUL_EXACT), 32)
            r = p + xs[2]
        if rnd:
            r = _as_float(directed([_as_bits(p, 32), raw[2]], [32, widths[2]], _as_bits(r, 32), 32, rnd,
                                   _ADD_EXACT, _ADD_ADDENDS), 32)
    else:
        r = _fma_exact(xs[0], xs[1], xs[2], 32)
        if rnd:
            r = _as_float(directed(raw, widths, _as_bits(r, 32), 32, rnd, _FMA_EXACT, _FMA_ADDENDS), 32)
    if insn.mnemonic.endswith("_f32"):
        write_vector(ctx.wave, f.dst, _finish(ctx, f, _as_bits(r, 32), 32, nan_in, rnd=rnd), 32)
        return
    rnd16 = _rnd(ctx, 16)
    with fp_errstate(all="ignore"):  # mixlo/mixhi: round the f32 result to f16 (a second rounding)
        h = _as_bits(r.astype(np.float16), 16)
    if rnd16:
        h = directed([_as_bits(r, 32)], 32, h, 16, rnd16, _same)
    h = _finish(ctx, f, _quiet(h, 16), 16, nan_in, rnd=rnd16).astype(U32)
    old = read_vector(ctx.wave, f.dst, 32)
    out = (old & U32(0xFFFF)) | (h << U32(16)) if "mixhi" in insn.mnemonic else (old & U32(0xFFFF0000)) | h
    write_vector(ctx.wave, f.dst, out, 32)


# ---------------------------------------------------------------------------------------------- packed (VOP3P)


def _pk_halves(ctx, f: _Form, i: int, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """(low-result operand, high-result operand) of source i: op_sel picks for the low, op_sel_hi for the high."""
    op = f.srcs[i]
    osh = f.op_sel_hi if f.op_sel_hi is not None else [1, 1, 1]
    if bits == 16:
        if op.kind is OperandKind.INLINE and isinstance(op.value, float):
            # a float inline constant is the f16 value in both halves (LLVM folds <c, c> to it); an integer one is
            # its 32-bit sign-extended value
            v = read_vector(ctx.wave, op, 16, "f")
            v = v | (v << U32(16))
        else:
            v = read_vector(ctx.wave, op, 32)
        lo = _half(v, bool(_bit(f.op_sel, i)))
        hi = _half(v, bool(_bit(osh, i)))
    else:
        if op.kind in (OperandKind.INLINE, OperandKind.LITERAL):
            # a constant is the same f32 in both dwords (LLVM assembles `v_pk_fma_f32 ..., 1.0` with the default
            # op_sel_hi to mean <1.0, 1.0>)
            c = read_vector(ctx.wave, op, 32, "f").astype(U64)
            v = c | (c << U64(32))
        else:
            v = read_vector(ctx.wave, op, 64)
        lo = ((v >> U64(32)) if _bit(f.op_sel, i) else v) & U64(M32)
        hi = ((v >> U64(32)) if _bit(osh, i) else v) & U64(M32)
        lo, hi = lo.astype(U32), hi.astype(U32)
    return lo, hi


def _pk_float(fn, nsrc: int, bits: int, exact, addends=None):
    def run(ctx, insn):
        rnd = _rnd(ctx, bits)
        f = _form(insn)
        keep_in = _denorm(ctx, bits)[0]
        res = []
        for half in (0, 1):
            us = []
            for i in range(nsrc):
                lo, hi = _pk_halves(ctx, f, i, bits)
                u = _apply_negabs(hi if half else lo, set(),  bits, _bit(f.neg_hi if half else f.neg_lo, i))
                us.append(u if keep_in else _flush(u, bits))
            xs = [_as_float(u, bits) for u in us]
            with fp_errstate(all="ignore"):
                r = fn(*xs)
            nan_in = np.zeros(ctx.wave.lanes, dtype=bool)
            for u in us:
                nan_in |= _is_nan(u, bits)
            rb = _as_bits(r, bits)
            if rnd:
                rb = directed(us, bits, rb, bits, rnd, exact, addends)
            res.append(_finish(ctx, f, rb, bits, nan_in, rnd=rnd))
        if bits == 16:
            write_vector(ctx.wave, f.dst, res[0].astype(U32) | (res[1].astype(U32) << U32(16)), 32)
        else:
            write_vector(ctx.wave, f.dst, res[0].astype(U64) | (res[1].astype(U64) << U64(32)), 64)

    return run


for _w, _s in ((16, "f16"), (32, "f32")):
    semantic(f"v_pk_add_{_s}")(_pk_float(lambda a, b: a + b, 2, _w, _ADD_EXACT, _ADD_ADDENDS))
    semantic(f"v_pk_mul_{_s}")(_pk_float(lambda a, b: a * b, 2, _w, _MUL_EXACT))
    semantic(f"v_pk_fma_{_s}")(_pk_float(_fma_of, 3, _w, _FMA_EXACT, _FMA_ADDENDS))


@semantic("v_dot2_f32_f16", "v_dot2c_f32_f16", "v_dot2acc_f32_f16", "v_dot2_f32_bf16")
def v_dot2_f32_f16(ctx, insn):
    """The two f16 (bf16) products of packed sources S0 and S1 (f32 multiplies: exact for f16, for bf16 unless they
    overflow or underflow) added to an f32 accumulator (S2, or D for the VOP2 `c`/`acc` forms) in the order and
    precision the ISA's pseudocode gives: tmp = S2; tmp += lo * lo; tmp += hi * hi, each rounded to f32 (nearest
    even). op_sel/op_sel_hi pick the halves, neg_lo/neg_hi negate them, clamp and the denormal modes (f16's for
    f16 elements, f32's for bf16 and the result) apply. Whether the hardware instead rounds the three-term sum once
    is not documented: docs/emulator.md says which order this is."""
    rnd = _rnd(ctx, 32)
    if rnd:
        raise Unsupported(f"{insn.text} (FP_ROUND {rnd}: this operation has no directed rounding here)",
                          insn.address)
    f = _form(insn)
    if f.mods[0] or f.mods[1]:  # (VOP3P negates halves with neg_lo/neg_hi; a text modifier is some other form)
        raise Unsupported(f"{insn.text} (a source modifier on a packed dot product: not modelled)", insn.address)
    bf16 = insn.mnemonic.endswith("bf16")
    if bf16 and any(o.kind is OperandKind.INLINE and isinstance(o.value, float) for o in f.srcs[:2]):
        raise Unsupported(f"{insn.text} (a float constant as packed bf16: not modelled)", insn.address)
    lanes = ctx.wave.lanes
    keep_in = _denorm(ctx, 32 if bf16 else 16)[0]
    nan_in = np.zeros(lanes, dtype=bool)
    products = []
    for part in (0, 1):
        xs = []
        for i in (0, 1):
            lo, hi = _pk_halves(ctx, f, i, 16)
            u = _apply_negabs(hi if part else lo, set(), 16, _bit(f.neg_hi if part else f.neg_lo, i))
            if bf16:  # a bf16 is the high half of the f32 with the same value
                u = u.astype(U32) << U32(16)
                u = u if keep_in else _flush(u, 32)
                nan_in |= _is_nan(u, 32)
                xs.append(_as_float(u, 32))
                continue
            u = u if keep_in else _flush(u, 16)
            nan_in |= _is_nan(u, 16)
            xs.append(_as_float(u, 16).astype(np.float32))
        with fp_errstate(all="ignore"):
            products.append(xs[0] * xs[1])
    if len(f.srcs) >= 3:
        c = _apply_negabs(_raw(ctx, f.srcs[2], 32), f.mods[2], 32, _bit(f.neg_lo, 2))
    else:  # the VOP2 forms accumulate into the destination
        c = read_vector(ctx.wave, f.dst, 32)
    c = c if _denorm(ctx, 32)[0] else _flush(c, 32)
    nan_in |= _is_nan(c, 32)
    with fp_errstate(all="ignore"):
        acc = (_as_float(c, 32) + products[0]).astype(np.float32)
        acc = (acc + products[1]).astype(np.float32)
    fdst(ctx, insn, f, _finish(ctx, f, _as_bits(acc, 32), 32, nan_in), 32)


def _pk_minmax(is_min: bool, num: bool):
    def run(ctx, insn):
        f = _form(insn)
        res = []
        for half in (0, 1):
            us = []
            for i in range(2):
                lo, hi = _pk_halves(ctx, f, i, 16)
                u = _apply_negabs(hi if half else lo, set(), 16, _bit(f.neg_hi if half else f.neg_lo, i))
                us.append(u if _denorm(ctx, 16)[0] else _flush(u, 16))
            res.append(_finish(ctx, f, _minmax(ctx, us[0], us[1], 16, is_min, num), 16))
        write_vector(ctx.wave, f.dst, res[0].astype(U32) | (res[1].astype(U32) << U32(16)), 32)

    return run


semantic("v_pk_min_f16")(_pk_minmax(True, False))
semantic("v_pk_max_f16")(_pk_minmax(False, False))
semantic("v_pk_min_num_f16")(_pk_minmax(True, True))
semantic("v_pk_max_num_f16")(_pk_minmax(False, True))


def _pk_int(fn, nsrc: int, signed: bool, sat: bool = True):
    lo_lim, hi_lim = (-(1 << 15), (1 << 15) - 1) if signed else (0, 0xFFFF)

    def run(ctx, insn):
        f = _form(insn)
        if f.clamp and not sat:
            raise Unsupported(f"{insn.text} (clamp on this instruction is not emulated)", insn.address)
        res = []
        for half in (0, 1):
            xs = []
            for i in range(nsrc):
                lo, hi = _pk_halves(ctx, f, i, 16)
                x = (hi if half else lo).astype(np.int64)
                if signed:
                    x = np.where(x >> 15, x - (1 << 16), x)
                xs.append(x)
            r = fn(*xs)
            if f.clamp and sat:
                r = np.clip(r, lo_lim, hi_lim)
            res.append(r & 0xFFFF)
        write_vector(ctx.wave, f.dst, (res[0] | (res[1] << 16)).astype(U32), 32)

    return run


semantic("v_pk_add_u16")(_pk_int(lambda a, b: a + b, 2, False))
semantic("v_pk_add_i16")(_pk_int(lambda a, b: a + b, 2, True))
semantic("v_pk_sub_u16")(_pk_int(lambda a, b: a - b, 2, False))
semantic("v_pk_sub_i16")(_pk_int(lambda a, b: a - b, 2, True))
semantic("v_pk_mul_lo_u16")(_pk_int(lambda a, b: a * b, 2, False, False))
semantic("v_pk_mad_u16")(_pk_int(lambda a, b, c: a * b + c, 3, False))
semantic("v_pk_mad_i16")(_pk_int(lambda a, b, c: a * b + c, 3, True))
semantic("v_pk_min_u16")(_pk_int(np.minimum, 2, False))
semantic("v_pk_max_u16")(_pk_int(np.maximum, 2, False))
semantic("v_pk_min_i16")(_pk_int(np.minimum, 2, True))
semantic("v_pk_max_i16")(_pk_int(np.maximum, 2, True))
semantic("v_pk_lshlrev_b16")(_pk_int(lambda a, b: b << (a & 15), 2, False, False))
semantic("v_pk_lshrrev_b16")(_pk_int(lambda a, b: (b & 0xFFFF) >> (a & 15), 2, False, False))
semantic("v_pk_ashrrev_i16")(_pk_int(lambda a, b: b >> (a & 15), 2, True, False))


# ---------------------------------------------------------------------------------------------- DPP and SDWA

_DPP_RE = re.compile(r"\b(quad_perm|row_shl|row_shr|row_ror|wave_shl|wave_shr|wave_rol|wave_ror|row_mirror|"
                     r"row_half_mirror|row_bcast|row_share|row_xmask|row_newbcast|dpp8)\b")
_SDWA_SEL = {"BYTE_0": (0, 8), "BYTE_1": (8, 8), "BYTE_2": (16, 8), "BYTE_3": (24, 8), "WORD_0": (0, 16),
             "WORD_1": (16, 16), "DWORD": (0, 32)}


def _dpp_sources(insn, lanes: int) -> tuple[np.ndarray, bool]:
    """Per lane: the lane its src0 is read from (-1 = none/invalid), and whether the control is DPP8."""
    t = insn.text
    i = np.arange(lanes)
    row = i & ~15
    m = re.search(r"dpp8:\[([\d,]+)\]", t)
    if m:
        sel = [int(x) for x in m.group(1).split(",")]
        return (i & ~7) + np.array(sel)[i & 7], True
    m = re.search(r"quad_perm:\[([\d,]+)\]", t)
    if m:
        sel = [int(x) for x in m.group(1).split(",")]
        return (i & ~3) + np.array(sel)[i & 3], False
    if "row_half_mirror" in t:
        return (i & ~7) + (7 - (i & 7)), False
    if "row_mirror" in t:
        return row + (15 - (i & 15)), False
    m = re.search(r"(row_shl|row_shr|row_ror|wave_shl|wave_shr|wave_rol|wave_ror|row_bcast|row_share|row_xmask|"
                  r"row_newbcast):(\d+)", t)
    if not m:
        raise Unsupported(f"{t} (DPP control not recognised)", insn.address)
    kind, n = m.group(1), int(m.group(2))
    if kind == "row_shl":
        src = i + n
        return np.where((src & ~15) == row, src, -1), False
    if kind == "row_shr":
        src = i - n
        return np.where((src >= 0) & ((src & ~15) == row), src, -1), False
    if kind == "row_ror":
        return row + (((i & 15) - n) & 15), False
    if kind in ("row_share", "row_newbcast"):
        return row + n, False
    if kind == "row_xmask":
        return row + ((i & 15) ^ n), False
    if kind == "wave_shl":
        return np.where(i + 1 < lanes, i + 1, -1), False
    if kind == "wave_shr":
        return np.where(i >= 1, i - 1, -1), False
    if kind == "wave_rol":
        return (i + 1) % lanes, False
    if kind == "wave_ror":
        return (i - 1) % lanes, False
    if kind == "row_bcast":  # gfx9: the last lane of the previous row (15) or lane 31 for the upper half (31)
        if n == 15:
            return np.where(i >= 16, row - 1, -2), False
        return np.where(i >= 32, 31, -2), False
    raise Unsupported(f"{t} (DPP control {kind})", insn.address)


def _temp_operand(op, reg: int, count: int, mods: set):
    keep = tuple(x for x in ("neg", "abs", "hi") if x in mods)
    suffix = ".h" if op.text.endswith(".h") else ".l" if op.text.endswith(".l") else ""
    text = (f"v{reg}" if count == 1 else f"v[{reg}:{reg + count - 1}]") + suffix
    return dataclasses.replace(op, kind=OperandKind.VGPR, register=reg, count=count, text=text, modifiers=keep)


def _writes_lane_mask(insn) -> bool:
    vd, sd, _ = _split(insn)
    return insn.encoding.startswith("VOPC") or bool(sd) or any(
        k in insn.mnemonic for k in ("_co_", "addc", "subb", "_cmp"))


def _base_of(insn):
    """The instruction with its DPP/SDWA suffixes removed (text keeps the modifiers for reading them)."""
    mn = insn.mnemonic
    for s in ("_e64_dpp", "_e32_dpp", "_dpp", "_sdwa"):
        if mn.endswith(s):
            mn = mn[: -len(s)]
            break
    enc = re.sub(r"_(DPP8|DPP16|DPP|SDWA)$", "", insn.encoding)
    fn = SEMANTICS.get(mn)
    if fn is None:
        from amddbg.emu.semantics import base_mnemonic

        fn = SEMANTICS.get(base_mnemonic(mn))
    return mn, enc, fn


@semantic("__dpp__")
def dpp(ctx, insn):
    """DPP: src0 is read from another lane (quad_perm, row shifts/rotates, mirrors, broadcasts, share/xmask,
    DPP8); row_mask/bank_mask disable writes; an invalid source lane reads 0 with bound_ctrl, otherwise the lane is
    not written. Unknown hardware results (DPP8 reading an inactive lane without fi, row_bcast into row 0, a masked
    lane of a lane-mask-writing instruction) stop the wave as unsupported rather than guess."""
    w = ctx.wave
    mn, enc, fn = _base_of(insn)
    if fn is None or fn is dpp:
        raise Unsupported(insn.text, insn.address)
    vd, sd, ss = _split(insn)
    if not ss or ss[0].kind not in (OperandKind.VGPR,):
        raise Unsupported(f"{insn.text} (DPP source 0 is not a VGPR)", insn.address)
    src_lane, is8 = _dpp_sources(insn, w.lanes)
    t = insn.text
    fi = re.search(r"\bfi:1\b", t) is not None
    bound = "bound_ctrl:" in t  # LLVM prints it only when the BOUND_CTRL bit is set (gfx9 syntax bound_ctrl:0)
    exec_mask = w.exec_mask()
    write = exec_mask.copy()
    if not is8:
        rm = re.search(r"row_mask:(0x[0-9a-fA-F]+|\d+)", t)
        bm = re.search(r"bank_mask:(0x[0-9a-fA-F]+|\d+)", t)
        rmask = int(rm.group(1), 0) if rm else 0xF
        bmask = int(bm.group(1), 0) if bm else 0xF
        i = np.arange(w.lanes)
        write &= ((rmask >> ((i >> 4) & 3)) & 1).astype(bool) & ((bmask >> ((i >> 2) & 3)) & 1).astype(bool)
    if np.any(write & (src_lane == -2)):
        raise Unsupported(f"{t} (row_bcast into the first row: not modelled)", insn.address)
    in_range = (src_lane >= 0) & (src_lane < w.lanes)
    safe = np.where(in_range, src_lane, 0)
    src_active = exec_mask[safe] & in_range
    valid = in_range & (src_active | fi)
    if is8 and np.any(write & in_range & ~valid):
        raise Unsupported(f"{t} (DPP8 read of an inactive lane without fi:1)", insn.address)
    zero_fill = ~valid & bound
    write &= valid | bound
    if _writes_lane_mask(insn) and not np.array_equal(write, exec_mask):
        raise Unsupported(f"{t} (DPP mask on a lane-mask-writing instruction)", insn.address)
    op0 = ss[0]
    count = max(op0.count, 2 if "f64" in mn or "b64" in mn else 1)
    regs_needed = max([w.v.shape[0]] + [o.register + o.count for o in insn.operands
                                        if o.kind is OperandKind.VGPR and o.register is not None])
    w.ensure_vgprs(regs_needed + count)
    tmp = regs_needed
    for k in range(count):
        vals = w.v[op0.register + k][safe]
        w.v[tmp + k] = np.where(zero_fill, U32(0), vals).astype(U32)
    texts = source_texts(insn)
    mods0 = set(op0.modifiers) | _text_mods(texts[0])
    # Sources by position, never by identity or equality: `v_or_b32_dpp v1, v1, v1 row_shr:1` (a wave reduction's
    # step) has two equal source operands (the decoder may hand out one object for both), and only src0 is read
    # through the DPP lane selection; src1 is the lane's own v1.
    at = {i: k for k, i in enumerate(source_indices(insn))}
    new_ops = [o if i not in at else _temp_operand(o, tmp, count, mods0) if at[i] == 0 else
               _with_text_mods(o, texts, at[i]) for i, o in enumerate(insn.operands)]
    base = dataclasses.replace(insn, mnemonic=mn, encoding=enc, operands=tuple(new_ops))
    saved_exec = w.exec
    w.exec = w.to_mask(write)
    try:
        fn(ctx, base)
    finally:
        if w.exec == w.to_mask(write):
            w.exec = saved_exec
        w.v = w.v[:max(regs_needed, 1)]


def _with_text_mods(o, texts, k: int):
    """Operands of DPP/SDWA forms carry neg/abs/sext only in the text (`texts`: source_texts); put them back on
    source operand `k` (its position among the sources)."""
    if o.is_dest or k >= len(texts):
        return o
    t = texts[k]
    mods = tuple(sorted(set(o.modifiers) | (_text_mods(t) & {"neg", "abs", "sext"})))
    return dataclasses.replace(o, modifiers=mods) if mods != o.modifiers else o


def _sdwa_form(insn) -> tuple:
    """What an SDWA instruction's execution derives from its text and operands, once per instruction: the base
    operation, each source's operand index, operand, select and sign extension, the destination select and
    padding, the highest VGPR its operands name, and (filled as executions need them) the base instruction that
    reads the extracted sources from temporary VGPRs placed after a given register-file size."""
    mn, enc, fn = _base_of(insn)
    vd, sd, ss = _split(insn)
    texts = source_texts(insn)
    ops = insn.operands
    sources = []
    at = -1  # operand index of the source before this one: `v_xor_b32_sdwa v0, v0, v0` has two equal sources
    for k, o in enumerate(ss):
        at = next(j for j in range(at + 1, len(ops)) if ops[j] is o or (ops[j] == o and not ops[j].is_dest))
        t = texts[k]
        mods = set(o.modifiers) | _text_mods(t)
        m = re.search(rf"src{k}_sel:(\w+)", insn.text)
        sel = _SDWA_SEL.get(m.group(1), (0, 32)) if m else (0, 32)
        if o.kind is OperandKind.SPECIAL and o.text in ("vcc", "vcc_lo") and k >= 2:
            continue
        sources.append((k, at, o, sel, "sext" in mods, mods))
    dsel_m = re.search(r"dst_sel:(\w+)", insn.text)
    dsel = _SDWA_SEL.get(dsel_m.group(1), (0, 32)) if dsel_m else (0, 32)
    pad = "preserve" if "UNUSED_PRESERVE" in insn.text else "sext" if "UNUSED_SEXT" in insn.text else "zero"
    top = max([o.register + o.count for o in ops if o.kind is OperandKind.VGPR and o.register is not None],
              default=0)
    return mn, enc, fn, vd, len(ss), tuple(sources), dsel, pad, top, {}


_SDWA_FORMS: dict = {}


@semantic("__sdwa__")
def sdwa(ctx, insn):
    """SDWA (GFX9): each source's selected byte/word is zero- or sign-extended (sext) before the base operation;
    the result's dst_sel field is written with the rest padded with zeros, sign-extended or preserved."""
    w = ctx.wave
    mn, enc, fn, vd, nsrc, sources, dsel, pad, top, bases = per_insn_cache(_SDWA_FORMS, insn, _sdwa_form)
    if fn is None or fn is sdwa:
        raise Unsupported(insn.text, insn.address)
    regs_needed = max(w.v.shape[0], top)
    w.ensure_vgprs(regs_needed + nsrc)
    for k, _at, o, (off, width), sext, _mods in sources:
        v = read_vector(w, o, 32)
        if width < 32:
            v = (v >> U32(off)) & U32((1 << width) - 1)
            if sext:
                v = np.where(v >> U32(width - 1) & U32(1), v | U32(M32 ^ ((1 << width) - 1)), v).astype(U32)
        w.v[regs_needed + k] = v.astype(U32)
    base = bases.get(regs_needed)
    if base is None:  # (one per register-file size: the inner semantics then derive their own forms once too)
        new_ops = list(insn.operands)
        for k, at, o, _sel, _sext, mods in sources:
            new_ops[at] = _temp_operand(o, regs_needed + k, 1, mods)
        base = bases[regs_needed] = dataclasses.replace(insn, mnemonic=mn, encoding=enc, operands=tuple(new_ops))
    old = read_vector(w, vd[0], 32) if vd else None
    try:
        fn(ctx, base)
        if vd and dsel != (0, 32):
            off, width = dsel
            new = read_vector(w, vd[0], 32)
            field = (new & U32((1 << width) - 1)) << U32(off)
            if pad == "preserve":
                out = (old & U32(M32 ^ (((1 << width) - 1) << off))) | field
            elif pad == "sext":
                top_bit = (new >> U32(width - 1)) & U32(1)
                out = field | np.where(top_bit == 1, U32(M32 ^ ((1 << (off + width)) - 1)), U32(0))
            else:
                out = field
            write_vector(w, vd[0], out.astype(U32), 32)
    finally:
        w.v = w.v[:max(regs_needed, 1)]


def is_dpp(insn) -> bool:
    """DPP forms: the `_dpp` mnemonics, and GFX11+ VOPC DPP that the decoder names without the suffix."""
    text = getattr(insn, "text", "")
    return insn.mnemonic.endswith("_dpp") or (insn.mnemonic.startswith("v_") and _DPP_RE.search(text) is not None)


def modifier_semantic(insn):
    """The DPP or SDWA wrapper for `insn`, or None when it has neither (used by `semantics.lookup`)."""
    if insn.mnemonic.endswith("_sdwa") or getattr(insn, "encoding", "").endswith("SDWA"):
        return sdwa
    if is_dpp(insn):
        return dpp
    return None


# s_denorm_mode / s_round_mode (GFX10+) write MODE's FP_DENORM / FP_ROUND fields, which the float ops read
@semantic("s_denorm_mode")
def s_denorm_mode(ctx, insn):
    imm = int(insn.operands[0].value or 0) if insn.operands else 0
    ctx.wave.mode = (ctx.wave.mode & ~0xF0) | ((imm & 0xF) << 4)


@semantic("s_round_mode")
def s_round_mode(ctx, insn):
    imm = int(insn.operands[0].value or 0) if insn.operands else 0
    ctx.wave.mode = (ctx.wave.mode & ~0xF) | (imm & 0xF)



@semantic("v_pack_b32_f16")
def v_pack_b32_f16(ctx, insn):
    """D = {S1.f16, S0.f16}: two halves (op_sel picks each source's half) with neg/abs applied."""
    f = _form(insn)
    lo = fsrc(ctx, f, 0, 16).astype(U32)
    hi = fsrc(ctx, f, 1, 16).astype(U32)
    write_vector(ctx.wave, f.dst, lo | (hi << U32(16)), 32)


_S_TRANS = {"rcp": _rcp, "rsq": _rsq, "sqrt": np.sqrt,
            "exp": lambda a: np.exp2(a.astype(np.float64)).astype(a.dtype),
            "log": lambda a: np.log2(a.astype(np.float64)).astype(a.dtype)}


def _s_trans(name: str, bits: int):
    """GFX12 v_s_<op>_f32/f16: a transcendental on a scalar operand written to an SGPR (one value per wave)."""
    exact = {"rcp": _rcp_exact, "sqrt": _sqrt_exact(bits), "rsq": _via64(lambda x: 1.0 / np.sqrt(x)),
             "exp": _via64(np.exp2), "log": _via64(np.log2)}[name]

    def run(ctx, insn):
        from amddbg.emu.operands import read_scalar, write_scalar

        rnd = _rnd(ctx, bits)
        f = _form(insn)
        u = np.array([read_scalar(ctx.wave, f.srcs[0], 16 if bits == 16 else 32, "f")], dtype=_T[bits][1])
        if bits == 16:
            u = u & U16(0xFFFF)
        u = _apply_negabs(u, f.mods[0], bits)
        if not _denorm(ctx, bits)[0]:
            u = _flush(u, bits)
        with fp_errstate(all="ignore"):
            r = _as_bits(_S_TRANS[name](_as_float(u, bits)), bits)
        if rnd:
            r = directed([u], bits, r, bits, rnd, exact)
        out = _finish(ctx, f, r, bits, _is_nan(u, bits), rnd=rnd)
        write_scalar(ctx.wave, f.sdst, int(out[0]))

    return run


for _n in _S_TRANS:
    semantic(f"v_s_{_n}_f32")(_s_trans(_n, 32))
    semantic(f"v_s_{_n}_f16")(_s_trans(_n, 16))


@semantic("v_cndmask_b32")
def v_cndmask_b32(ctx, insn):
    """Per lane S2 ? S1 : S0. The e64 form applies float neg/abs to S0/S1 (the GFX9 decoder leaves those
    modifiers only in the text, which _form reads), so it lives with the float modifiers."""
    f = _form(insn)
    a, b = (_apply_negabs(_raw(ctx, f.srcs[i], 32), f.mods[i], 32) for i in range(2))
    sel = read_lane_mask(ctx, f.srcs[2] if len(f.srcs) > 2 else None)
    write_vector(ctx.wave, f.dst, np.where(sel, b, a).astype(U32), 32)


# -- integer clamp: the same VOP3 clamp bit saturates integer add/sub (unsigned or signed per opcode)

_INT_CLAMP = {
    "v_add_u32": ("add", False), "v_add_nc_u32": ("add", False), "v_sub_u32": ("sub", False),
    "v_sub_nc_u32": ("sub", False), "v_subrev_u32": ("subrev", False), "v_subrev_nc_u32": ("subrev", False),
    "v_add_i32": ("add", True), "v_add_nc_i32": ("add", True), "v_sub_i32": ("sub", True),
    "v_sub_nc_i32": ("sub", True),
}


def _int_clamp(name: str, base):
    kind, signed = _INT_CLAMP[name]

    def run(ctx, insn):
        f = _form(insn)
        if not f.clamp:
            return base(ctx, insn)
        a, b = (read_vector(ctx.wave, f.srcs[i], 32).astype(np.int64) for i in range(2))
        if signed:
            a, b = (np.where(x >> 31, x - (1 << 32), x) for x in (a, b))
        r = a + b if kind == "add" else a - b if kind == "sub" else b - a
        lo, hi = (-(1 << 31), (1 << 31) - 1) if signed else (0, M32)
        write_vector(ctx.wave, f.dst, (np.clip(r, lo, hi) & M32).astype(U32), 32)

    run.__wrapped__ = base  # without clamp it is `base` (fastpath's closures of the plain forms look through)
    return run


for _n in _INT_CLAMP:
    _base = SEMANTICS.get(_n)
    if _base is not None:
        semantic(_n)(_int_clamp(_n, _base))


def _clamp_guard(fn):
    """valu's operations apply no clamp; a clamp bit on one of them stops the wave instead of being ignored."""

    def run(ctx, insn):
        t = insn.text
        if t.endswith(" clamp") or " clamp " in t:
            raise Unsupported(f"{t} (clamp on this instruction is not emulated)", insn.address)
        return fn(ctx, insn)

    run.__wrapped__ = fn
    return run


for _n, _fn in list(SEMANTICS.items()):
    if (_n.startswith("v_") and getattr(_fn, "__module__", "") == "amddbg.emu.semantics.valu"
            and not getattr(_fn, "handles_clamp", False) and _n not in ("v_dual",)):
        SEMANTICS[_n] = _clamp_guard(_fn)
