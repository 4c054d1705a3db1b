"""v_fma_f64 and friends: the all-lanes binary64 fma (float operations, rounding to odd) against exact fractions.

`vfloat._fma64_lanes` computes a*b + c with one rounding from float operations (Boldo and Melquiond's emulation);
`vfloat._fma64` computes it from Fractions, one lane at a time. Lanes the float method cannot vouch for (zeros,
infinities, NaNs, extreme exponents) take the fraction path, so `_fma_exact` must equal `_fma64` in every lane.
"""

from __future__ import annotations

import numpy as np
import pytest

from amddbg.emu.semantics.vfloat import _fma64, _fma64_lanes, _fma_exact

U64 = np.uint64


def _exact(a, b, c) -> np.ndarray:
    return np.array([_fma64(x, y, z) for x, y, z in zip(a.tolist(), b.tolist(), c.tolist(), strict=True)])


def _same_bits(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return (x.view(U64) == y.view(U64)) | (np.isnan(x) & np.isnan(y))


def _signed(rng, n, lo, hi):
    return np.ldexp(rng.uniform(1, 2, n) * rng.choice([-1.0, 1.0], n), rng.integers(lo, hi, n))


def _cases(seed: int, n: int):
    """Random factors and addends of every relative size, exact and near cancellation, and products that lie
    exactly halfway between two doubles with an addend far below them (only its sign decides the rounding)."""
    rng = np.random.default_rng(seed)
    a, b, c = _signed(rng, n, -60, 60), _signed(rng, n, -60, 60), _signed(rng, n, -60, 60)
    kind = rng.integers(0, 5, n)
    p = a * b
    c = np.where(kind == 1, -p, c)
    c = np.where(kind == 2, -p * (1 + rng.uniform(-1e-10, 1e-10, n)), c)
    c = np.where(kind == 3, _signed(rng, n, -300, 300), c)
    mid = kind == 4  # (1 + j 2^-52) * 1.5 and the like: the exact product ends in a single 1 half an ulp down
    j = rng.integers(1, 1 << 20, n).astype(np.float64)
    a = np.where(mid, np.ldexp(1 + j * 2.0 ** -52, rng.integers(-30, 30, n)), a)
    b = np.where(mid, np.ldexp(rng.choice([1.5, 1.25, 1.75, 1.125], n), rng.integers(-30, 30, n)), b)
    tiny = np.ldexp(rng.choice([-1.0, 1.0], n), rng.integers(-300, -100, n))
    c = np.where(mid, np.where(rng.random(n) < 0.3, 0.0, tiny), c)
    return a, b, c


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_float_method_matches_fractions(seed):
    a, b, c = _cases(seed, 20_000)
    r, ok = _fma64_lanes(a, b, c)
    assert ok.mean() > 0.99  # ordinary operands are the float method's, not the fractions'
    want = _exact(a, b, c)
    bad = np.flatnonzero(ok & ~_same_bits(r, want))
    assert bad.size == 0, [(a[i].hex(), b[i].hex(), c[i].hex(), r[i].hex(), want[i].hex()) for i in bad[:3]]


def test_every_lane_of_fma_exact_matches_fractions_on_any_bits():
    """Random bit patterns: NaNs, infinities, zeros, denormals, overflowing and underflowing products."""
    rng = np.random.default_rng(11)
    a, b, c = (rng.integers(0, 1 << 64, 4096, dtype=U64).view(np.float64) for _ in range(3))
    a[:64], b[64:128], c[128:192] = 0.0, -0.0, 0.0  # signed zeros too
    r = _fma_exact(a, b, c, 64)
    assert _same_bits(r, _exact(a, b, c)).all()


@pytest.mark.parametrize(("c", "want"), [(2.0 ** -200, 1.5 + 2.0 ** -51), (-(2.0 ** -200), 1.5 + 2.0 ** -52),
                                         (0.0, 1.5 + 2.0 ** -51)])
def test_a_product_halfway_between_doubles_rounds_by_the_addend(c, want):
    """(1 + 2^-52) * 1.5 = 1.5 + 2^-52 + 2^-53 exactly, halfway between 1.5 + 2^-52 (odd) and 1.5 + 2^-51 (even):
    a positive addend however small rounds up, a negative one down, none to even. A product rounded before the
    add (no fusion) gets the negative case wrong."""
    a = np.array([1 + 2.0 ** -52] * 4)
    b = np.array([1.5] * 4)
    r = _fma_exact(a, b, np.full(4, c), 64)
    assert (r == want).all(), r[0].hex()
    if c < 0:
        assert float(a[0] * b[0] + c) != want  # what double rounding gives
