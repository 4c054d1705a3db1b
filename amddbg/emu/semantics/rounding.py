"""Exact rounding of IEEE binary16/32/64 results in the four MODE.FP_ROUND directions.

Why a module of its own: the float semantics (vfloat, and salu's GFX12 scalar float) run round-to-nearest-even
through numpy, which is fast and cannot round any other way. When a kernel sets MODE.FP_ROUND (HIP's `__fadd_rd`,
`__fmul_ru`, ... are `s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 2), N` around the plain instruction; LLVM's
`llvm.set.rounding` and `llvm.fptrunc.round` give `s_setreg`/`s_round_mode`) the instruction takes a slow path
instead: per lane, the exact value of the operation as a `Fraction`, rounded once here. The MODE field is read once
per instruction, so nearest-even code pays one integer test.

MODE.FP_ROUND encoding (ISA manuals, "MODE register"; ROCm device-libs' ROUND_RTE/RTP/RTN/RTZ): 0 nearest even,
1 toward +infinity, 2 toward -infinity, 3 toward zero; bits 1:0 for f32, bits 3:2 for f64 and f16.
"""

from __future__ import annotations

import math
from fractions import Fraction

NEAREST, UP, DOWN, ZERO = 0, 1, 2, 3

# per width: precision p (with the hidden bit), minimum normal exponent, maximum exponent, exponent field all-ones
_FMT = {16: (11, -14, 15, 0x1F), 32: (24, -126, 127, 0xFF), 64: (53, -1022, 1023, 0x7FF)}


def round_mode(mode: int, bits: int) -> int:
    """MODE.FP_ROUND for a result of `bits` width (f32: bits 1:0; f64 and f16: bits 3:2)."""
    return (mode & 3) if bits == 32 else (mode >> 2) & 3


def _ge_pow2(num: int, den: int, e: int) -> bool:
    """num/den >= 2**e (num, den > 0)."""
    return num >= den << e if e >= 0 else num << -e >= den


def round_fraction(q: Fraction, bits: int, rnd: int) -> int:
    """The binary<bits> bit pattern of the exact non-zero rational q rounded in direction `rnd` (gradual underflow:
    denormal results are rounded on the denormal grid; overflow gives infinity or the largest finite value as the
    direction says)."""
    p, emin, emax, eall = _FMT[bits]
    neg = q < 0
    num, den = (-q.numerator if neg else q.numerator), q.denominator
    # e = floor(log2(|q|)), clamped to the normal range's bottom (the denormal grid has the quantum of emin)
    e = num.bit_length() - den.bit_length()
    if not _ge_pow2(num, den, e):
        e -= 1
    e = max(e, emin)
    shift = p - 1 - e  # |q| * 2**shift has p significant bits (fewer for denormals)
    if shift >= 0:
        n, rem = divmod(num << shift, den)
        rden = den
    else:
        n, rem = divmod(num, den << -shift)
        rden = den << -shift
    if rem:
        if rnd == NEAREST:
            up = 2 * rem > rden or (2 * rem == rden and n & 1)
        elif rnd == UP:
            up = not neg
        elif rnd == DOWN:
            up = neg
        else:
            up = False
        n += up
    # the encoding is ((e + bias - 1) << (p - 1)) + n for normals and denormals alike (a carry into 2**p moves up
    # one binade by itself)
    bias = -emin + 1
    field = ((e + bias - 1) << (p - 1)) + n
    sign = 1 << (bits - 1) if neg else 0
    if field >= eall << (p - 1):  # overflow
        inf = eall << (p - 1)
        to_inf = rnd == NEAREST or (rnd == UP and not neg) or (rnd == DOWN and neg)
        return sign | (inf if to_inf else inf - 1)
    return sign | field


def zero_sum_negative(addends: list[tuple[bool, bool]], rnd: int) -> bool:
    """Sign of an exactly-zero sum (IEEE 754 6.3): addends as (is zero, is negative). Toward -infinity the sum is
    -0 unless every addend is +0; in the other directions it is -0 only when every addend is -0."""
    if rnd == DOWN:
        return not all(z and not n for z, n in addends)
    return all(z and n for z, n in addends)


def signed(v: float) -> tuple[bool, bool]:
    """(is zero, is negative) of a finite float addend."""
    return v == 0, math.copysign(1.0, v) < 0


def product(x: float, y: float) -> tuple[bool, bool]:
    """(is zero, is negative) of the exact product x*y as an addend."""
    return x == 0 or y == 0, (math.copysign(1.0, x) < 0) != (math.copysign(1.0, y) < 0)


def sqrt_fraction(q: Fraction, bits: int) -> Fraction:
    """A rational that rounds like sqrt(q) (q > 0) to binary<bits> in every direction: sqrt(q) itself when it is
    rational, else a value strictly between two consecutive points of a grid 4 bits finer than the format's."""
    p = _FMT[bits][0]
    # scale by 4**s so the integer square root has at least p + 4 bits
    lg = q.numerator.bit_length() - q.denominator.bit_length()
    s = max(0, (2 * (p + 4) - lg) // 2 + 1)
    scaled_num = q.numerator << (2 * s)
    n, rem = divmod(scaled_num, q.denominator)
    r = math.isqrt(n)
    if rem == 0 and r * r == n:
        return Fraction(r, 1 << s)
    return Fraction(2 * r + 1, 1 << (s + 1))  # sqrt lies strictly inside (r, r + 1) / 2**s


def to_fraction(u: int, bits: int) -> Fraction:
    """The exact value of a finite binary<bits> pattern."""
    p, emin, _, _ = _FMT[bits]
    mant_bits = p - 1
    e = (u >> mant_bits) & _FMT[bits][3]
    m = u & ((1 << mant_bits) - 1)
    if e:
        m |= 1 << mant_bits
    else:
        e = 1
    v = Fraction(m) * Fraction(2) ** (e - (-emin + 1) - mant_bits)
    return -v if u >> (bits - 1) & 1 else v


def is_finite_bits(u: int, bits: int) -> bool:
    p, _, _, eall = _FMT[bits]
    return (u >> (p - 1)) & eall != eall


def to_float(u: int, bits: int) -> float:
    """A finite binary<bits> pattern as a Python float (exact; -0.0 kept)."""
    v = float(to_fraction(u, bits))
    return -v if v == 0 and u >> (bits - 1) & 1 else v


def directed(us: list, in_bits, near, out_bits: int, rnd: int, exact, addends=None, extra=()):
    """Per lane: `exact(*fractions)` (the operation's exact value, or None to keep the nearest-even result) rounded
    in direction `rnd` to binary<out_bits>. `us` are the inputs as bit-pattern arrays (`in_bits` their width, one
    for all or one per input), `near` the nearest-even result bits computed the fast way: lanes with a non-finite
    input keep it (infinities and NaNs do not depend on the direction), and so do exact zeros unless `addends`
    (a function of the inputs as signed floats giving (is zero, is negative) per addend) says the result is a sum,
    whose zero sign depends on the direction. `extra` arrays (integer operands) are passed to `exact` after the
    fractions, one Python int per lane."""
    import numpy as np

    widths = list(in_bits) if isinstance(in_bits, (list, tuple)) else [in_bits] * len(us)
    out = np.array(near, copy=True)
    rows = [u.tolist() for u in us]
    more = [np.asarray(x).tolist() for x in extra]
    sign = 1 << (out_bits - 1)
    for i in range(out.shape[0]):
        vals = [r[i] for r in rows]
        if not all(is_finite_bits(v, b) for v, b in zip(vals, widths, strict=True)):
            continue
        q = exact(*(to_fraction(v, b) for v, b in zip(vals, widths, strict=True)), *(m[i] for m in more))
        if q is None:
            continue
        if q == 0:
            if addends is not None:
                neg = zero_sum_negative(addends(*(to_float(v, b) for v, b in zip(vals, widths, strict=True))), rnd)
                out[i] = sign if neg else 0
            continue
        out[i] = round_fraction(q, out_bits, rnd)
    return out
