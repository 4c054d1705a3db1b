"""Closures for the plain 32-bit integer VALU operations and the true16 moves that write the VGPR in place.

fastpath.py's general closures for a binary or ternary integer operation call the generic lane function
(`valu._binop`/`_ternop`: `a + b`, `(a << (b & 31)) | c`...) on source arrays read through helper functions, and
copy the new array into the destination row. Integer hash loops and address arithmetic are made of these, so
their per-instruction cost decides those kernels' speed. Here the same operations are written as numpy ufunc calls
with `out=` the destination row when EXEC is full (no temporary for a one-ufunc operation, no helper calls), and
into a temporary copied in the lanes of EXEC otherwise: the same lane values as the lane functions (uint32
arithmetic wraps; shift amounts masked to 5 bits as valu._sh masks them). v_alignbit/v_alignbyte with a constant
shift become two shifts and an or (the 64-bit funnel shift of the lane function, when the amount is fixed).
The GFX11+ true16 moves and logic ops between named VGPR halves work on a uint16 view of the VGPR file (the
half written in place, the other half untouched, as valu._dst16 keeps it).

tests/emu/test_fastpath.py compares every closure with the generic semantics on random wave states for the
instructions of the oracle corpus (full and partial EXEC), and test_fastint.py the forms built here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from amddbg.emu.wave import lane_bools

U32 = np.uint32
U16 = np.uint16
_add, _sub, _and, _or, _xor = np.add, np.subtract, np.bitwise_and, np.bitwise_or, np.bitwise_xor
_shl, _shr, _mul = np.left_shift, np.right_shift, np.multiply
_copyto = np.copyto
_M5 = U32(31)

# base mnemonic -> (ufunc, the sources in the ufunc's order as indices into (a, b), shift: the second is a shift
# amount masked to 5 bits)
BINOPS: dict[str, tuple] = {}
for _names, _uf, _order, _shift in (
        (("v_add_u32", "v_add_nc_u32", "v_add_i32", "v_add_nc_i32"), _add, (0, 1), False),
        (("v_sub_u32", "v_sub_nc_u32", "v_sub_i32", "v_sub_nc_i32"), _sub, (0, 1), False),
        (("v_subrev_u32", "v_subrev_nc_u32"), _sub, (1, 0), False),
        (("v_and_b32",), _and, (0, 1), False), (("v_or_b32",), _or, (0, 1), False),
        (("v_xor_b32",), _xor, (0, 1), False),
        (("v_lshlrev_b32",), _shl, (1, 0), True), (("v_lshrrev_b32",), _shr, (1, 0), True),
        (("v_lshl_b32",), _shl, (0, 1), True), (("v_lshr_b32",), _shr, (0, 1), True),
        (("v_mul_lo_u32", "v_mul_lo_i32"), _mul, (0, 1), False),
        (("v_min_u32",), np.minimum, (0, 1), False), (("v_max_u32",), np.maximum, (0, 1), False)):
    for _n in _names:
        BINOPS[_n] = (_uf, _order, _shift)

# base mnemonic -> (first ufunc on (a, b), whether b is a shift amount, second ufunc on (first, c), whether c is one)
TERNOPS: dict[str, tuple] = {
    "v_add3_u32": (_add, False, _add, False),
    "v_lshl_add_u32": (_shl, True, _add, False),
    "v_add_lshl_u32": (_add, False, _shl, True),
    "v_lshl_or_b32": (_shl, True, _or, False),
    "v_and_or_b32": (_and, False, _or, False),
    "v_or3_b32": (_or, False, _or, False),
    "v_xor3_b32": (_xor, False, _xor, False),
    "v_xad_u32": (_xor, False, _add, False),
}


def _getter(src, shift: bool = False):
    """(kind, value) for a closure: 'v' and a register, 'c' and a uint32 constant (masked when a shift amount),
    's' and an SGPR."""
    kind, val = src
    if kind == "c":
        return "c", U32(val & 31 if shift else val)
    return kind, val


def _need(dreg: int, *srcs) -> int:
    return max([dreg] + [r for k, r in srcs if k == "v"]) + 1


def binop(base: str, dreg: int, a, b) -> Callable | None:
    """The closure of a plain two-source integer operation (sources as fastpath._vector_source gives them), or
    None when `base` is not one of BINOPS."""
    spec = BINOPS.get(base)
    if spec is None:
        return None
    uf, order, shift = spec
    srcs = (a, b)
    xk, xv = _getter(srcs[order[0]])
    yk, yv = _getter(srcs[order[1]], shift)
    need = _need(dreg, srcs[0], srcs[1])

    def run(ctx, insn):
        w = ctx.wave
        v = w.v
        if len(v) < need:
            w.ensure_vgprs(need)
            v = w.v
        x = v[xv] if xk == "v" else (xv if xk == "c" else U32(w.s[xv]))
        if yk == "v":
            y = v[yv] & _M5 if shift else v[yv]
        else:
            y = yv if yk == "c" else U32(w.s[yv] & 31 if shift else w.s[yv])
        ex = w.exec
        if ex == w.mask:
            uf(x, y, out=v[dreg])
        elif ex:
            _copyto(v[dreg], uf(x, y, dtype=U32), where=lane_bools(ex, w.lanes), casting="unsafe")
    return run


def ternop(base: str, dreg: int, a, b, c) -> Callable | None:
    """The closure of a plain three-source integer operation of TERNOPS, or of v_alignbit/v_alignbyte with a
    constant shift; None otherwise."""
    if base in ("v_alignbit_b32", "v_alignbyte_b32"):
        if c[0] != "c":
            return None
        k = (c[1] & 31) if base == "v_alignbit_b32" else (c[1] & 3) * 8
        return _funnel(dreg, a, b, k)
    spec = TERNOPS.get(base)
    if spec is None:
        return None
    f1, s1, f2, s2 = spec
    ak, av = _getter(a)
    bk, bv = _getter(b, s1)
    ck, cv = _getter(c, s2)
    need = _need(dreg, a, b, c)

    def run(ctx, insn):
        w = ctx.wave
        v = w.v
        if len(v) < need:
            w.ensure_vgprs(need)
            v = w.v
        x = v[av] if ak == "v" else (av if ak == "c" else U32(w.s[av]))
        if bk == "v":
            y = v[bv] & _M5 if s1 else v[bv]
        else:
            y = bv if bk == "c" else U32(w.s[bv] & 31 if s1 else w.s[bv])
        if ck == "v":
            z = v[cv] & _M5 if s2 else v[cv]
        else:
            z = cv if ck == "c" else U32(w.s[cv] & 31 if s2 else w.s[cv])
        t = f1(x, y, dtype=U32)
        ex = w.exec
        if ex == w.mask:
            f2(t, z, out=v[dreg])
        elif ex:
            _copyto(v[dreg], f2(t, z, dtype=U32), where=lane_bools(ex, w.lanes), casting="unsafe")
    return run


def _funnel(dreg: int, a, b, k: int) -> Callable:
    """D = ((a << 32 | b) >> k)[31:0] for a fixed k in 0..31: b >> k | a << (32 - k)."""
    ak, av = _getter(a)
    bk, bv = _getter(b)
    need = _need(dreg, a, b)
    kr, kl = U32(k), U32(32 - k)

    def run(ctx, insn):
        w = ctx.wave
        v = w.v
        if len(v) < need:
            w.ensure_vgprs(need)
            v = w.v
        x = v[av] if ak == "v" else (av if ak == "c" else U32(w.s[av]))
        y = v[bv] if bk == "v" else (bv if bk == "c" else U32(w.s[bv]))
        if k:
            r = _or(_shr(y, kr, dtype=U32), _shl(x, kl, dtype=U32))
        else:
            r = y
        ex = w.exec
        if ex == w.mask:
            v[dreg] = r
        elif ex:
            _copyto(v[dreg], r, where=lane_bools(ex, w.lanes), casting="unsafe")
    return run


_LOGIC16 = {"v_and_b16": _and, "v_or_b16": _or, "v_xor_b16": _xor}


def half16(base: str, d: int, dhi: bool, srcs: list, generic: Callable) -> Callable | None:
    """GFX11+ true16 v_mov_b16 / v_and_b16 / v_or_b16 / v_xor_b16 between VGPR halves and constants (sources as
    fastpath._half16 gives them: ('v', register, high half) or ('c', 16-bit value, False)), in place on the
    uint16 view of the VGPR file: lane L's low half of register R is element 2L of row R (little-endian)."""
    fn = None if base == "v_mov_b16" else _LOGIC16.get(base)
    if fn is None and base != "v_mov_b16":
        return None
    ss = [("v", r, 1 if hi else 0) if k == "v" else ("c", U16(r), 0) for k, r, hi in srcs]
    need = max([d] + [x[1] for x in ss if x[0] == "v"]) + 1
    do = 1 if dhi else 0
    (k0, r0, h0) = ss[0]
    (k1, r1, h1) = ss[1] if len(ss) > 1 else ("c", U16(0), 0)

    def run(ctx, insn):
        w = ctx.wave
        v = w.v
        if len(v) < need:
            w.ensure_vgprs(need)
            v = w.v
        if not v.flags.c_contiguous:
            return generic(ctx, insn)
        h = v.view(U16)
        x = h[r0, h0::2] if k0 == "v" else r0
        if fn is not None:
            x = fn(x, h[r1, h1::2] if k1 == "v" else r1, dtype=U16)
        ex = w.exec
        if ex == w.mask:
            h[d, do::2] = x
        elif ex:
            _copyto(h[d, do::2], x, where=lane_bools(ex, w.lanes))
        return None
    return run
