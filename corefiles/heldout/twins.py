"""Host twins of the held-out kernels (heldout.hip): the output buffers each kernel must produce, computed on the
host from what the source says (never by running the emulator).

Integers are computed with Python ints and C's wrap-around. Floating point is IEEE binary16/32/64 with the
source's operation order (the objects are built with -ffp-contract=off): numpy float32/float16 arrays round each
operation once, binary16 operations are done exactly in binary64 and rounded once to binary16, integer -> float
conversions are rounded from the exact integer. The compiled f32 `/` and `sqrtf` are correctly rounded (IEEE
sequences), so every kernel is compared bit for bit except where the source calls an approximated function:

* `softmax_rows` (expf, logf) and `transcend` (expf, logf, exp2f, log2f, sinf, cosf, the hardware rsq/rcp
  builtins and the activations built from them) are compared within |got - want| <= 1e-5 * |want| + 1e-6
  (the twin is exact binary64 rounded once; the backend's expansions of these functions are not correctly
  rounded on hardware, 1-2 ULP for exp/log, and sin/cos depend on the rounding of x / 2pi).

Every other output, including every float output of the other 22 kernels, must match bit for bit.
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
from corpus_twins import fmix64 as _fmix64  # noqa: E402  (corefiles/corpus_twins.py: shared with samples)
from corpus_twins import splitmix64, uniform32  # noqa: E402

M16 = 0xFFFF
M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
F32 = np.float32
F16 = np.float16
TOL_TRANSCENDENTAL = (1e-5, 1e-6)  # (rtol, atol): |got - want| <= rtol * |want| + atol


def u32s(seed: int, n: int) -> np.ndarray:
    return np.array([x >> 32 for x in splitmix64(seed, n)], dtype=np.uint32)


def u64s(seed: int, n: int) -> np.ndarray:
    return np.array(splitmix64(seed, n), dtype=np.uint64)


def s32(v: int) -> int:
    v &= M32
    return v - (1 << 32) if v >> 31 else v


def s64(v: int) -> int:
    v &= M64
    return v - (1 << 64) if v >> 63 else v


def int_to_f32(n: int) -> np.float32:
    """The binary32 value nearest the integer n (ties to even), without a detour through binary64."""
    if n == 0:
        return F32(0.0)
    sign, a = (-1, -n) if n < 0 else (1, n)
    shift = max(a.bit_length() - 24, 0)
    q, r = a >> shift, a & ((1 << shift) - 1)
    half = 1 << (shift - 1) if shift else 0
    if shift and (r > half or (r == half and q & 1)):
        q += 1
    return F32(sign * math.ldexp(q, shift))  # q has at most 25 bits: exact in binary64; inf if out of range


def fma64(a: float, b: float, c: float) -> float:
    return float(Fraction(a) * Fraction(b) + Fraction(c))


def h(v) -> np.float16:
    """Round a binary64 value (the exact result of a binary16 operation) to binary16 once."""
    return F16(np.float64(v))


@dataclass
class Out:
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
    args: list  # np.ndarray (input) | Out (output) | str (scalar TYPE:VALUE)
    twin: Callable[..., list[np.ndarray]]  # (wave size[, processor]) -> expected outputs in argument order
    tolerance: dict[int, tuple[float, float]] = field(default_factory=dict)  # output index -> (rtol, atol)
    dynamic_lds: int = 0  # bytes of dynamic LDS the launch asks for (extern __shared__)
    stack_size: int = 0  # hipDeviceSetLimit(hipLimitStackSize) before the launch; 0: the runtime's default
    max_instructions: int = 600_000

    def expected(self, wave: int, processor: str = "") -> list[np.ndarray]:
        """The outputs for `wave`-lane waves; twins whose result depends on the processor (the shuffles) take it."""
        if self.twin.__code__.co_argcount > 1:
            return self.twin(wave, processor)
        return self.twin(wave)


def bpermute_lane(lane: int, index: int, wave: int, processor: str) -> int:
    """The lane ds_bpermute_b32 reads for `lane` given lane `index`: GFX10/GFX11 in wave64 permute within each
    32-lane half (LLVM's GCNSubtarget::supportsWaveWideBPermute is false there; Mesa's ACO emulates a wave-wide
    bpermute for them), GFX8/9, GFX12 and wave32 across the whole wave."""
    if wave == 64 and processor.startswith(("gfx10", "gfx11")):
        return (lane & 32) | (index & 31)
    return index % wave


# -- 1. softmax ------------------------------------------------------------------------------------------------
def _tree(vals: np.ndarray, op) -> np.float32:
    red = vals.copy()
    s = red.size // 2
    while s:
        red[:s] = op(red[:s], red[s:2 * s])
        s //= 2
    return red[0]


def case_softmax() -> Case:
    rows = 4
    x = uniform32(101, rows * 64, -8.0, 8.0)

    def twin(wave):
        y = np.zeros(rows * 64, F32)
        lse = np.zeros(rows, F32)
        for r in range(rows):
            v = x[r * 64:(r + 1) * 64]
            m = _tree(v, np.fmax)
            e = np.exp((v - m).astype(np.float64)).astype(F32)
            s = _tree(e, np.add)
            y[r * 64:(r + 1) * 64] = e / s
            lse[r] = F32(np.log(np.float64(s))) + m
        return [y, lse]

    return Case("softmax_rows", (rows * 64, 1, 1), (64, 1, 1), [x, Out(F32, rows * 64), Out(F32, rows)], twin,
                tolerance={0: TOL_TRANSCENDENTAL, 1: TOL_TRANSCENDENTAL})


# -- 2. layernorm ----------------------------------------------------------------------------------------------
def _butterfly(v: np.ndarray, wave: int, processor: str = "") -> np.ndarray:
    """shfl_xor sum over each wave of v: every lane ends with fl(s_i + s_(i^m)) for m = 1, 2, 4, ... (on GFX10/11
    wave64 the m = 32 step reads the lane itself: bpermute_lane)."""
    s = v.copy()
    idx = np.arange(s.size)
    m = 1
    while m < wave:
        src = np.array([i - i % wave + bpermute_lane(i % wave, (i % wave) ^ m, wave, processor) for i in idx])
        s = s + s[src]
        m <<= 1
    return s


def case_layernorm() -> Case:
    rows = 4
    x = uniform32(102, rows * 64, -3.0, 5.0)
    gamma = uniform32(103, 64, 0.5, 1.5)
    beta = uniform32(104, 64, -0.25, 0.25)

    def twin(wave, processor=""):
        y = np.zeros(rows * 64, F32)
        stats = np.zeros(2 * rows, F32)
        for r in range(rows):
            v = x[r * 64:(r + 1) * 64]
            s = _butterfly(v, wave, processor)
            tot = F32(0.0)
            for w in range(64 // wave):
                tot = F32(tot + s[w * wave])
            mean = F32(tot / F32(64.0))
            d = v - mean
            q = _butterfly(d * d, wave, processor)
            var = F32(0.0)
            for w in range(64 // wave):
                var = F32(var + q[w * wave])
            var = F32(var / F32(64.0))
            rstd = F32(F32(1.0) / np.sqrt(F32(var + F32(1e-5))))
            y[r * 64:(r + 1) * 64] = d * rstd * gamma + beta
            stats[2 * r:2 * r + 2] = [mean, rstd]
        return [y, stats]

    return Case("layernorm_rows", (rows * 64, 1, 1), (64, 1, 1),
                [x, gamma, beta, Out(F32, rows * 64), Out(F32, 2 * rows)], twin)


# -- 3. wave shuffles --------------------------------------------------------------------------------------------
def _scan_up(v: list[int], wave: int, processor: str) -> list[int]:
    """The shfl_up inclusive scan of one wave: `o = shfl_up(sc, d); if (lane >= d) sc += o;` for d = 1, 2, 4, ..."""
    sc = v[:]
    d = 1
    while d < wave:
        sc = [(sc[lane] + sc[bpermute_lane(lane, lane - d, wave, processor)]) & M32 if lane >= d else sc[lane]
              for lane in range(wave)]
        d <<= 1
    return sc


def case_wave_reduce_scan() -> Case:
    n = 128
    a = u32s(105, n)

    def twin(wave, processor=""):
        out = np.zeros(3 * n, np.uint32)

        def shfl(vals: list[int], lane: int, index: int) -> int:
            return vals[bpermute_lane(lane, index, wave, processor)]

        for w0 in range(0, n, wave):
            v = [int(t) for t in a[w0:w0 + wave]]
            s = v[:]
            d = wave // 2
            while d:  # shfl_down: a lane whose lane + d leaves the wave reads itself
                s = [(s[lane] + shfl(s, lane, lane + d if lane + d < wave else lane)) & M32 for lane in range(wave)]
                d //= 2
            sc = _scan_up(v, wave, processor)
            mx = v[:]
            m = 1
            while m < wave:
                mx = [max(mx[lane], shfl(mx, lane, lane ^ m)) for lane in range(wave)]
                m <<= 1
            for lane in range(wave):
                out[3 * (w0 + lane):3 * (w0 + lane) + 3] = [s[lane], sc[lane], mx[lane]]
        return [out]

    return Case("wave_reduce_scan", (n, 1, 1), (64, 1, 1), [a, Out(np.uint32, 3 * n)], twin)


# -- 4. ballot compaction ----------------------------------------------------------------------------------------
def case_ballot_compact() -> Case:
    n = 256
    a = u32s(106, n)
    a[128 + 64:128 + 96] = a[128 + 64:128 + 96] // 3 * 3 + 1  # one 32-lane stretch keeps nothing
    a[40:48] = a[40:48] // 3 * 3  # and one keeps a run

    def twin(wave):
        out = np.full(n, M32, np.uint32)
        counts = np.zeros(2, np.uint32)
        info = np.zeros(n, np.uint32)
        for b in range(2):
            vals = [int(v) for v in a[b * 128:(b + 1) * 128]]
            keep = [v % 3 == 0 for v in vals]
            kept = [v for v, k in zip(vals, keep, strict=True) if k]
            out[b * 128:b * 128 + len(kept)] = kept
            counts[b] = len(kept)
            for w in range(128 // wave):
                mask = sum(1 << i for i in range(wave) if keep[w * wave + i])
                ffs = (mask & -mask).bit_length()
                clz = 64 - mask.bit_length()
                for lane in range(wave):
                    rank = bin(mask & ((1 << lane) - 1)).count("1")
                    pop_not = 64 - bin(mask).count("1")
                    info[b * 128 + w * wave + lane] = ffs | (clz << 8) | (rank << 16) | (pop_not << 24)
        return [out, counts, info]

    return Case("ballot_compact", (n, 1, 1), (128, 1, 1),
                [a, Out(np.uint32, n, np.full(n, M32, np.uint32)), Out(np.uint32, 2), Out(np.uint32, n)], twin)


# -- 5. sgemm ----------------------------------------------------------------------------------------------------
def case_sgemm() -> Case:
    m, n, k = 16, 16, 24
    a = uniform32(107, m * k, -1.0, 1.0)
    b = uniform32(108, k * n, -1.0, 1.0)
    bias = uniform32(109, n, -0.5, 0.5)
    alpha = 0.75

    def twin(wave):
        A, B = a.reshape(m, k), b.reshape(k, n)
        acc = np.zeros((m, n), F32)
        for kk in range(k):
            acc = acc + np.outer(A[:, kk], B[kk, :]).astype(F32)  # outer of float32 rows: exact products, rounded
        return [(F32(alpha) * acc + bias).reshape(-1)]

    return Case("sgemm_tiled", (n, m, 1), (8, 8, 1),
                [a, b, bias, Out(F32, m * n), f"i32:{m}", f"i32:{n}", f"i32:{k}", f"f32:{alpha}"], twin)


# -- 6. hgemm on half2 ------------------------------------------------------------------------------------------
def case_hgemm() -> Case:
    m = n = 16
    k = 32
    a = np.array([(int(x >> 58) - 32) / 16.0 for x in splitmix64(110, m * k)], dtype=F16)
    bt = np.array([(int(x >> 58) - 32) / 16.0 for x in splitmix64(111, n * k)], dtype=F16)

    def twin(wave):
        c = np.zeros(m * n, F16)
        cf = np.zeros(m * n, F32)
        for r in range(m):
            for col in range(n):
                acc = [F16(0.0), F16(0.0)]
                for k2 in range(k // 2):
                    for half in range(2):
                        p = h(float(a[r * k + 2 * k2 + half]) * float(bt[col * k + 2 * k2 + half]))
                        acc[half] = h(float(acc[half]) + float(p))
                c[r * n + col] = h(float(acc[0]) + float(acc[1]))
                cf[r * n + col] = F32(F32(acc[0]) * F32(0.5)) - F32(acc[1])
        return [c, cf]

    return Case("hgemm_half2", (n, m, 1), (8, 8, 1),
                [a, bt, Out(F16, m * n), Out(F32, m * n), f"i32:{n}", f"i32:{k // 2}"], twin)


# -- 7. stencil --------------------------------------------------------------------------------------------------
def case_stencil() -> Case:
    w, hgt = 24, 16
    a = uniform32(112, w * hgt, -4.0, 4.0)

    def twin(wave):
        g = a.reshape(hgt, w)
        out = np.zeros((hgt, w), F32)
        for y in range(hgt):
            for x in range(w):
                def at(xx, yy):
                    return g[min(max(yy, 0), hgt - 1), min(max(xx, 0), w - 1)]
                ns = F32(at(x, y - 1) + at(x, y + 1))
                ew = F32(at(x - 1, y) + at(x + 1, y))
                out[y, x] = F32(F32(0.5) * g[y, x]) + F32(F32(0.125) * F32(ns + ew))
        return [out.reshape(-1)]

    return Case("stencil5", (w, hgt, 1), (8, 8, 1), [a, Out(F32, w * hgt), f"i32:{w}", f"i32:{hgt}"], twin)


# -- 8. CSR SpMV -------------------------------------------------------------------------------------------------
def case_spmv() -> Case:
    nrows, ncols = 64, 64
    lens = [int(x >> 59) % 21 for x in splitmix64(113, nrows)]
    lens[5] = 0
    rowptr = np.zeros(nrows + 1, np.int32)
    rowptr[1:] = np.cumsum(lens)
    nnz = int(rowptr[-1])
    cols = np.array([int(x >> 40) % ncols for x in splitmix64(114, nnz)], dtype=np.int32)
    vals = uniform32(115, nnz, -2.0, 2.0)
    xv = uniform32(116, ncols, -1.0, 1.0)

    def twin(wave):
        y1 = np.zeros(nrows, F32)
        y2 = np.zeros(nrows, F32)
        for r in range(nrows):
            lo, hi = int(rowptr[r]), int(rowptr[r + 1])
            acc = F32(0.0)
            for j in range(lo, hi):
                acc = F32(acc + F32(vals[j] * xv[cols[j]]))
            y1[r] = acc
            s = []
            for lane in range(8):
                p = F32(0.0)
                for j in range(lo + lane, hi, 8):
                    p = F32(p + F32(vals[j] * xv[cols[j]]))
                s.append(p)
            for d in (4, 2, 1):
                s = [F32(s[lane] + s[lane + d if lane + d < 8 else lane]) for lane in range(8)]
            y2[r] = s[0]
        return [y1, y2]

    return Case("spmv_csr", (8 * nrows, 1, 1), (64, 1, 1),
                [rowptr, cols, vals, xv, Out(F32, nrows), Out(F32, nrows), f"i32:{nrows}"], twin)


# -- 9. radix digit counting -----------------------------------------------------------------------------------
def case_radix() -> Case:
    n, shift = 256, 4
    keys = u32s(117, n)

    def twin(wave):
        digits = [(int(k) >> shift) & 15 for k in keys]
        counts = np.bincount(digits, minlength=16).astype(np.uint32)
        bh = np.concatenate([np.bincount(digits[b * 64:(b + 1) * 64], minlength=16) for b in range(4)])
        offs = np.zeros(17, np.uint32)
        offs[1:] = np.cumsum(counts)
        return [counts, bh.astype(np.uint32), offs, np.array([4], np.uint32)]

    return Case("radix_digits", (n, 1, 1), (64, 1, 1),
                [keys, Out(np.uint32, 16), Out(np.uint32, 64), Out(np.uint32, 17), Out(np.uint32, 1),
                 f"u32:{shift}"], twin)


# -- 10. chained scan --------------------------------------------------------------------------------------------
def case_chained_scan() -> Case:
    n = 256
    a = u32s(118, n)

    def twin(wave, processor=""):
        out = np.zeros(n, np.uint32)
        for b in range(n // 64):  # a wave scan, the earlier waves' totals, then the earlier blocks' prefix
            row = [int(t) for t in a[b * 64:(b + 1) * 64]]
            scans = [_scan_up(row[w0:w0 + wave], wave, processor) for w0 in range(0, 64, wave)]
            totals = [sc[-1] for sc in scans]
            for w, sc in enumerate(scans):
                for lane in range(wave):
                    out[b * 64 + w * wave + lane] = (sc[lane] + sum(totals[:w])) & M32
        incl = np.zeros(n // 64, np.uint32)
        prefix = 0
        for b in range(n // 64):
            prefix = (prefix + int(out[b * 64 + 63])) & M32
            incl[b] = prefix
            earlier = (prefix - int(out[b * 64 + 63])) & M32
            out[b * 64:(b + 1) * 64] = (out[b * 64:(b + 1) * 64].astype(np.uint64) + earlier) & M32
        return [out, incl, np.ones(4, np.uint32), np.array([4], np.uint32)]

    return Case("chained_scan", (n, 1, 1), (64, 1, 1),
                [a, Out(np.uint32, n), Out(np.uint32, 4), Out(np.uint32, 4), Out(np.uint32, 1)], twin)


# -- 11. bit twiddling -------------------------------------------------------------------------------------------
def _clz(v: int, bits: int) -> int:
    return bits - v.bit_length()


def _ctz(v: int) -> int:
    return (v & -v).bit_length() - 1


def _rotl(v: int, r: int, bits: int) -> int:
    m = (1 << bits) - 1
    r %= bits
    return ((v << r) | (v >> (bits - r))) & m if r else v


def _clrsb(v: int, bits: int) -> int:
    u = v & ((1 << bits) - 1)
    if u >> (bits - 1):
        u = ~u & ((1 << bits) - 1)
    return _clz(u, bits) - 1


def _spread16(x: int) -> int:
    return sum(((x >> i) & 1) << (2 * i) for i in range(16))


def _bswap(v: int, nbytes: int) -> int:
    return int.from_bytes(v.to_bytes(nbytes, "little"), "big")


def case_bit_twiddle() -> Case:
    n = 128
    a = u64s(119, n)
    b = u64s(120, n)
    a[:6] = [0, 1, M64, 1 << 63, 0x8000000000000001, 0xFFFFFFFF]
    b[:6] = [0, M64, 1, 63 << 8, 0x100, 0x80000000]

    def twin(wave):
        out = np.zeros(16 * n, np.uint64)
        for g in range(n):
            x, y = int(a[g]), int(b[g])
            r = y & 63
            o = [0] * 16
            o[0] = int(f"{x:064b}"[::-1], 2)
            o[1] = _clz(x | 1, 64) | (_ctz(x | (1 << 63)) << 32)
            o[2] = bin(x ^ y).count("1") | ((bin(x).count("1") & 1) << 8) | ((_ctz(y) + 1 if y else 0) << 16)
            o[3] = _bswap(x, 8) ^ _bswap(y & M32, 4)
            o[4] = _rotl(x, r, 64)
            o[5] = _rotl(x & M32, 32 - ((y >> 8) & 31), 32) | (_rotl(y & M16, 3, 16) << 32)
            o[6] = (x >> (8 * (y & 3))) & M32
            o[7] = (s64(x << 7) >> 51) & M64
            o[8] = x ^ (x >> 1)
            o[9] = x
            small = (y & M32) >> 1
            o[10] = 1 if small <= 1 else 1 << (32 - _clz(small - 1, 32))
            o[11] = _spread16(x & M16) | (_spread16(y & M16) << 1)
            o[12] = x & (-x & M64)
            o[13] = x & ((x - 1) & M64)
            o[14] = _clrsb(y, 64) | (_clrsb(x & M32, 32) << 32)
            o[15] = ((x >> 32) * (y & M32) + ((y >> 40) ^ ((x << 24) & M64))) & M64
            out[16 * g:16 * g + 16] = o
        return [out]

    return Case("bit_twiddle", (n, 1, 1), (64, 1, 1), [a, b, Out(np.uint64, 16 * n)], twin)


# -- 12. hashes --------------------------------------------------------------------------------------------------
def case_hash_mix() -> Case:
    n = 128
    a = u64s(121, n)
    a[0], a[1] = 0, M64

    def twin(wave):
        out = np.zeros(6 * n, np.uint64)
        for g in range(n):
            x = int(a[g])
            s = x | 1
            for _ in range(8):
                s ^= s >> 12
                s ^= (s << 25) & M64
                s ^= s >> 27
            hh = 2166136261
            for i in range(8):
                hh = ((hh ^ ((x >> (8 * i)) & 0xFF)) * 16777619) & M32
            m = x * (x ^ 0xE7037ED1A0B428DB)
            k1 = ((x & M32) * 0xCC9E2D51) & M32
            k1 = (_rotl(k1, 15, 32) * 0x1B873593) & M32
            h1 = (x >> 32) ^ k1
            h1 = (_rotl(h1, 13, 32) * 5 + 0xE6546B64) & M32
            h1 ^= 4
            h1 ^= h1 >> 16
            h1 = (h1 * 0x85EBCA6B) & M32
            h1 ^= h1 >> 13
            h1 = (h1 * 0xC2B2AE35) & M32
            h1 ^= h1 >> 16
            state = (x * 6364136223846793005 + 1442695040888963407) & M64
            xs = (((state >> 18) ^ state) >> 27) & M32
            rot = state >> 59
            pcg = ((xs >> rot) | (xs << ((-rot) & 31))) & M32
            out[6 * g:6 * g + 6] = [_fmix64(x), (s * 0x2545F4914F6CDD1D) & M64, hh, (m & M64) ^ (m >> 64), h1, pcg]
        return [out]

    return Case("hash_mix", (n, 1, 1), (64, 1, 1), [a, Out(np.uint64, 6 * n)], twin)


# -- 13. conversions ---------------------------------------------------------------------------------------------
def case_convert() -> Case:
    n = 128
    raw = splitmix64(122, 4 * n)
    xf = np.array([((r >> 40) / float(1 << 24) - 0.5) * 2.0 ** ((r >> 8) % 80 - 20) for r in raw[:n]], dtype=F32)
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 2.0 ** 31, -(2.0 ** 31), 2147483520.0, -2147483904.0, 65504.0,
                65520.0, 65519.0, 1e-8, 6.0e-8, 0.5, 1.5, 2.5, -0.5, -1.5, 0.998, 1.0 / 255, 65.5355, 3e19,
                1.8446742e19, 2.0 ** 64, -3.7, 255.4 / 255, 0.0019607844]
    xf[:len(specials)] = np.array(specials, dtype=F32)
    xi = np.array([s32(r >> 32) >> ((r >> 3) % 28) for r in raw[n:2 * n]], dtype=np.int32)
    xi[:8] = [0, -1, 65504, 65520, 65519, -70000, 2 ** 31 - 1, -2 ** 31]
    xu = np.array([r >> ((r >> 1) % 60) for r in raw[2 * n:3 * n]], dtype=np.uint64)
    xu[:6] = [0, M64, 1 << 63, (1 << 24) + 1, (1 << 53) + 1, 0xFFFFFF7FFFFFFFFF]
    xd = np.array([((r >> 11) / float(1 << 53) - 0.5) * 2.0 ** ((r >> 3) % 300 - 150) for r in raw[3 * n:]],
                  dtype=np.float64)
    xd[:6] = [1e39, -1e39, 1e-40, 1.0000000596046448, 3.4028235677973366e38, 1.401298464324817e-45]

    def twin(wave):
        oi = np.zeros(4 * n, np.int32)
        oh = np.zeros(3 * n, F16)
        of = np.zeros(3 * n, F32)
        od = np.zeros(2 * n, np.float64)
        ou = np.zeros(n, np.uint64)
        with np.errstate(all="ignore"):
            for g in range(n):
                x, nn, u, d = xf[g], int(xi[g]), int(xu[g]), float(xd[g])
                if np.isnan(x):
                    sat = 0
                elif x >= F32(2.0 ** 31):
                    sat = 2 ** 31 - 1
                elif x < F32(-(2.0 ** 31)):
                    sat = -2 ** 31
                else:
                    sat = int(x)
                r8 = np.fmin(np.fmax(np.rint(F32(x * F32(255.0))), F32(0.0)), F32(255.0))
                r16 = np.fmin(np.fmax(F32(x * F32(1000.0)), F32(0.0)), F32(65535.0))
                hx = F16(x)
                oi[4 * g:4 * g + 4] = [sat, int(r8), int(r16), int(float(hx)) if np.isfinite(hx) else -1]
                oh[3 * g:3 * g + 3] = [hx, h(float(nn)), h(float(nn & 2047) * 0.25)]
                of[3 * g:3 * g + 3] = [int_to_f32(u), F32(d), int_to_f32(nn & M32)]
                od[2 * g:2 * g + 2] = [float(s64(u)), float(x) * 3.0]
                ax = abs(float(x))
                ou[g] = 0 if math.isnan(ax) else (M64 if ax >= 2.0 ** 64 else int(ax))
        return [oi, oh, of, od, ou]

    return Case("convert_sat", (n, 1, 1), (64, 1, 1),
                [xf, xi, xu, xd, Out(np.int32, 4 * n), Out(F16, 3 * n), Out(F32, 3 * n), Out(np.float64, 2 * n),
                 Out(np.uint64, n)], twin)


# -- 14. grid-stride axpy ----------------------------------------------------------------------------------------
def case_axpy() -> Case:
    n, threads = 1000, 128
    a, ad = 1.75, -0.3
    x = uniform32(123, n, -10.0, 10.0)
    y0 = uniform32(124, n, -10.0, 10.0)
    xd = np.array([(r >> 11) / float(1 << 53) * 20 - 10 for r in splitmix64(125, n // 2)])
    yd0 = np.array([(r >> 11) / float(1 << 53) * 20 - 10 for r in splitmix64(126, n // 2)])

    def twin(wave):
        y = F32(a) * x + y0
        yd = np.array([fma64(ad, float(p), float(q)) for p, q in zip(xd, yd0, strict=True)])
        iters = np.array([len(range(g, n, threads)) + 1000 * len(range(g, n // 2, threads)) for g in range(threads)],
                         dtype=np.int32)
        return [y, yd, iters]

    return Case("grid_stride_axpy", (threads, 1, 1), (64, 1, 1),
                [x, Out(F32, n, y0), xd, Out(np.float64, n // 2, yd0), Out(np.int32, threads), f"i32:{n}",
                 f"f32:{a}", f"f64:{ad}"], twin)


# -- 15. structs by value, templates -----------------------------------------------------------------------------
def case_struct_byval() -> Case:
    n = 128
    pos = uniform32(127, 4 * n, -1.5, 1.5)
    pos[3::4] = uniform32(128, n, -2.0, 2.0)
    lo = [F32(-1.0), F32(-2.0), F32(-0.5)]
    hi = [F32(1.0), F32(2.0), F32(0.5)]

    def horner(x, count, conv):
        r = conv(0)
        for i in range(count):
            r = conv(r * x + (i + 1))
        return r

    def twin(wave):
        opos = np.zeros(3 * n, F32)
        ids = np.zeros(n, np.int32)
        poly = np.zeros(4 * n, np.int64)
        for g in range(n):
            c = [pos[4 * g], pos[4 * g + 1], pos[4 * g + 2]]
            pid = g
            vx = pos[4 * g + 3]
            v = [vx, F32(F32(-0.75) * vx), F32(0.3)]
            for _ in range(3):
                for i in range(3):
                    nv = F32(c[i] + F32(v[i] * F32(0.5)))
                    if nv < lo[i]:
                        nv = F32(lo[i] + F32(lo[i] - nv))
                        pid += 1 << (8 * i)
                    elif nv > hi[i]:
                        nv = F32(hi[i] - F32(nv - hi[i]))
                        pid -= 1 << (8 * i)
                    c[i] = nv
            opos[3 * g:3 * g + 3] = c
            ids[g] = s32(pid)
            xi = g % 7 - 3
            pf = F32(0.0)
            for i in range(5):
                pf = F32(F32(pf * c[0]) + F32(i + 1))
            pd = 0.0
            for i in range(7):
                pd = pd * float(c[1]) + float(i + 1)
            xu = (g * 37) & M16
            pu = 0
            for i in range(4):
                pu = (pu * xu + i + 1) & M16
            poly[4 * g:4 * g + 4] = [s32(horner(xi, 6, s32)), int(pf.view(np.uint32)),
                                     s64(int(np.float64(pd).view(np.uint64))), pu]
        return [opos, ids, poly]

    return Case("struct_byval", (n, 1, 1), (64, 1, 1),
                [pos, Out(F32, 3 * n), Out(np.int32, n), Out(np.int64, 4 * n)], twin)


# -- 16. bytecode interpreter ------------------------------------------------------------------------------------
(PUSH, ADD, SUB, MUL, XOR, DUP, SWAP, SHL, SHR, MIN, MAX, NEG, LOADX, LOOP, MOD, HALT) = range(16)
PROGRAMS = [
    [LOADX, PUSH, 3, MUL, PUSH, 7, ADD, DUP, PUSH, 5, SHR, XOR, PUSH, 13, MUL, LOOP, 7, HALT],
    [LOADX, LOADX, PUSH, 16, SHR, SWAP, DUP, PUSH, 3, SHL, SUB, SWAP, PUSH, 11, MOD, ADD, DUP, LOOP, 5, HALT],
    [LOADX, NEG, LOADX, MIN, PUSH, 200, MAX, LOADX, PUSH, 0, MOD, XOR, PUSH, 9, SUB, LOOP, 4, LOADX, SWAP, HALT],
    [PUSH, 1, LOADX, PUSH, 0xF0, XOR, DUP, PUSH, 2, SHL, ADD, SWAP, SUB, PUSH, 77, 0xFF],
]


def _vm_binop(op: int, a: int, b: int) -> int:
    if op == ADD:
        return (a + b) & M32
    if op == SUB:
        return (a - b) & M32
    if op == MUL:
        return (a * b) & M32
    if op == XOR:
        return a ^ b
    if op == SHL:
        return (a << (b & 31)) & M32
    if op == SHR:
        return a >> (b & 31)
    if op == MIN:
        return b if s32(b) < s32(a) else a
    if op == MAX:
        return max(a, b)
    return a % b if b else a  # MOD


def run_vm(prog: list[int], x: int) -> tuple[int, int, int]:
    st: list[int] = []
    pc = n = 0
    ctr = (x & 3) + 2
    while n < 200:
        op = prog[pc]
        pc += 1
        n += 1
        if op == PUSH:
            st.append(prog[pc])
            pc += 1
        elif op in (ADD, SUB, MUL, XOR, SHL, SHR, MIN, MAX, MOD):
            b = st.pop()
            a = st.pop()
            st.append(_vm_binop(op, a, b))
        elif op == DUP:
            st.append(st[-1])
        elif op == SWAP:
            st[-1], st[-2] = st[-2], st[-1]
        elif op == NEG:
            st[-1] = -st[-1] & M32
        elif op == LOADX:
            st.append(x)
        elif op == LOOP:
            target = prog[pc]
            pc += 1
            ctr -= 1
            if ctr:
                pc = target
        else:
            break
        assert 0 < len(st) <= 16 or op in (HALT, 0xFF)
    return (st[-1] if st else 0xDEAD), len(st), n


def case_bytecode_vm() -> Case:
    n = 128
    prog = np.zeros(128, np.uint8)
    for i, p in enumerate(PROGRAMS):
        assert len(p) <= 32
        prog[32 * i:32 * i + len(p)] = p
    x = u32s(129, n)
    x[:4] = [0, M32, 0x80000000, 5]

    def twin(wave):
        out = np.zeros(2 * n, np.uint32)
        steps = np.zeros(n, np.uint32)
        for g in range(n):
            top, sp, cnt = run_vm(PROGRAMS[g % 4], int(x[g]))
            out[2 * g:2 * g + 2] = [top, sp]
            steps[g] = cnt
        return [out, steps]

    return Case("bytecode_vm", (n, 1, 1), (64, 1, 1), [prog, x, Out(np.uint32, 2 * n), Out(np.uint32, n)], twin)


# -- 17. recursion -----------------------------------------------------------------------------------------------
def case_recursion(exponent_mask: int = 0x7) -> Case:
    """in[10g + 3] is powmod_rec's exponent (the kernel takes its low byte): one call frame per halving, an -O0 frame
    of 112 to 160 bytes. Exponents below 8 (at most four powmod_rec frames) keep every -O0 object within the 1 KiB
    stack per work-item HIP gives a dynamic-stack kernel by default (amddbg/emu/machine.py DYNAMIC_STACK; the deepest
    object peaks at 944 bytes, gcd_rec's nine frames), as a real launch needs. The whole byte (nine powmod_rec frames,
    1136 to 1664 bytes at -O0) overruns it: tests/emu/test_heldout.py checks that such a launch faults, and completes
    with a larger stack size."""
    n = 128
    a = np.array([s32(r >> 32) % 2001 - 1000 for r in splitmix64(130, 10 * n)], dtype=np.int32)
    a[20:30] = 7  # all equal
    a[30:40] = np.arange(10)[::-1]
    a[3::10] &= exponent_mask

    def twin(wave):
        srt = np.concatenate([np.sort(a[10 * g:10 * g + 10]) for g in range(n)]).astype(np.int32)
        misc = np.zeros(n, np.uint32)
        pw = np.zeros(n, np.uint64)
        for g in range(n):
            x, y = int(a[10 * g]) & 0xFF, int(a[10 * g + 1]) & 0x3F
            misc[g] = math.gcd(x * 6, y * 4 + 2)
            pw[g] = pow(int(a[10 * g + 2]) & M32, int(a[10 * g + 3]) & 0xFF, 1000000007)
        return [srt, misc, pw]

    return Case("recursion", (n, 1, 1), (64, 1, 1), [a, Out(np.int32, 10 * n), Out(np.uint32, n), Out(np.uint64, n)],
                twin)


# -- 18. float atomics -------------------------------------------------------------------------------------------
def case_float_atomics() -> Case:
    n = 128
    a = u32s(131, n)
    f0 = np.array([0, 0, -1e30, -1e30], dtype=F32)

    def twin(wave):
        v = [int(t) for t in a]
        f = np.array([sum(t % 16 for t in v), sum((t & 7) * 0.25 for t in v), max(t % 1000 - 500.5 for t in v),
                      max(t % 2001 - 1000 for t in v)], dtype=F32)
        d = np.array([float(sum(t % 100000 for t in v)), min(0.0, min((t >> 8) * -0.5 for t in v))])
        lo = np.zeros(4, F32)
        for b in range(2):
            blk = v[64 * b:64 * (b + 1)]
            lo[2 * b] = sum((t & 3) * 0.5 for t in blk)
            lo[2 * b + 1] = -sum(t % 10 for t in blk)
        return [f, d, lo]

    return Case("float_atomics", (n, 1, 1), (64, 1, 1),
                [a, Out(F32, 4, f0), Out(np.float64, 2), Out(F32, 4)], twin)


# -- 19. per-bucket atomics --------------------------------------------------------------------------------------
def case_bucket_extrema() -> Case:
    n = 128
    a = u32s(132, n)
    a[:3] = [0, M32, 7]

    def twin(wave):
        v = [int(t) for t in a]
        umax = np.zeros(8, np.uint32)
        imin = np.full(8, 2 ** 31 - 1, np.int32)
        u64max = np.zeros(8, np.uint64)
        i64min = np.full(8, 2 ** 63 - 1, np.int64)
        inc = np.zeros(8, np.uint32)
        dec = np.zeros(8, np.uint32)
        for t in v:
            b = t & 7
            sv = (t >> 3) - (1 << 27)
            umax[b] = max(int(umax[b]), t >> 4)
            imin[b] = min(int(imin[b]), sv)
            u64max[b] = max(int(u64max[b]), t * 0x10001)
            i64min[b] = min(int(i64min[b]), sv * 1000003)
            inc[b] = 0 if inc[b] >= 6 else inc[b] + 1
            dec[b] = 4 if dec[b] == 0 or dec[b] > 4 else dec[b] - 1
        lds = np.zeros(64, np.int32)
        for blk in range(2):
            for b in range(8):
                mine = [(t, i) for i, t in enumerate(v[64 * blk:64 * blk + 64]) if t & 7 == b]
                lmax = max([(t >> 3) - (1 << 27) for t, _ in mine], default=-2 ** 31)
                lmin = min([t ^ 0x5A5A5A5A for t, _ in mine], default=M32)
                l64 = min([-t * (i + 1) for t, i in mine], default=2 ** 63 - 1) & M64
                lds[32 * blk + 4 * b:32 * blk + 4 * b + 4] = [lmax, s32(lmin), s32(l64), s32(l64 >> 32)]
        return [umax, imin, u64max, i64min, inc, dec, lds]

    return Case("bucket_extrema", (n, 1, 1), (64, 1, 1),
                [a, Out(np.uint32, 8), Out(np.int32, 8, np.full(8, 2 ** 31 - 1)), Out(np.uint64, 8),
                 Out(np.int64, 8, np.full(8, 2 ** 63 - 1)), Out(np.uint32, 8), Out(np.uint32, 8), Out(np.int32, 64)],
                twin)


# -- 20. int8 dot products ---------------------------------------------------------------------------------------
def case_int8_dot() -> Case:
    n = 128
    scale = 37.5
    a = u32s(133, 4 * n)
    b = u32s(134, 4 * n)
    a[:4] = 0x80808080
    b[:4] = 0x80808080
    xf = uniform32(135, 4 * n, -5.0, 5.0)
    xf[:6] = [0.0, -0.0, 2.0 / 75, 3.0 / 75, 1000.0, -1000.0]

    def twin(wave):
        dots = np.zeros(3 * n, np.int32)
        q = np.zeros(4 * n, np.int8)
        for g in range(n):
            ab = a[4 * g:4 * g + 4].tobytes()
            bb = b[4 * g:4 * g + 4].tobytes()
            sd = sum((x - 256 if x > 127 else x) * (y - 256 if y > 127 else y) for x, y in zip(ab, bb, strict=True))
            ud = sum(x * y for x, y in zip(ab, bb, strict=True))
            dots[3 * g:3 * g + 3] = [sd, sd, s32(ud)]
            for k in range(4):
                r = np.rint(F32(xf[4 * g + k] * F32(scale)))
                q[4 * g + k] = int(min(max(r, F32(-128.0)), F32(127.0)))
        return [dots, q]

    return Case("int8_dot", (n, 1, 1), (64, 1, 1),
                [a, b, xf, Out(np.int32, 3 * n), Out(np.int8, 4 * n), f"f32:{scale}"], twin)


# -- 21. vector types --------------------------------------------------------------------------------------------
def case_vec4() -> Case:
    n = 128
    fa = uniform32(136, 4 * n, -3.0, 3.0)
    fb = uniform32(137, 4 * n, -3.0, 3.0)
    ia = u32s(138, 4 * n).view(np.int32)
    ha = np.array([(int(r >> 54) - 512) / 64.0 for r in splitmix64(139, 4 * n)], dtype=F16)

    def twin(wave):
        fo = np.zeros(4 * n, F32)
        io = np.zeros(4 * n, np.int32)
        ho = np.zeros(4 * n, F16)
        dot = np.zeros(n, F32)
        for g in range(n):
            ax, ay, az, aw = fa[4 * g:4 * g + 4]
            bx, by, bz, bw = fb[4 * g:4 * g + 4]
            fo[4 * g:4 * g + 4] = [F32(ax * bw) + ay, F32(ay * bz) + ax, F32(az * by) + aw,
                                   F32(F32(aw * bx) + az) - ax]
            i = [int(t) for t in ia[4 * g:4 * g + 4]]
            j = [(i[k] + i[(k + 2) % 4]) & M32 for k in range(4)]
            j[0] ^= j[3]
            io[4 * g:4 * g + 4] = [s32(((j[k] << 3) | ((i[k] >> 29) & M32)) & M32) for k in range(4)]
            hv = [float(t) for t in ha[4 * g:4 * g + 4]]
            k4 = [h(hv[k] * hv[(k + 1) % 4]) for k in range(4)]
            ho[4 * g:4 * g + 4] = [h(float(k4[k]) + hv[k]) for k in range(4)]
            dot[g] = F32(F32(ax * bx) + F32(ay * by)) + F32(F32(az * bz) + F32(aw * bw))
        return [fo, io, ho, dot]

    return Case("vec4_math", (n, 1, 1), (64, 1, 1),
                [fa, fb, ia, ha, Out(F32, 4 * n), Out(np.int32, 4 * n), Out(F16, 4 * n), Out(F32, n)], twin)


# -- 22. block votes ---------------------------------------------------------------------------------------------
def case_sync_votes() -> Case:
    n = 256
    a = u32s(140, n)
    a[a == M32] = 1
    a[:128] = np.where(a[:128] % 97 == 5, a[:128] + 1, a[:128])
    a[77] = 0
    a[200] = 97 * 1000 + 5
    a[201] = M32

    def twin(wave):
        out = np.zeros(8, np.uint32)
        for b in range(2):
            v = [int(t) for t in a[128 * b:128 * (b + 1)]]
            out[4 * b:4 * b + 4] = [sum(t & 1 for t in v), all(t != 0 for t in v), any(t % 97 == 5 for t in v),
                                    all(t != M32 for t in v)]
        return [out]

    return Case("sync_votes", (n, 1, 1), (128, 1, 1), [a, Out(np.uint32, 8)], twin)


# -- 23. dynamic shared memory -----------------------------------------------------------------------------------
def case_dyn_shared() -> Case:
    n, block = 128, 64
    a = uniform32(141, n, -100.0, 100.0)

    def twin(wave):
        out = np.zeros(2 * n, F32)
        tag = np.zeros(8, np.uint32)
        for b in range(n // block):
            blk = a[b * block:(b + 1) * block]
            out[2 * b * block:2 * (b + 1) * block:2] = blk[::-1]
            out[2 * b * block + 1:2 * (b + 1) * block:2] = np.maximum.accumulate(blk)
            tag[4 * b:4 * b + 4] = [(3 - t) * 0x01010101 for t in range(4)]
        return [out, tag]

    return Case("dyn_shared", (n, 1, 1), (block, 1, 1), [a, Out(F32, 2 * n), Out(np.uint32, 8)], twin,
                dynamic_lds=2 * block * 4)


# -- 24. transcendentals -----------------------------------------------------------------------------------------
def case_transcend() -> Case:
    n = 128
    x = uniform32(142, n, -10.0, 10.0)
    x[:4] = [0.0, -0.0, 1.0, -1.0]

    def twin(wave):
        out = np.zeros(12 * n, F32)
        d = np.float64
        with np.errstate(all="ignore"):
            for g in range(n):
                v = x[g]
                ax = F32(abs(v))
                e = F32(np.exp(d(v)))
                en = F32(np.exp(d(-v)))
                e2 = F32(np.exp(d(F32(F32(2.0) * v))))
                out[12 * g:12 * g + 12] = [
                    e, F32(np.log(d(F32(ax + F32(0.01))))), F32(np.exp2(d(F32(v * F32(1.5))))),
                    F32(np.log2(d(F32(F32(ax * F32(100.0)) + F32(1.0))))), F32(np.sin(d(F32(v * F32(0.3))))),
                    F32(np.cos(d(F32(v * F32(0.3))))), F32(1.0 / np.sqrt(d(F32(ax + F32(0.5))))),
                    F32(1.0 / d(F32(v + F32(20.0)))), F32(v / F32(F32(1.0) + en)),
                    F32(np.log(d(F32(F32(1.0) + e)))), F32(F32(e2 - F32(1.0)) / F32(e2 + F32(1.0))),
                    np.sqrt(F32(ax * F32(3.0)))]
        return [out]

    return Case("transcend", (n, 1, 1), (64, 1, 1), [x, Out(F32, 12 * n)], twin, tolerance={0: TOL_TRANSCENDENTAL})


def all_cases() -> list[Case]:
    """Every held-out kernel with inputs and twin, in source order."""
    return [case_softmax(), case_layernorm(), case_wave_reduce_scan(), case_ballot_compact(), case_sgemm(),
            case_hgemm(), case_stencil(), case_spmv(), case_radix(), case_chained_scan(), case_bit_twiddle(),
            case_hash_mix(), case_convert(), case_axpy(), case_struct_byval(), case_bytecode_vm(), case_recursion(),
            case_float_atomics(), case_bucket_extrema(), case_int8_dot(), case_vec4(), case_sync_votes(),
            case_dyn_shared(), case_transcend()]
