"""Integer `clamp` (saturation) beyond 32-bit add/sub, and the integer multiply-add, dot-product and SAD operations
whose clamp forms compilers emit (LLVM: `uaddsat`/`saddsat`/`usubsat` on 16-bit and carry forms, the `sdot2`/
`udot4`/... intrinsics' clamp argument, `v_mad_u32_u24`'s and `v_mad_u64_u32`'s clamp bit).

Why a module of its own: each instruction here is valu's plain operation plus one rule, "the exact (unbounded)
result is saturated to the destination type's range when the VOP3 clamp bit is set" (ISA manuals, integer clamp:
unsigned results to [0, 2**n - 1], signed to [-2**(n-1), 2**(n-1) - 1]); keeping the rule in one place lets each
instruction compute its exact value once and either wrap it (no clamp) or saturate it. Imported after `vfloat`, so
its registrations replace valu's clamp-guarded versions; the unclamped path of an existing operation is valu's own.

What carries do under clamp: the destination saturates, the carry/borrow out (VCC or SGPR) is the one of the exact
operation (the clamp bit selects the result, not the flag). Not modelled (stop as unsupported when clamp is set):
clamp on operations that cannot overflow or whose clamp the manuals leave undefined (`v_mul_u32_u24`, `v_mul_lo_u16`,
`v_pk_mul_lo_u16`, min/max, shifts), `v_qsad`/`v_mqsad`.
"""

from __future__ import annotations

import re

import numpy as np

from amddbg.emu.errors import Unsupported
from amddbg.emu.operands import M32, read_vector, write_vector
from amddbg.emu.semantics import (
    SEMANTICS,
    semantic,
    vfloat,  # noqa: F401  (first: its clamp guard wraps valu's ops, replaced here)
)
from amddbg.emu.semantics.valu import _is_hi16, _isrc16, _op_sel, _split, fmt_clamp, read_lane_mask, write_lane_mask

U32 = np.uint32
U64 = np.uint64


def _sat(r, bits: int, signed: bool, clamp: bool):
    """The exact results r (a Python int or an int64 array) saturated to the `bits`-bit type's range with clamp;
    unchanged without (the caller wraps)."""
    if clamp:
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        r = min(max(r, lo), hi) if isinstance(r, int) else np.minimum(np.maximum(r, lo), hi)
    return r


def _s(v: np.ndarray, bits: int) -> np.ndarray:
    """Signed value of the low `bits` bits (int64)."""
    x = v.astype(np.int64) & ((1 << bits) - 1)
    return np.where(x >> (bits - 1) & 1, x - (1 << bits), x)


def _clamp_or(base_name: str):
    """Register a clamp-aware replacement of `base_name` whose unclamped path is the current registration."""

    def deco(fn):
        base = SEMANTICS.get(base_name)
        base = getattr(base, "__wrapped__", base)  # valu's function without vfloat's clamp guard (checked here)

        def run(ctx, insn):
            if not fmt_clamp(insn):
                if base is None:
                    return fn(ctx, insn, False)
                return base(ctx, insn)
            return fn(ctx, insn, True)

        run.__name__ = fn.__name__
        SEMANTICS[base_name] = run
        return fn

    return deco


# -- 24-bit multiply-add


def _mad24(signed: bool):
    def fn(ctx, insn, clamp):
        _, _, ss = _split(insn)
        a, b, c = (read_vector(ctx.wave, o, 32) for o in ss[:3])
        if signed:
            r = _s(a, 24) * _s(b, 24) + _s(c, 32)
        else:
            r = (a.astype(np.int64) & 0xFFFFFF) * (b.astype(np.int64) & 0xFFFFFF) + c.astype(np.int64)
        _dst32(ctx, insn, _sat(r, 32, signed, clamp))

    return fn


def _dst32(ctx, insn, r) -> None:
    vd, _, _ = _split(insn)
    write_vector(ctx.wave, vd[0], (np.asarray(r, dtype=np.int64) & M32).astype(U32), 32)


_clamp_or("v_mad_u32_u24")(_mad24(False))
_clamp_or("v_mad_i32_i24")(_mad24(True))


# -- carries (VOP3B forms: explicit carry out, and carry in for addc/subb)

_CARRY = {"v_add_co_u32": "add", "v_sub_co_u32": "sub", "v_subrev_co_u32": "subrev", "v_addc_co_u32": "addc",
          "v_add_co_ci_u32": "addc", "v_addc_u32": "addc", "v_subb_co_u32": "subb", "v_sub_co_ci_u32": "subb",
          "v_subb_u32": "subb", "v_subbrev_co_u32": "subbrev", "v_subrev_co_ci_u32": "subbrev",
          "v_subbrev_u32": "subbrev"}


def _carry(op: str):
    def fn(ctx, insn, clamp):
        _, sd, ss = _split(insn)
        a = read_vector(ctx.wave, ss[0]).astype(np.int64)
        b = read_vector(ctx.wave, ss[1]).astype(np.int64)
        cin = read_lane_mask(ctx, ss[2] if len(ss) > 2 else None).astype(np.int64) if op in (
            "addc", "subb", "subbrev") else 0
        r = {"add": a + b, "addc": a + b + cin, "sub": a - b, "subb": a - b - cin, "subrev": b - a,
             "subbrev": b - a - cin}[op]
        co = (r > M32) | (r < 0)
        _dst32(ctx, insn, _sat(r, 32, False, clamp))
        write_lane_mask(ctx, sd[0] if sd else None, co)

    return fn


for _n, _op in _CARRY.items():
    if _n in SEMANTICS:
        _clamp_or(_n)(_carry(_op))


# -- 16-bit add/sub (GFX9 v_add_u16/v_add_i16..., GFX10+ v_add_nc_u16/i16...)

_ADD16 = {"v_add_u16": ("add", False), "v_sub_u16": ("sub", False), "v_subrev_u16": ("subrev", False),
          "v_add_i16": ("add", True), "v_sub_i16": ("sub", True), "v_add_nc_u16": ("add", False),
          "v_sub_nc_u16": ("sub", False), "v_add_nc_i16": ("add", True), "v_sub_nc_i16": ("sub", True)}


def _dst16(ctx, insn, vd, values: np.ndarray, sel: list[int], nsrc: int, keep_gfx9: bool) -> None:
    """A 16-bit result: a named half (true16 .l/.h) or op_sel's destination bit picks the half; the other half is
    kept, except GFX9's VOP3 ALU ops without op_sel, which zero it (`keep_gfx9` False; LLVM's zeroesHigh16BitsOfDest:
    v_mad_u16/v_mad_i16 keep it)."""
    named = vd.text.endswith((".l", ".h"))
    hi = _is_hi16(vd) if named else (len(sel) > nsrc and sel[nsrc] == 1)
    keep = named or hi or keep_gfx9 or ctx.wave.family != "gfx9"
    old = read_vector(ctx.wave, vd, 32)
    vals = np.asarray(values).astype(np.int64).astype(U64).astype(U32) & U32(0xFFFF)
    if hi:
        new = (old & U32(0xFFFF)) | (vals << U32(16)) if keep else vals << U32(16)
    else:
        new = (old & U32(0xFFFF0000)) | vals if keep else vals
    write_vector(ctx.wave, vd, new)


def _src16(ctx, insn, ss, i: int, sel: list[int], signed: bool) -> np.ndarray:
    v = _isrc16(ctx, ss[i], sel[i] if i < len(sel) else 0).astype(np.int64)
    return np.where(v >> 15 & 1, v - (1 << 16), v) if signed else v


def _add16(op: str, signed: bool):
    def fn(ctx, insn, clamp):
        vd, _, ss = _split(insn)
        sel = _op_sel(insn)
        a, b = (_src16(ctx, insn, ss, i, sel, signed) for i in range(2))
        r = {"add": a + b, "sub": a - b, "subrev": b - a}[op]
        _dst16(ctx, insn, vd[0], _sat(r, 16, signed, clamp), sel, 2, False)

    return fn


for _n, (_op, _sg) in _ADD16.items():
    _clamp_or(_n)(_add16(_op, _sg))


# -- 16-bit multiply-add (v_mad_u16/i16: 16-bit result; v_mad_u32_u16/i32_i16: 32-bit result)


def _mad16(signed: bool, wide: bool):
    def fn(ctx, insn, clamp):
        vd, _, ss = _split(insn)
        sel = _op_sel(insn)
        a, b = (_src16(ctx, insn, ss, i, sel, signed) for i in range(2))
        if wide:
            c = read_vector(ctx.wave, ss[2], 32)
            r = a * b + (_s(c, 32) if signed else c.astype(np.int64))
            _dst32(ctx, insn, _sat(r, 32, signed, clamp))
        else:
            r = a * b + _src16(ctx, insn, ss, 2, sel, signed)
            _dst16(ctx, insn, vd[0], _sat(r, 16, signed, clamp), sel, 3, True)

    return fn


for _n, _sg, _wide in (("v_mad_u16", False, False), ("v_mad_i16", True, False), ("v_mad_u32_u16", False, True),
                       ("v_mad_i32_i16", True, True), ("v_mad_legacy_u16", False, False),
                       ("v_mad_legacy_i16", True, False)):
    _clamp_or(_n)(_mad16(_sg, _wide))


# -- 64-bit multiply-add


def _mad64(ctx, insn, clamp):
    _, sd, ss = _split(insn)
    a = read_vector(ctx.wave, ss[0])
    b = read_vector(ctx.wave, ss[1])
    c = read_vector(ctx.wave, ss[2], 64)
    signed = "i64" in insn.mnemonic
    out = np.empty(ctx.wave.lanes, dtype=U64)
    carry = np.zeros(ctx.wave.lanes, dtype=bool)
    for i, (x, y, z) in enumerate(zip(a.tolist(), b.tolist(), c.tolist(), strict=True)):
        if signed:
            x, y = x - (x >> 31 << 32), y - (y >> 31 << 32)
            z = z - (z >> 63 << 64)
            r = x * y + z
            carry[i] = not -(1 << 63) <= r < 1 << 63
        else:
            r = x * y + z
            carry[i] = r >> 64 != 0
        r = int(_sat(r, 64, signed, clamp))
        out[i] = r & ((1 << 64) - 1)
    vd, _, _ = _split(insn)
    write_vector(ctx.wave, vd[0], out, 64)
    if sd:
        write_lane_mask(ctx, sd[0], carry)


for _n in ("v_mad_u64_u32", "v_mad_i64_i32", "v_mad_co_u64_u32", "v_mad_co_i64_i32"):
    _clamp_or(_n)(_mad64)


# -- integer dot products: the exact sum of the element products and S2 (or D for the VOP2 `c` forms)

_DOT = {  # mnemonic: (element bits, signed elements (None: from neg_lo), signed result)
    "v_dot2_i32_i16": (16, True, True), "v_dot2_u32_u16": (16, False, False), "v_dot4_i32_i8": (8, True, True),
    "v_dot4_u32_u8": (8, False, False), "v_dot8_i32_i4": (4, True, True), "v_dot8_u32_u4": (4, False, False),
    "v_dot4_i32_iu8": (8, None, True), "v_dot8_i32_iu4": (4, None, True), "v_dot2c_i32_i16": (16, True, True),
    "v_dot4c_i32_i8": (8, True, True), "v_dot8c_i32_i4": (4, True, True),
}


def _elements(v: np.ndarray, bits: int, signed: bool) -> list[np.ndarray]:
    return [(_s(v >> U32(k), bits) if signed else ((v >> U32(k)).astype(np.int64) & ((1 << bits) - 1)))
            for k in range(0, 32, bits)]


def _dot(name: str):
    ebits, esigned, rsigned = _DOT[name]

    def fn(ctx, insn, clamp):
        vd, _, ss = _split(insn)
        t = insn.text
        hi = re.search(r"op_sel_hi:\[([01,]+)\]", t)
        if re.search(r"\bop_sel:\[", t) or (hi and "0" in hi.group(1)):
            raise Unsupported(f"{t} (op_sel on a dot product: not modelled)", insn.address)
        if esigned is None:  # GFX11 iu8/iu4: neg_lo[0]/[1] mark src0/src1 signed
            m = re.search(r"neg_lo:\[([01]),([01])", t)
            sg = (m.group(1) == "1", m.group(2) == "1") if m else (False, False)
        else:
            sg = (esigned, esigned)
        a, b = (read_vector(ctx.wave, o, 32) for o in ss[:2])
        if len(ss) >= 3:
            c = read_vector(ctx.wave, ss[2], 32)
        else:  # v_dot*c: the destination is the accumulator
            c = read_vector(ctx.wave, vd[0], 32)
        acc = _s(c, 32) if rsigned else c.astype(np.int64)
        for x, y in zip(_elements(a, ebits, sg[0]), _elements(b, ebits, sg[1]), strict=True):
            acc = acc + x * y
        _dst32(ctx, insn, _sat(acc, 32, rsigned, clamp))

    return fn


for _n in _DOT:
    _clamp_or(_n)(_dot(_n))


# -- sums of absolute differences (accumulated in 32 bits)


def _sad(kind: str):
    def fn(ctx, insn, clamp):
        _, _, ss = _split(insn)
        a, b, c = (read_vector(ctx.wave, o, 32) for o in ss[:3])
        if kind == "u32":
            s = np.abs(a.astype(np.int64) - b.astype(np.int64))
        else:
            bits = 16 if kind == "u16" else 8
            s = sum(np.abs(x - y) for x, y in zip(_elements(a, bits, False), _elements(b, bits, False), strict=True))
            if kind == "hi_u8":
                s = s << 16
        _dst32(ctx, insn, _sat(s + c.astype(np.int64), 32, False, clamp))

    return fn


for _n, _k in (("v_sad_u8", "u8"), ("v_sad_hi_u8", "hi_u8"), ("v_sad_u16", "u16"), ("v_sad_u32", "u32")):
    _clamp_or(_n)(_sad(_k))


def _msad(ctx, insn, clamp):
    """v_msad_u8: the byte SAD of S0 and S1 plus S2, skipping the bytes where S1 (the reference) is zero (the
    ISA's masked SAD; Mesa's msad_4x8 passes its reference as this instruction's S1)."""
    _, _, ss = _split(insn)
    a, b, c = (read_vector(ctx.wave, o, 32) for o in ss[:3])
    s = sum(np.where(y != 0, np.abs(x - y), 0) for x, y in zip(_elements(a, 8, False), _elements(b, 8, False),
                                                                strict=True))
    _dst32(ctx, insn, _sat(s + c.astype(np.int64), 32, False, clamp))


_clamp_or("v_msad_u8")(_msad)


@semantic("v_lerp_u8")
def v_lerp_u8(ctx, insn):
    """Per byte, the average of S0's and S1's unsigned bytes, rounded up where bit 0 of S2's byte is set and down
    otherwise: ((S0.b + S1.b + S2.b[0]) >> 1) for each of the four bytes."""
    if fmt_clamp(insn):
        raise Unsupported(f"{insn.text} (clamp on v_lerp_u8: the result cannot overflow; not modelled)", insn.address)
    _, _, ss = _split(insn)
    a, b, c = (read_vector(ctx.wave, o, 32).astype(np.int64) for o in ss[:3])
    out = np.zeros_like(a)
    for k in range(0, 32, 8):
        out |= ((((a >> k) & 0xFF) + ((b >> k) & 0xFF) + ((c >> k) & 1)) >> 1) << k
    _dst32(ctx, insn, out)
