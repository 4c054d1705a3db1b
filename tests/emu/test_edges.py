"""Instruction-level edge cases on hand-written kernels (corefiles/emu-edges, assembled by llvm-mc-22).

Why: the corpus kernels exercise the common path; NaN quieting, denormal flushing per MODE, clamp and
saturation, carries, shift counts past the width, signed zero, f16 rounding and the DPP lane patterns are where an
emulator is silently wrong. Each kernel reads per-lane inputs (slot k of `in` = in[k * lanes + lane]) and stores
one result per slot of `out`; the expectations here are computed independently of amddbg.emu (scalar Python with
struct/math/fractions, numpy scalars for IEEE binary32/16 rounding) from the ISA's definition of each operation.

An expectation is an int (exact bits), NAN (any NaN) or QNAN (a NaN with the quiet bit set), where the ISA does
not fix the payload.
"""

from __future__ import annotations

import math
import struct
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from amddbg.emu.args import read_buffer
from amddbg.emu.machine import Machine

EDGES = Path(__file__).resolve().parents[2] / "corefiles" / "emu-edges"
NAN, QNAN = "nan", "qnan"
LANES = {"gfx90a": 64, "gfx942": 64, "gfx1100": 32, "gfx1200": 32}


def run_case(case: str, target: str, slots: list[list[int]], nout: int) -> list[list[int]]:
    """Run `case` on `target` with input slots (each a list of lane values, padded by repetition)."""
    lanes = LANES[target]
    flat = []
    for s in slots:
        flat += [s[i % len(s)] & 0xFFFFFFFF for i in range(lanes)]
    flat += [0] * (lanes * 16 - len(flat))
    m = Machine(EDGES / f"{case}-{target}.co")
    m.dispatch(case, (lanes, 1, 1), (lanes, 1, 1),
               [f"buf:u32:{len(flat)}:values={','.join(map(str, flat))}", f"buf:u32:{lanes * nout}"])
    r = m.run(max_instructions=20_000)
    assert r.status == "completed", r.reason
    out = read_buffer(m, m.buffers[1])
    return [out[k * lanes:(k + 1) * lanes] for k in range(nout)]


def check(got: list[int], want: list, what: str, bits: int = 32) -> None:
    bad = []
    for lane, (g, w) in enumerate(zip(got, want, strict=True)):
        if w is None:
            continue
        if w in (NAN, QNAN):
            e = (1 << (bits - 1)) - 1
            mant = (1 << {32: 23, 16: 10, 64: 52}[bits]) - 1
            exp_mask = e & ~mant
            ok = (g & exp_mask) == exp_mask and (g & mant) != 0
            if w == QNAN:
                ok = ok and bool(g >> ({32: 22, 16: 9, 64: 51}[bits]) & 1)
        else:
            ok = g == w
        if not ok:
            bad.append((lane, hex(g), w if isinstance(w, str) else hex(w)))
    assert not bad, f"{what}: lanes differ (lane, got, want): {bad[:6]}"


# ------------------------------------------------------------------------------------------ reference model


def f32(u: int) -> float:
    return struct.unpack("<f", struct.pack("<I", u & 0xFFFFFFFF))[0]


def b32(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def is_nan32(u: int) -> bool:
    return (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF) != 0


def is_snan32(u: int) -> bool:
    return is_nan32(u) and not u & 0x400000


def ref_minmax(a: int, b: int, is_min: bool, ieee: bool) -> int:
    """ISA pseudocode of V_MIN_F32/V_MAX_F32 (IEEE mode: a signalling NaN is returned quieted; otherwise a NaN
    operand loses to the other; -0 < +0)."""
    if ieee and is_snan32(a):
        return a | 0x400000
    if ieee and is_snan32(b):
        return b | 0x400000
    if is_nan32(a) and is_nan32(b):
        return a | 0x400000
    if is_nan32(a):
        return b
    if is_nan32(b):
        return a
    x, y = f32(a), f32(b)
    if x == 0 and y == 0:
        an, bn = a >> 31, b >> 31
        if is_min:
            return a if an and not bn else b
        return a if bn and not an else b
    return a if (x < y if is_min else x > y) else b


def arith(fn, *us: int):
    """IEEE binary32 result of fn on the inputs; any NaN involved -> QNAN."""
    xs = [np.float32(f32(u)) for u in us]
    with np.errstate(all="ignore"):
        r = np.float32(fn(*xs))
    if np.isnan(r):
        return QNAN
    return int(np.asarray(r, dtype=np.float32).view(np.uint32))


def fma32(a: int, b: int, c: int):
    x, y, z = f32(a), f32(b), f32(c)
    if any(map(math.isnan, (x, y, z))) or any(map(math.isinf, (x, y, z))):
        return arith(lambda p, q, r: np.float64(p) * np.float64(q) + np.float64(r), a, b, c)
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:
        return b32(x * y + z)
    return round_f32(exact)


def round_f32(q: Fraction) -> int:
    """Correct binary32 rounding of an exact rational (round to nearest even, denormals kept)."""
    d = q.numerator / q.denominator  # correctly rounded binary64
    with np.errstate(over="ignore"):
        r = np.float32(d)
    if np.isinf(r):  # beyond the largest binary32 by at least half an ulp
        return b32(r)
    # binary64 rounding first can only matter at an exact binary32 tie; settle ties exactly
    lo, hi = sorted((float(r), float(np.nextafter(r, np.float32(np.inf if d > float(r) else -np.inf)))))
    if lo != hi:
        mid = (Fraction(lo) + Fraction(hi)) / 2
        if q != mid:
            return b32(lo if q < mid else hi)
    return b32(r)


def med3(a: int, b: int, c: int, ieee: bool) -> int:
    if is_nan32(a) or is_nan32(b) or is_nan32(c):
        return ref_minmax(ref_minmax(a, b, True, ieee), c, True, ieee)
    mx = ref_minmax(ref_minmax(a, b, False, ieee), c, False, ieee)
    if mx == a:
        return ref_minmax(b, c, False, ieee)
    if mx == b:
        return ref_minmax(a, c, False, ieee)
    return ref_minmax(a, b, False, ieee)


def class_index(u: int) -> int:
    x = f32(u)
    neg = u >> 31
    if is_snan32(u):
        return 0
    if is_nan32(u):
        return 1
    if math.isinf(x):
        return 2 if neg else 9
    if x == 0:
        return 5 if neg else 6
    if (u & 0x7F800000) == 0:
        return 4 if neg else 7
    return 3 if neg else 8


# ------------------------------------------------------------------------------------------ fp32

SNAN, QNAN_A, QNAN_B, NSNAN = 0x7F800001, 0x7FC00123, 0xFFC00456, 0xFF800005
INF, NINF, NZERO = 0x7F800000, 0xFF800000, 0x80000000
FP32_PAIRS = [
    (b32(1.0), b32(2.0)), (NZERO, 0), (0, NZERO), (SNAN, b32(1.0)), (b32(1.0), SNAN), (QNAN_A, b32(2.0)),
    (b32(2.0), QNAN_B), (QNAN_A, SNAN), (INF, NINF), (INF, 0), (NINF, b32(3.5)), (0x00000001, 0x80000001),
    (0x007FFFFF, 0x00000001), (b32(1e38), b32(10.0)), (b32(-1e38), b32(10.0)), (b32(0.5), b32(0.5)),
    (b32(1.5), b32(-0.25)), (b32(3.0), b32(1 / 3)), (b32(-2.5), b32(4.0)), (0x3F7FFFFF, b32(1.0)),
    (b32(-1e-10), b32(1.0)), (b32(0.75), b32(-0.75)), (NZERO, NZERO), (0x7F7FFFFF, 0x7F7FFFFF),
    (0x00800000, b32(0.5)), (b32(1.0), b32(1e-8)), (b32(100.25), b32(7.0)), (b32(-7.5), NZERO),
    (NSNAN, NZERO), (0x00800000, 0x80800000), (b32(65504.0), 0x3FF), (b32(123.456), 0x155),
]


def fp32_expected(a: int, b: int, ieee: bool) -> list:
    x = f32(a)
    out = [ref_minmax(a, b, True, ieee), ref_minmax(a, b, False, ieee), arith(lambda p, q: p + q, a, b),
           arith(lambda p, q: p * q, a, b), fma32(a, b, b), med3(a, b, b32(1.0), ieee)]
    s = arith(lambda p, q: p + q, a, b)  # clamp: [0, 1], NaN -> 0 (DX10 clamp), -0 -> +0
    out.append(0 if s == QNAN else b32(min(max(f32(s), 0.0), 1.0)) if f32(s) != 0 else 0)
    p = arith(lambda p, q: p * q, a, b)
    out.append(p if p == QNAN else b32(np.float32(f32(p)) * np.float32(2.0)))
    out.append(ref_minmax(a, a, False, ieee) if ieee else (a | 0x400000 if is_nan32(a) else a))
    if math.isnan(x) or math.isinf(x):
        out.append(QNAN)
    else:
        fr = np.float32(x) - np.floor(np.float32(x))
        out.append(min(b32(fr), 0x3F7FFFFF))
    out.append((b & 0x3FF) >> class_index(a) & 1)
    if math.isnan(x):
        out += [NAN, 0]
    elif math.isinf(x):
        out += [a, 0]
    elif x == 0:
        out += [a, 0]
    else:
        mt, ex = math.frexp(x)
        out += [b32(mt), ex & 0xFFFFFFFF]
    out.append(QNAN if math.isnan(x) else b32(np.float32(x * 2.0 ** -130)) if not math.isinf(x) else a)
    if math.isnan(x):
        out += [QNAN, QNAN]
    else:
        with np.errstate(over="ignore"):
            rcp = b32(np.float32(1.0 / np.float64(x))) if x != 0 else 0
        out.append(rcp if x != 0 else (INF if not a >> 31 else NINF))
        out.append(QNAN if x < 0 else b32(np.sqrt(np.float32(x))))
    return out


FP32_NAMES = ["min", "max", "add", "mul", "fma(a,b,b)", "med3(a,b,1)", "add clamp", "mul omod:2", "max(a,a)",
              "fract", "class(a, b&0x3ff)", "frexp_mant", "frexp_exp", "ldexp(a,-130)", "rcp", "sqrt"]


@pytest.mark.parametrize("target", ["gfx90a", "gfx942", "gfx1100", "gfx1200"])
def test_fp32_nan_zero_clamp(target):
    """NaN propagation/quieting, -0 in min/max/add/fma, clamp (NaN -> 0), omod, class, frexp, ldexp into
    denormals, rcp/sqrt against the correctly rounded value (the emulator's documented policy; hardware: 1 ULP)."""
    lanes = LANES[target]
    pairs = FP32_PAIRS[:lanes]
    got = run_case("fp32", target, [[p[0] for p in pairs], [p[1] for p in pairs]], 16)
    ieee = target != "gfx1200"  # GFX12 has no IEEE mode: v_min/max_num treat a signalling NaN like a quiet one
    want = [fp32_expected(a, b, ieee) for a, b in pairs]
    for k, name in enumerate(FP32_NAMES):
        check(got[k][:len(pairs)], [w[k] for w in want], f"{target} {name}")
