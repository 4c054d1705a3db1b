"""Host twins of the oracle kernels (oracle.hip): the exact output buffers each kernel must produce.

Each `Case` names a kernel, its dispatch shape, deterministic input buffers and the output buffers (with their
initial contents); `Case.expected(wave)` computes those outputs on the host the way the source defines them:
integers with C's wrap-around and truncating division, IEEE binary16/32/64 through numpy with the source's
operation order (the objects are built with -ffp-contract=off, so nothing is fused the source does not fuse),
fused multiply-adds rounded once from the exact product-sum. The compiled f32 `/` and `sqrt` (div_scale/fmas/
fixup and scaled-sqrt sequences) are correctly rounded in IEEE mode, and so are the f64 ones: every float output
is compared bit for bit, no tolerance.

Inputs come from a fixed splitmix64 stream, so they are the same on every host and numpy version.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

if str(Path(__file__).resolve().parent.parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_twins import splitmix64_from  # noqa: E402  (corefiles/corpus_twins.py: the corpora's one stream)

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF


def splitmix64(seed: int, n: int) -> list[int]:
    """n pseudo-random 64-bit integers (splitmix64 seeded with `seed` itself), identical everywhere."""
    return splitmix64_from(seed, n)


def s32(v: int) -> int:
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def s64(v: int) -> int:
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def cdiv(a: int, b: int) -> int:
    """C division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def crem(a: int, b: int) -> int:
    return a - b * cdiv(a, b)


@dataclass
class Out:
    """An output buffer: element type and initial contents (zeros unless given)."""

    dtype: type
    count: int
    init: np.ndarray | None = None

    def initial(self) -> np.ndarray:
        return np.zeros(self.count, dtype=self.dtype) if self.init is None else self.init.astype(self.dtype)


@dataclass
class Case:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    args: list  # np.ndarray (input buffer) | Out (output buffer) | str (scalar, amddbg run's TYPE:VALUE)
    twin: Callable[..., list[np.ndarray]]  # (wave size[, processor]) -> expected outputs, in argument order
    max_instructions: int = 400_000
    notes: str = field(default="")

    def outputs(self) -> list[int]:
        return [i for i, a in enumerate(self.args) if isinstance(a, Out)]

    def expected(self, wave: int, processor: str = "") -> list[np.ndarray]:
        """The outputs for `wave`-lane waves; twins whose result depends on the processor (the permutes) take it."""
        if self.twin.__code__.co_argcount > 1:
            return self.twin(wave, processor)
        return self.twin(wave)


def permute_lane(lane: int, index: int, wave: int, processor: str) -> int:
    """The lane ds_bpermute_b32 reads (ds_permute_b32 writes) for `lane` given lane `index`: GFX10/GFX11 in wave64
    permute within each 32-lane half (LLVM's GCNSubtarget::supportsWaveWideBPermute is false there), GFX8/9,
    GFX12 and wave32 across the whole wave."""
    if wave == 64 and processor.startswith(("gfx10", "gfx11")):
        return (lane & 32) | (index & 31)
    return index % wave


# -- rounding helpers -------------------------------------------------------------------------------------
def _round_exact(exact: Fraction, dtype) -> np.generic:
    """The value of `dtype` nearest to `exact`, ties to even (no double rounding through binary64)."""
    guess = dtype(float(exact))
    best = None
    for c in (np.nextafter(guess, dtype(-np.inf)), guess, np.nextafter(guess, dtype(np.inf))):
        if not np.isfinite(c):
            continue
        d = abs(Fraction(float(c)) - exact)
        even = int(c.view(np.uint16 if dtype is np.float16 else np.uint32) & 1) == 0
        key = (d, not even)
        if best is None or key < best[0]:
            best = (key, c)
    return best[1]


def fma32(a, b, c) -> np.float32:
    return _round_exact(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)), np.float32)


def fma16(a, b, c) -> np.float16:
    return _round_exact(Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c)), np.float16)


def fma64(a: float, b: float, c: float) -> float:
    return float(Fraction(a) * Fraction(b) + Fraction(c))  # Fraction -> float rounds correctly


def round_half_away(v: np.float32) -> np.float32:
    t = np.trunc(v)
    if abs(v - t) >= np.float32(0.5):  # v - t is exact
        t = t + np.copysign(np.float32(1.0), v)
    return np.float32(t)


def trunc_int(v: float) -> int:
    return int(math.trunc(float(v)))


# -- the cases --------------------------------------------------------------------------------------------
BLOCK = 64


def _u32s(seed: int, n: int, bits: int = 32) -> np.ndarray:
    return np.array([x >> (64 - bits) for x in splitmix64(seed, n)], dtype=np.uint64).astype(np.uint32)


def case_lds_reduce_scan() -> Case:
    n = 2 * BLOCK
    a = _u32s(1, n)

    def twin(wave: int):
        scan = np.zeros(n, dtype=np.uint32)
        sums = np.zeros(4, dtype=np.uint32)
        for g in range(2):
            chunk = [int(v) for v in a[g * BLOCK:(g + 1) * BLOCK]]
            acc = 0
            for i, v in enumerate(chunk):
                acc = (acc + v) & M32
                scan[g * BLOCK + i] = acc
            sums[2 * g] = sum(chunk) & M32
            sums[2 * g + 1] = max(chunk)
        return [scan, sums]

    return Case("lds_reduce_scan", (n, 1, 1), (BLOCK, 1, 1), [a, Out(np.uint32, n), Out(np.uint32, 4)], twin)


def case_bitonic_sort() -> Case:
    n = 2 * BLOCK
    a = _u32s(2, n).view(np.int32)

    def twin(wave: int):
        return [np.concatenate([np.sort(a[g * BLOCK:(g + 1) * BLOCK]) for g in range(2)]).astype(np.int32)]

    return Case("bitonic_sort", (n, 1, 1), (BLOCK, 1, 1), [a, Out(np.int32, n)], twin)


def case_histogram() -> Case:
    n = 2 * BLOCK
    a = _u32s(3, n, bits=20)
    stats0 = np.zeros(8, dtype=np.uint32)
    stats0[2] = M32
    stats64_0 = np.zeros(4, dtype=np.uint64)
    stats64_0[3] = (1 << 63) - 1

    def twin(wave: int):
        vals = [int(v) for v in a]
        bins = np.zeros(16, dtype=np.uint32)
        lds_bins = np.zeros(32, dtype=np.uint32)
        for i, v in enumerate(vals):
            bins[v & 15] += 1
            lds_bins[(i // BLOCK) * 16 + (v & 15)] += 1
        stats = np.zeros(8, dtype=np.uint32)
        stats[0] = sum(vals) & M32
        x = 0
        for v in vals:
            x ^= v
        stats[1] = x
        stats[2] = min(vals)
        stats[3] = BLOCK - 1  # the largest LDS ticket a work-item draws
        stats[4] = 2 * (BLOCK * (BLOCK - 1) // 2)  # every ticket 0..BLOCK-1 is drawn once per workgroup
        stats[5] = 0
        stats[6] = sum(v % 7 + 1 for i, v in enumerate(vals) if i % 8 == 0) & M32
        stats[7] = -sum(v & 0xFF for v in vals) & M32
        s64_ = np.zeros(4, dtype=np.uint64)
        s64_[0] = sum(v << 20 for v in vals) & M64
        bits = 0
        for v in vals:
            bits |= 1 << (v & 63)
        s64_[1] = bits
        s64_[2] = max(v << 33 for v in vals)
        s64_[3] = min((v - 500000) * 1000003 for v in vals) & M64
        ls = np.zeros(16, dtype=np.uint32)
        for g in range(2):
            chunk = vals[g * BLOCK:(g + 1) * BLOCK]
            l64 = sum(v << 24 for v in chunk) & M64
            land, lor = M32, 0
            for v in chunk:
                land &= v | 0xFFF00000
                lor |= (v << 8) & M32
            ls[8 * g:8 * g + 8] = [sum(v % 5 + 1 for v in chunk[::8]) & M32, l64 & M32, l64 >> 32,
                                   min(v - 300000 for v in chunk) & M32, max(v - 300000 for v in chunk) & M32,
                                   land, lor, 0]
        return [bins, lds_bins, stats, s64_, ls]

    return Case("histogram", (n, 1, 1), (BLOCK, 1, 1),
                [a, Out(np.uint32, 16), Out(np.uint32, 32), Out(np.uint32, 8, stats0), Out(np.uint64, 4, stats64_0),
                 Out(np.uint32, 16)], twin)


def case_transpose() -> Case:
    width, height = 24, 16
    a = _u32s(4, width * height)

    def twin(wave: int):
        m = a.reshape(height, width).astype(np.uint64)
        return [((m.T * 3 + 1) & M32).astype(np.uint32).reshape(-1)]

    return Case("transpose", (width, height, 1), (8, 8, 1),
                [a, Out(np.uint32, width * height), f"i32:{width}", f"i32:{height}"], twin)


def case_calls() -> Case:
    n = 64
    a = _u32s(5, n, bits=12).astype(np.int32)

    def fib(k: int) -> int:
        return k if k < 2 else fib(k - 1) + fib(k - 2)

    def ack(m: int, k: int) -> int:
        if m == 0:
            return k + 1
        if k == 0:
            return ack(m - 1, 1)
        return ack(m - 1, ack(m, k - 1))

    def chain3(x: int) -> int:
        return s32(x * 7 - 3)

    def twin(wave: int):
        out = np.zeros(4 * n, dtype=np.int32)
        for g, v in enumerate(int(x) for x in a):
            arr = [s32(v * (i + 1) ^ (i << 3)) for i in range(16)]
            picked = arr[(v >> 4) % 16]
            total = sum(arr[(i * 5 + v) & 15] for i in range(16))
            out[4 * g:4 * g + 4] = [fib(v & 6), ack(1 + (v & 1), v & 2), s32(picked + total),
                                    s32((chain3(2 * v + 1) ^ 0x55) + chain3(v))]
        return [out]

    return Case("calls", (n, 1, 1), (64, 1, 1), [a, Out(np.int32, 4 * n)], twin)


UNIFORM_GROUPS = 8  # the *_uniform kernels: one result per workgroup of 32 (scalar ALU code), one wave each


def _shape(n: int, uniform: bool) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(grid, block): n work-items in workgroups of 64, or n workgroups of 32 for the uniform kernels."""
    return ((32 * n, 1, 1), (32, 1, 1)) if uniform else ((n, 1, 1), (64, 1, 1))


def case_intdiv(uniform: bool = False) -> Case:
    n = UNIFORM_GROUPS if uniform else 64
    r = splitmix64(6, 4 * n)
    a32, b32, a64, b64 = [], [], [], []
    for i in range(n):
        x = s32(r[4 * i] >> 32)
        shift = i % 31
        y = s32(r[4 * i + 1] >> 32) >> shift or 7
        if x == -(1 << 31) and y == -1:
            y = 3
        a32.append(x)
        b32.append(y)
        x64 = s64(r[4 * i + 2])
        y64 = s64(r[4 * i + 3]) >> (i % 63) or -5
        if i % 4 == 1:  # divisors that fit in 32 bits take the fast path compiled code has for them
            x64, y64 = x64 >> 20, y64 >> 40 or 9
        if x64 == -(1 << 63) and y64 == -1:
            y64 = 3
        a64.append(x64)
        b64.append(y64)

    def twin(wave: int):
        o32 = np.zeros(4 * n, dtype=np.int32)
        o64 = np.zeros(4 * n, dtype=np.int64)
        for g in range(n):
            x, y, x64, y64 = a32[g], b32[g], a64[g], b64[g]
            o32[4 * g:4 * g + 4] = [cdiv(x, y), crem(x, y), s32((x & M32) // (y & M32)), s32((x & M32) % (y & M32))]
            o64[4 * g:4 * g + 4] = [cdiv(x64, y64), crem(x64, y64), s64((x64 & M64) // (y64 & M64)),
                                    s64((x64 & M64) % (y64 & M64))]
        return [o32, o64]

    return Case("intdiv_uniform" if uniform else "intdiv", *_shape(n, uniform),
                [np.array(a32, dtype=np.int32), np.array(b32, dtype=np.int32), np.array(a64, dtype=np.int64),
                 np.array(b64, dtype=np.int64), Out(np.int32, 4 * n), Out(np.int64, 4 * n)], twin)


NBIT = 25


def _perm(x: int, y: int, sel: int) -> int:
    src = (x << 32) | y
    r = 0
    for i in range(4):
        s = (sel >> (8 * i)) & 0xFF
        if s <= 7:
            byte = (src >> (8 * s)) & 0xFF
        elif s <= 11:
            byte = 0xFF if (src >> (16 * (s - 8) + 15)) & 1 else 0
        elif s == 12:
            byte = 0
        else:
            byte = 0xFF
        r |= byte << (8 * i)
    return r


def _clz(v: int, bits: int) -> int:
    return bits - v.bit_length()


def _bitops_lane(x: int, y: int) -> list[int]:
    s = y & 31
    x64 = (x << 32) | (x ^ y)
    o = [0] * NBIT
    o[0] = bin(x).count("1")
    o[1] = _clz(x, 32)
    o[2] = (x & -x).bit_length() - 1 if x else 32
    o[3] = int(f"{x:032b}"[::-1], 2)
    o[4] = (((x << 32) | y) >> s) & M32
    o[5] = ((x << s) | (y >> (32 - s))) & M32 if s else x
    sel = (0x05010400 + (y & 0x03030303)) & M32
    o[6] = _perm(x, y, sel)
    off, wid = y & 15, (y >> 8) & 15
    o[7] = (x >> off) & ((1 << wid) - 1)
    f = (x >> off) & ((1 << wid) - 1)
    o[8] = (f - (1 << wid) if wid and f >> (wid - 1) else f) & M32
    o[9] = (x & ~0x00FF00F0 & M32) | (y & 0x00FF00F0)
    o[10] = (x * y) >> 32
    o[11] = ((s32(x) * s32(y)) >> 32) & M32
    o[12] = ((x & 0xFFFFFF) * (y & 0xFFFFFF)) & M32
    sx = (x & 0xFFFFFF) - (1 << 24) if x & 0x800000 else x & 0xFFFFFF
    sy = (y & 0xFFFFFF) - (1 << 24) if y & 0x800000 else y & 0xFFFFFF
    o[13] = (sx * sy) & M32
    sh = (x64 << (y & 63)) & M64
    o[14], o[15] = sh & M32, sh >> 32
    shr = x64 >> ((y >> 6) & 63)
    o[16] = (shr & M32) ^ (shr >> 32)
    sar = s64(x64) >> ((y >> 12) & 63)
    o[17] = ((sar & M32) ^ ((sar >> 32) & M32)) & M32
    mad = (x * y + x64) & M64
    o[18], o[19] = mad & M32, mad >> 32
    o[20] = bin((x64 * 0x9E3779B97F4A7C15) & M64).count("1")
    q = x64 >> (y & 31)
    o[21] = _clz(q, 64) if q else 64
    rot = ((x64 << (s + 1)) | (x64 >> (63 - s))) & M64
    o[22] = ((rot & M32) + (rot >> 32)) & M32
    o[23] = ((x - y if x > y else y - x) + (1 if s32(x) < s32(y) else 0)) & M32
    o[24] = 0xAAAA if (x >> (y & 31)) & 1 else 0x5555
    return o


def case_bitops(uniform: bool = False) -> Case:
    n = UNIFORM_GROUPS if uniform else 64
    a = _u32s(7, n)
    b = _u32s(8, n)
    a[:4] = [0, 1, 0x80000000, M32]  # edge values: clz/ctz of 0, sign bits

    def twin(wave: int):
        return [np.array([v for g in range(n) for v in _bitops_lane(int(a[g]), int(b[g]))], dtype=np.uint32)]

    return Case("bitops_uniform" if uniform else "bitops", *_shape(n, uniform),
                [a, b, Out(np.uint32, NBIT * n)], twin)


def case_int64_ops(uniform: bool = False) -> Case:
    n = UNIFORM_GROUPS if uniform else 64
    a = np.array(splitmix64(9, n), dtype=np.uint64)
    b = np.array(splitmix64(10, n), dtype=np.uint64)
    b[5] = a[5]  # one equal pair

    def twin(wave: int):
        out = np.zeros(6 * n, dtype=np.uint64)
        for g in range(n):
            x, y = int(a[g]), int(b[g])
            acc = 0x0123456789ABCDEF
            for i in range((x & 7) + 1):
                acc = (acc * 6364136223846793005 + y) & M64
                acc ^= acc >> 29
                acc = (acc - ((x << (i & 15)) & M64)) & M64
            out[6 * g:6 * g + 6] = [acc, (x + y) & M64, (x - y) & M64, x if s64(x) < s64(y) else y, max(x, y),
                                    ((s64(x) >> 3) * 3 + (x == y)) & M64]
        return [out]

    return Case("int64_uniform" if uniform else "int64_ops", *_shape(n, uniform),
                [a, b, Out(np.uint64, 6 * n)], twin)


def _floats(seed: int, n: int, lo: float, hi: float, dtype) -> np.ndarray:
    """Values with random mantissas, |v| in [lo, hi), random signs (no denormals, no zeros)."""
    out = []
    for r in splitmix64(seed, n):
        mag = lo + (hi - lo) * ((r >> 11) / float(1 << 53))
        out.append(-mag if r & 1 else mag)
    return np.array(out, dtype=dtype)


NF32 = 20


def case_fmath32() -> Case:
    n = 64
    a = _floats(11, n, 0.5, 100.0, np.float32)
    b = _floats(12, n, 0.5, 100.0, np.float32)
    a[:4] = np.array([2.5, -2.5, 3.5, 0.5], dtype=np.float32)  # rounding ties
    b[:4] = np.array([-0.5, 1.5, 2.5, -7.5], dtype=np.float32)
    f = np.float32

    def twin(wave: int):
        out = np.zeros(NF32 * n, dtype=np.float32)
        iout = np.zeros(2 * n, dtype=np.int32)
        with np.errstate(all="ignore"):
            for g in range(n):
                x, y = a[g], b[g]
                o = [x + y, x - y, x * y, x / y, np.sqrt(abs(x)), fma32(x, y, f(1.5)), min(x, y), max(x, y),
                     np.floor(x), np.ceil(x), np.trunc(x), np.rint(x), round_half_away(y),
                     f(trunc_int(x * f(100.0))), f(trunc_int(abs(y * f(1000.0)))),
                     (x * y - x) / (y + f(3.25)), abs(x) * f(-2.0), np.copysign(y, x), x * f(0.1),
                     f(trunc_int(x * f(1.0e6)))]
                out[NF32 * g:NF32 * g + NF32] = np.array(o, dtype=np.float32)
                iout[2 * g] = trunc_int(y * f(77.0))
                iout[2 * g + 1] = trunc_int(abs(x * f(4096.0)))
        return [out, iout]

    return Case("fmath32", (n, 1, 1), (64, 1, 1), [a, b, Out(np.float32, NF32 * n), Out(np.int32, 2 * n)], twin)


NF64 = 14


def case_fmath64() -> Case:
    n = 64
    a = _floats(13, n, 0.5, 100.0, np.float64)
    b = _floats(14, n, 0.5, 100.0, np.float64)
    b[:3] = [2.5, -3.5, 0.5]

    def twin(wave: int):
        out = np.zeros(NF64 * n, dtype=np.float64)
        iout = np.zeros(2 * n, dtype=np.int64)
        for g in range(n):
            x, y = float(a[g]), float(b[g])
            o = [x + y, x - y, x * y, x / y, math.sqrt(abs(x)), fma64(x, y, -0.75), min(x, y), max(x, y),
                 math.floor(x), math.ceil(x), math.trunc(x), float(np.rint(y)), float(trunc_int(x * 1000.0)),
                 float(np.float32(y))]
            out[NF64 * g:NF64 * g + NF64] = o
            iout[2 * g] = trunc_int(x * 1.0e9)
            iout[2 * g + 1] = trunc_int(abs(y * 1.0e12))
        return [out, iout]

    return Case("fmath64", (n, 1, 1), (64, 1, 1), [a, b, Out(np.float64, NF64 * n), Out(np.int64, 2 * n)], twin)


NF16 = 10


def case_fmath16() -> Case:
    n = 64
    a = _floats(15, n, 0.5, 8.0, np.float16)
    b = _floats(16, n, 0.5, 8.0, np.float16)
    h = np.float16

    def twin(wave: int):
        out = np.zeros(NF16 * n, dtype=np.float16)
        fout = np.zeros(2 * n, dtype=np.float32)
        for g in range(n):
            x, y = a[g], b[g]
            o = [x + y, x - y, x * y, fma16(x, y, h(0.5)), x if x < y else y, x if x > y else y,
                 h(trunc_int(float(x * h(4.0)))), h(np.float32(x) * np.float32(0.3)), -x, h(g * 3)]
            out[NF16 * g:NF16 * g + NF16] = np.array(o, dtype=np.float16)
            fout[2 * g] = np.float32(x) * np.float32(y)
            fout[2 * g + 1] = np.float32(x + y)
        return [out, fout]

    return Case("fmath16", (n, 1, 1), (64, 1, 1), [a, b, Out(np.float16, NF16 * n), Out(np.float32, 2 * n)], twin)


NWAVE = 8


def case_wave_ops() -> Case:
    n = 128
    a = _u32s(17, n)

    def twin(wave: int, processor: str = ""):
        out = np.zeros(NWAVE * n, dtype=np.uint32)
        masks = np.zeros(4, dtype=np.uint64)
        for g in range(n):
            base = g - g % wave
            lane = g % wave
            v = [int(x) for x in a[base:base + wave]]
            dpp = 0 if lane % 16 == 0 else v[lane - 1]
            upd = 0x77 if lane % 16 == 15 else v[lane + 1]
            rot = v[permute_lane(lane, (lane + 1) % wave, wave, processor)]
            # ds_permute: lane l writes v[l] to lane (l + 1) % wave (within its half on GFX10/11 wave64)
            pushed = [src for src in range(wave) if permute_lane(src, (src + 1) % wave, wave, processor) == lane]
            push = v[max(pushed)] if pushed else 0
            out[NWAVE * g:NWAVE * g + NWAVE] = [lane, v[0], v[5], rot, dpp, upd, push, v[lane ^ 1]]
        for wv in range(n // wave):
            m = 0
            for lane in range(wave):
                if int(a[wv * wave + lane]) & 3 == 1:
                    m |= 1 << lane
            masks[wv] = m
        return [out, masks]

    return Case("wave_ops", (n, 1, 1), (64, 1, 1), [a, Out(np.uint32, NWAVE * n), Out(np.uint64, 4)], twin)


def case_narrow_mem() -> Case:
    n = 128
    b8 = _u32s(18, n, bits=8).astype(np.uint8)
    s16 = _u32s(19, n, bits=16).astype(np.uint16).view(np.int16)
    v4 = _u32s(20, 4 * n)

    def i8(v: int) -> int:
        v &= 0xFF
        return v - 256 if v >> 7 else v

    def i16(v: int) -> int:
        v &= 0xFFFF
        return v - 65536 if v >> 15 else v

    def twin(wave: int):
        o8 = np.zeros(n, dtype=np.uint8)
        o16 = np.zeros(n, dtype=np.int16)
        ov4 = np.zeros(4 * n, dtype=np.uint32)
        o32 = np.zeros(4 * n, dtype=np.int32)
        for g in range(n):
            t, gb = g % 64, g - g % 64
            c, sc, h, uh = int(b8[g]), i8(int(b8[g ^ 1])), int(s16[g]), int(s16[g ^ 3]) & 0xFFFF
            c2 = (int(b8[gb + ((t + 5) & 63)]) + 1) & 0xFF
            sc2 = i8(int(b8[gb + ((t + 17) & 63)]) + 1)
            h2 = i16(int(s16[gb + ((t + 9) & 63)]) * 3)
            uh2 = i16(int(s16[gb + ((t + 33) & 63)]) * 3) & 0xFFFF
            q2 = [int(x) for x in v4[4 * (gb + 63 - t):4 * (gb + 63 - t) + 4]]
            o8[g] = c2 ^ (sc & 0xFF)
            o16[g] = i16(h2 + i16(uh))
            ov4[4 * g:4 * g + 4] = [(q2[0] + sc) & M32, q2[1] ^ (h & M32), (q2[2] - c) & M32, (q2[3] * 3) & M32]
            o32[4 * g:4 * g + 4] = [sc2, h2, uh2, c2 - sc]
        return [o8, o16, ov4, o32]

    return Case("narrow_mem", (n, 1, 1), (64, 1, 1),
                [b8, s16, v4, Out(np.uint8, n), Out(np.int16, n), Out(np.uint32, 4 * n), Out(np.int32, 4 * n)], twin)


def _inc(v: int, limit: int) -> int:
    return 0 if v >= limit else v + 1


def _dec(v: int, limit: int) -> int:
    return limit if v == 0 or v > limit else v - 1


def case_atomics_misc() -> Case:
    n = 128
    c0 = np.array([0, 0, 0x1234, 0], dtype=np.uint32)

    def twin(wave: int):
        c = [0, 0, 0xABCD, 1]
        for _ in range(n):
            c[0], c[1] = _inc(c[0], 50), _dec(c[1], 40)
        lds = []
        for _g in range(n // 64):
            li, ld = 0, 0
            for _ in range(64):
                li, ld = _inc(li, 20), _dec(ld, 30)
            lds += [li, ld, 9, 1]
        return [np.array(c, dtype=np.uint32), np.array(lds, dtype=np.uint32)]

    return Case("atomics_misc", (n, 1, 1), (64, 1, 1), [Out(np.uint32, 4, c0), Out(np.uint32, 4 * (n // 64))], twin)


BIG = 10240


def case_offsets() -> Case:
    n = 128
    a = np.array([(int(x) % 2001) - 1000 for x in _u32s(21, n + 128)], dtype=np.int32)

    def twin(wave: int):
        out = np.zeros(3 * n, dtype=np.int32)
        total = 0
        ss = [0] * n
        for g in range(n):
            p = 64 + g
            ss[g] = s32(int(a[p - 64]) + int(a[p - 17]) * 3 + int(a[p - 1]) * 5 + int(a[p]) * 7 + int(a[p + 1]) * 11
                        + int(a[p + 63]) * 13)
        for g in range(n):
            t, gb, s = g % 64, g - g % 64, ss[g]

            def big(i: int, gb: int = gb) -> int:
                return s32(((i * 7) & M32) ^ (ss[gb + i % 64] & M32))

            p = 64 + g
            priv = [s32(int(a[p + i - 6]) + i) for i in range(12)]
            out[3 * g:3 * g + 3] = [s, s32(big(BIG - 1 - t) + big(t + 8192) - big((t * 37) % BIG)),
                                    s32(priv[(s & M32) % 12] - priv[11 - t % 12])]
            if t % 8 == 0:
                total += (s & M32) * 0x100000001
        return [out, np.array([total & M64], dtype=np.uint64)]

    return Case("offsets", (n, 1, 1), (64, 1, 1), [a, Out(np.int32, 3 * n), Out(np.uint64, 1)], twin)


def all_cases() -> list[Case]:
    """Every oracle kernel with its inputs and twin, in source order."""
    return [case_lds_reduce_scan(), case_bitonic_sort(), case_histogram(), case_transpose(), case_calls(),
            case_intdiv(), case_intdiv(uniform=True), case_bitops(), case_bitops(uniform=True), case_int64_ops(),
            case_int64_ops(uniform=True), case_fmath32(), case_fmath64(), case_fmath16(), case_wave_ops(),
            case_narrow_mem(), case_atomics_misc(), case_offsets()]
