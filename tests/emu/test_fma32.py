"""The binary32 fma (`vfloat._fma_exact(..., 32)`: v_fma_f32, v_fmac/fmaak/fmamk, VOPD fmac, v_div_fmas) against
exact rationals, lane by lane: one rounding of a*b + c, including the lanes the binary64 shortcut must not take
(a binary64 sum that lands on a binary32 midpoint while the exact value does not, exact ties, subnormal and
overflowing results, zeros and infinities)."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from test_edges import QNAN, f32, fma32

from amddbg.emu.semantics.vfloat import _fma_exact


def _lanes(a: list[int], b: list[int], c: list[int]) -> list[int]:
    f = [np.array(x, dtype=np.uint32).view(np.float32) for x in (a, b, c)]
    with np.errstate(all="ignore"):
        return _fma_exact(f[0], f[1], f[2], 32).view(np.uint32).tolist()


def _reference(x: int, y: int, z: int):
    """test_edges.fma32, with the rounding next to the largest binary32 settled here (its tie search steps to
    infinity there): at or beyond MAX + half an ulp (2^103) the result is infinite (a tie goes to the even
    infinity), below it the largest finite value."""
    try:
        return fma32(x, y, z)
    except OverflowError:
        q = Fraction(f32(x)) * Fraction(f32(y)) + Fraction(f32(z))
        top = Fraction(float(np.finfo(np.float32).max)) + Fraction(2) ** 103
        mag = 0x7F800000 if abs(q) >= top else 0x7F7FFFFF
        return mag | (0x80000000 if q < 0 else 0)


def _check(a: list[int], b: list[int], c: list[int]) -> None:
    got = _lanes(a, b, c)
    for i, (x, y, z) in enumerate(zip(a, b, c, strict=True)):
        want = _reference(x, y, z)
        if want == QNAN or np.isnan(np.uint32(want).view(np.float32)):
            assert np.isnan(np.uint32(got[i]).view(np.float32)), (hex(x), hex(y), hex(z))
        else:
            assert got[i] == want, (hex(x), hex(y), hex(z), hex(got[i]), hex(want))


def _bits(rng: random.Random) -> int:
    kind = rng.random()
    if kind < 0.5:  # ordinary magnitudes
        return rng.getrandbits(1) << 31 | rng.randint(100, 154) << 23 | rng.getrandbits(23)
    if kind < 0.7:  # subnormal and tiny
        return rng.getrandbits(1) << 31 | rng.randint(0, 3) << 23 | rng.getrandbits(23)
    if kind < 0.85:  # huge (products overflow)
        return rng.getrandbits(1) << 31 | rng.randint(200, 254) << 23 | rng.getrandbits(23)
    return rng.choice([0, 0x80000000, 0x7F800000, 0xFF800000, 0x3F800000, 0x00000001, 0x7F7FFFFF])


@pytest.mark.parametrize("seed", range(6))
def test_random_lanes_match_exact_rounding(seed):
    rng = random.Random(seed)
    for _ in range(60):  # 32 lanes each: a batch mixes lanes the shortcut takes with lanes it must not
        a, b, c = ([_bits(rng) for _ in range(32)] for _ in range(3))
        _check(a, b, c)
    for _ in range(60):  # the shortcut's own batches: ordinary lanes only
        a, b, c = ([rng.getrandbits(1) << 31 | rng.randint(110, 140) << 23 | rng.getrandbits(23)
                    for _ in range(32)] for _ in range(3))
        _check(a, b, c)


def test_double_rounding_traps():
    """a*b is a binary32 midpoint (25 significant bits) and c a tiny nudge below half a binary64 ulp: the binary64
    sum rounds back onto the midpoint, binary32 rounding of it then ties to even, the exact value does not tie."""
    rng = random.Random(22)
    a, b, c = [], [], []
    for _ in range(64):
        # (1 + k/2^12)(1 + j/2^12) has up to 25 significant bits; keep those with exactly 25 (a midpoint)
        while True:
            k, j = rng.randrange(1, 1 << 12), rng.randrange(1, 1 << 12)
            prod = ((1 << 12) + k) * ((1 << 12) + j)  # scaled by 2^24
            if prod.bit_length() == 25 and prod & 1:
                break
        ea, eb = rng.randint(100, 150), rng.randint(100, 150)
        a.append(ea << 23 | k << 11)
        b.append(eb << 23 | j << 11)
        sign = rng.choice([0, 1])
        e = ea + eb - 127 - 60  # about 2^-60 of the product: far below half a binary64 ulp (2^-53)
        c.append(sign << 31 | max(1, e) << 23 | rng.getrandbits(23))
    _check(a, b, c)
    _check(a, b, [0] * 64)  # exact ties: to even
