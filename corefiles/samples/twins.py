"""Host side of the third-party samples (samples.hip): each sample's inputs, its launches as an `amddbg run
--script` document, and its own host check ported to numpy, plus a twin where the sample's check is loose.

Facts carry over from the samples (cited in samples.hip): launch shapes, data layouts and the host checks. The
inputs are the samples' kinds of data drawn from a fixed splitmix64 stream (the samples call rand(); the values
differ, the distributions do not), and sizes are cut where the sample takes a size from its command line, so a run
stays in the emulator's CI budget (each case says what it cut).

`Sample.check(out, wave)` gets the final named buffers (numpy arrays) and returns a list of problems: the
sample's own verdict first (its messages as it prints them), then the twin's (bit for bit for integer kernels
and for float kernels whose operations are all correctly rounded, -ffp-contract=off; within a stated tolerance
where the sample calls expf). An empty list is a pass. Nothing here runs the emulator.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

if str(Path(__file__).resolve().parent.parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from corpus_twins import fmix64 as _fmix64  # noqa: E402  (corefiles/corpus_twins.py: shared with heldout)
from corpus_twins import splitmix64, uniform32  # noqa: E402

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
F32 = np.float32


def rand31(seed: int, n: int) -> list[int]:
    """Stand-in for C's rand(): n values in [0, 2^31)."""
    return [x >> 33 for x in splitmix64(seed, n)]


def expf(x) -> np.float32:
    """The host's expf: exp rounded once to binary32."""
    return F32(math.exp(float(x)))


def _values(a: np.ndarray) -> list:
    return [float(v) for v in a] if a.dtype.kind == "f" else [int(v) for v in a]


def buf(a: np.ndarray, typ: str) -> dict:
    return {"type": typ, "values": _values(a)}


@dataclass
class Sample:
    kernel: str
    source: str  # repository, path (commit in samples.hip)
    script: Callable[[int], dict]  # wave size -> {"buffers", "globals"?, "launches"}
    check: Callable[[dict, int], list[str]]  # (final named buffers, wave size) -> problems
    dtypes: dict  # buffer name -> numpy dtype of its values
    outputs: tuple  # the buffers the kernel writes (a test changes one value of each and expects the check to fail)
    max_instructions: int = 5_000_000


def _mismatch(name: str, got: np.ndarray, want: np.ndarray) -> list[str]:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        return [f"{name}: {got.shape} values, want {want.shape}"]
    if got.dtype.kind == "f":
        bad = np.nonzero(got.view(f"u{got.itemsize}") != want.astype(got.dtype).view(f"u{got.itemsize}"))[0]
    else:
        bad = np.nonzero(got != want)[0]
    if not bad.size:
        return []
    shown = ", ".join(f"[{i}] got {got[i].item()!r} want {want[i].item()!r}" for i in bad[:4].tolist())
    return [f"{name}: {bad.size}/{got.size} differ: {shown}"]


def _close(name: str, got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> list[str]:
    g, w = np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64)
    bad = np.nonzero(~(np.abs(g - w) <= rtol * np.abs(w) + atol))[0]
    if not bad.size:
        return []
    shown = ", ".join(f"[{i}] got {g[i]!r} want {w[i]!r}" for i in bad[:4].tolist())
    return [f"{name}: {bad.size}/{g.size} beyond rtol {rtol} atol {atol}: {shown}"]


# -- 1. reduction v7 ----------------------------------------------------------------------------------------------
RED_N = 5000  # the tutorial sweeps sizes; one size that needs two launches (10 partial sums, then 1)


def _red_input() -> np.ndarray:
    return np.array([x >> 32 for x in splitmix64(1, RED_N)], dtype=np.uint32)


def reduction_script(wave: int) -> dict:
    blocks = -(-RED_N // 512)
    return {"buffers": {"front": buf(_red_input(), "u32"), "back": f"u32:{blocks}"},
            "launches": [
                {"kernel": "reduction_v7", "grid": blocks * 256, "block": 256,
                 "args": ["@front", "@back", "u32:0", f"u32:{RED_N}"]},
                {"kernel": "reduction_v7", "grid": 256, "block": 256,
                 "args": ["@back", "@front", "u32:0", f"u32:{blocks}"]}]}


def reduction_check(out: dict, wave: int) -> list[str]:
    x = _red_input()
    want = int(x.astype(np.uint64).sum()) & M32  # std::reduce with plus on unsigned
    probs = [] if int(out["front"][0]) == want else [f"result {int(out['front'][0])} != host reduce {want}"]
    partial = [int(x[b * 512:(b + 1) * 512].astype(np.uint64).sum()) & M32 for b in range(len(out["back"]))]
    probs += _mismatch("back (block sums)", out["back"], np.array(partial, dtype=np.uint32))
    probs += _mismatch("front[1:] (untouched)", out["front"][1:], x[1:])
    return probs


# -- 2. prefix sum --------------------------------------------------------------------------------------------------
PS_N = 256  # the sample's default size (-n 256): one block_prefix_sum launch, offset 1


def _ps_input() -> np.ndarray:
    return uniform32(2, PS_N, -1.0, 1.0)


def prefix_sum_script(wave: int) -> dict:
    return {"buffers": {"data": buf(_ps_input(), "f32")},
            "launches": [{"kernel": "block_prefix_sum", "grid": 128, "block": 128, "dynamic_lds": 2 * 128 * 4,
                          "args": ["@data", f"i32:{PS_N}", "i32:1"]}]}


def _ps_tree(x: np.ndarray) -> np.ndarray:
    """block_prefix_sum's up-sweep and down-sweep on one block of 256, in binary32."""
    b = x.astype(F32).copy()
    size, tree_offset = len(b), 1
    tree_size = size >> 1
    while tree_size > 0:
        for t in range(min(tree_size, 128)):
            b[tree_offset * (2 * t + 2) - 1] = F32(b[tree_offset * (2 * t + 2) - 1] + b[tree_offset * (2 * t + 1) - 1])
        tree_offset <<= 1
        tree_size >>= 1
    if size > 2:
        if tree_offset < size:
            tree_offset <<= 1
        max_thread = tree_offset >> 1
        tree_size = 0
        while tree_size < max_thread:
            tree_size += 1
            tree_offset >>= 1
            for t in range(min(tree_size, 128)):
                frm = tree_offset * (t + 1) - 1
                to = frm + (tree_offset >> 1)
                b[to] = F32(b[to] + b[frm])
            tree_size <<= 1
    return b


def prefix_sum_check(out: dict, wave: int) -> list[str]:
    x, got = _ps_input(), out["data"]
    verify, errors = F32(0), 0
    for i in range(PS_N):  # the sample's check: errors += std::pow(output[i] - verify, 2) > 1e-8
        verify = F32(verify + x[i])
        errors += float(F32(got[i] - verify)) ** 2 > 1e-8
    probs = [f"{errors} errors (sample's check: (output - running sum)^2 > 1e-8)"] if errors else []
    return probs + _mismatch("data (tree order twin)", got, _ps_tree(x))


# -- 3. bitonic sort --------------------------------------------------------------------------------------------
BS_STEPS = 8  # -l 8 (the sample's default is 15): 256 elements, 128 threads, 36 launches


def _bs_input() -> np.ndarray:
    return np.array([x % 10 for x in rand31(3, 1 << BS_STEPS)], dtype=np.uint32)  # rand() % 10


def bitonic_script(wave: int) -> dict:
    length = 1 << BS_STEPS
    local = 256 if length > 256 else length // 2
    launches = [{"kernel": "bitonic_sort_kernel", "grid": length // 2, "block": local,
                 "args": ["@array", f"u32:{i}", f"u32:{j}", "u8:1"]} for i in range(BS_STEPS) for j in range(i + 1)]
    return {"buffers": {"array": buf(_bs_input(), "u32")}, "launches": launches}


def _bitonic_reference(a: list[int], increasing: bool) -> list[int]:
    """bitonic_sort_reference, as the sample writes it."""
    length, half_length = len(a), len(a) // 2
    i = 2
    while i <= length:
        j = i
        while j > 1:
            inc, half_j = increasing, j // 2
            for k in range(0, length, j):
                if k == i or (i < length and k % i == 0 and k != half_length):
                    inc = not inc
                for m in range(k, k + half_j):
                    if inc and a[m] > a[m + half_j] or not inc and a[m + half_j] > a[m]:
                        a[m], a[m + half_j] = a[m + half_j], a[m]
            j //= 2
        i *= 2
    return a


def bitonic_check(out: dict, wave: int) -> list[str]:
    want = np.array(_bitonic_reference([int(v) for v in _bs_input()], True), dtype=np.uint32)
    errors = int(np.count_nonzero(out["array"] != want))
    probs = [f"{errors} errors against bitonic_sort_reference"] if errors else []
    return probs + ([] if list(want) == sorted(want) else ["the reference itself is not sorted"])


# -- 4. histogram -------------------------------------------------------------------------------------------------
HI_THREADS, HI_ITEMS, HI_BLOCKS = 128, 16, 2  # items_per_thread 16 (the sample's 1024) and 2 blocks: 4096 bytes


def _hi_input() -> np.ndarray:
    return np.array([x & 0xFF for x in splitmix64(4, HI_THREADS * HI_ITEMS * HI_BLOCKS)], dtype=np.uint8)


def histogram_script(wave: int) -> dict:
    return {"buffers": {"data": buf(_hi_input(), "u8"), "block_bins": f"u32:{256 * HI_BLOCKS}"},
            "launches": [{"kernel": "histogram256_block", "grid": HI_BLOCKS * HI_THREADS, "block": HI_THREADS,
                          "dynamic_lds": 256 * HI_THREADS, "args": ["@data", "@block_bins", f"i32:{HI_ITEMS}"]}]}


def histogram_check(out: dict, wave: int) -> list[str]:
    data, bins = _hi_input(), out["block_bins"].reshape(HI_BLOCKS, 256)
    errors = int(np.count_nonzero(bins.sum(axis=0) != np.bincount(data, minlength=256)))
    probs = [f"{errors} bins differ from the host histogram"] if errors else []
    per_block = np.concatenate([np.bincount(data[b * HI_THREADS * HI_ITEMS:(b + 1) * HI_THREADS * HI_ITEMS],
                                            minlength=256) for b in range(HI_BLOCKS)]).astype(np.uint32)
    return probs + _mismatch("block_bins", out["block_bins"], per_block)


# -- 5./6. transposes -----------------------------------------------------------------------------------------------
def _tr_input(width: int) -> np.ndarray:
    return (np.arange(1, width * width + 1, dtype=F32) * F32(10.0)).astype(F32)  # iota from 1, times 10


def _tr_check(out: dict, width: int) -> list[str]:
    m = _tr_input(width)
    want = m.reshape(width, width).T.reshape(-1)
    errors = int(np.count_nonzero(np.abs(out["out"] - want) > F32(1e-6)))
    return ([f"Validation failed with {errors} errors."] if errors else []) + _mismatch("out", out["out"], want)


def transpose_lds_script(wave: int) -> dict:
    return {"buffers": {"out": "f32:4096", "in": buf(_tr_input(64), "f32")},
            "launches": [{"kernel": "matrix_transpose_lds", "grid": [64, 64], "block": [4, 4],
                          "args": ["@out", "@in"]}]}


def transpose_shfl_script(wave: int) -> dict:
    return {"buffers": {"out": "f32:16", "in": buf(_tr_input(4), "f32")},
            "launches": [{"kernel": "matrix_transpose_shfl", "grid": [4, 4], "block": [4, 4],
                          "args": ["@out", "@in", "u32:4"]}]}


# -- 7. matrix multiplication -------------------------------------------------------------------------------------
MM_ROWS, MM_K, MM_COLS = 32, 64, 32  # A_rows 32, A_cols 64, B_cols 32 (the sample's 2048x1024 by 1024x1024)


def matmul_script(wave: int) -> dict:
    return {"buffers": {"A": f"f32:{MM_ROWS * MM_K}:fill=1", "B": f"f32:{MM_K * MM_COLS}:fill=0.02",
                        "C": f"f32:{MM_ROWS * MM_COLS}"},
            "launches": [{"kernel": "matrix_multiplication", "grid": [MM_COLS, MM_ROWS], "block": [16, 16],
                          "args": ["@A", "@B", "@C", f"u32:{MM_K}"]}]}


def matmul_check(out: dict, wave: int) -> list[str]:
    c = out["C"]
    target = F32(F32(MM_K) * F32(0.02))  # a_cols * b_value in float
    bad = int(np.count_nonzero(~(F32(0.001) > np.abs(c - target))))
    acc = F32(0)
    for _ in range(MM_K):
        acc = F32(acc + F32(F32(1) * F32(0.02)))
    probs = [f"Validation failed: {bad} values off a_cols * b_value by 0.001 or more"] if bad else []
    return probs + _mismatch("C (sequential f32 sum)", c, np.full(c.shape, acc, dtype=F32))


# -- 8. 1-D stencil -------------------------------------------------------------------------------------------------
ST_LEN, ST_R = 1024, 7  # length 1024 (the sample takes it from argv)


def stencil_script(wave: int) -> dict:
    return {"buffers": {"in": f"i32:{ST_LEN + ST_R}:iota", "out": f"i32:{ST_LEN}"},
            "launches": [{"kernel": "stencil_1d", "grid": ST_LEN, "block": 256, "args": ["@in", "@out"]}]}


def stencil_check(out: dict, wave: int) -> list[str]:
    a, b = list(range(ST_LEN + ST_R)), [int(v) for v in out["out"]]
    for i in range(2 * ST_R):  # the sample's two verification loops
        s = sum(0 if j < ST_R else a[j] - ST_R for j in range(i, i + 2 * ST_R + 1))
        if s != b[i]:
            return [f"Error at {i}: {s} (host) != {b[i]} (device)"]
    for i in range(2 * ST_R, ST_LEN):
        s = sum(a[j] for j in range(i - ST_R, i + ST_R + 1))
        if s != b[i]:
            return [f"Error at {i}: {s} (host) != {b[i]} (device)"]
    return []


# -- 9. convolution -------------------------------------------------------------------------------------------------
CV_W = CV_H = 24  # -x 24 -y 24 (the sample's 4096): one 32x32 block, its last 8 rows and columns idle
CV_MASK = [1.0, 3.0, 0.0, -2.0, -0.0, 1.0, 4.0, 0.0, -8.0, -4.0, 2.0, 7.0, 0.0, -12.0, -0.0,
           2.0, 3.0, 1.5, -8.0, -4.0, 0.0, 1.0, 0.0, -2.0, -0.0]


def _cv_padded() -> np.ndarray:
    grid = uniform32(9, CV_W * CV_H, 0.0, 256.0).reshape(CV_H, CV_W)
    padded = np.zeros((CV_H + 4, CV_W + 4), dtype=F32)
    padded[2:2 + CV_H, 2:2 + CV_W] = grid
    return padded.reshape(-1)


def convolution_script(wave: int) -> dict:
    blocks = (CV_W + 32) // 32
    return {"buffers": {"in": buf(_cv_padded(), "f32"), "out": f"f32:{CV_W * CV_H}"},
            "globals": {"d_mask": {"type": "f32", "values": CV_MASK}},
            "launches": [{"kernel": "convolution", "grid": [32 * blocks, 32 * blocks], "block": [32, 32],
                          "args": ["@in", "@out", f"struct:u32={CV_W},u32={CV_H}"]}]}


def convolution_check(out: dict, wave: int) -> list[str]:
    p, pw = _cv_padded(), CV_W + 4
    mask = np.array(CV_MASK, dtype=F32)
    want = np.zeros(CV_W * CV_H, dtype=F32)
    for y in range(CV_H):  # convolution_reference
        for x in range(CV_W):
            s = F32(0)
            for my in range(5):
                for mx in range(5):
                    s = F32(s + F32(p[(y + my) * pw + x + mx] * mask[my * 5 + mx]))
            want[y * CV_W + x] = s
    rms = math.sqrt(float(np.sum((out["out"].astype(np.float64) - want) ** 2)) / want.size)
    # the sample prints this root-mean-square error and passes whatever it is; the twin sums in the same order
    return ([f"root-mean-square error {rms}"] if rms else []) + _mismatch("out", out["out"], want)


# -- 10. binomial options -----------------------------------------------------------------------------------------
BO_SAMPLES, BO_STEPS = 8, 254  # -x 8 (the sample's 256 samples): 2 blocks of 255 threads


def _bo_input() -> np.ndarray:
    return np.array([v / float(2**31 - 1) for v in rand31(10, BO_SAMPLES)], dtype=F32)  # rand() / RAND_MAX


def binomial_script(wave: int) -> dict:
    return {"buffers": {"rand": buf(_bo_input(), "f32"), "out": f"f32:{BO_SAMPLES}"},
            "launches": [{"kernel": "binomial_options", "grid": (BO_SAMPLES // 4) * (BO_STEPS + 1),
                          "block": BO_STEPS + 1, "args": [f"i32:{BO_STEPS}", "@rand", "@out"]}]}


def _bo_reference(rand: np.ndarray) -> np.ndarray:
    """binomialOptionCPUReference in binary32 (its per-option arithmetic; the lattice step by step)."""
    ref = np.zeros(len(rand), dtype=F32)
    for k, r_in in enumerate(rand):
        s = F32(F32(F32(1) - r_in) * F32(5)) + F32(r_in * F32(30))
        x = F32(F32(F32(1) - r_in) * F32(1)) + F32(r_in * F32(100))
        years = F32(F32(F32(1) - r_in) * F32(0.25)) + F32(r_in * F32(10))
        dt = F32(years * F32(F32(1) / F32(BO_STEPS)))
        vsdt = F32(F32(0.30) * np.sqrt(dt))
        rdt = F32(F32(0.02) * dt)
        r = expf(rdt)
        r_inv = F32(F32(1) / r)
        u = expf(vsdt)
        d = F32(F32(1) / u)
        pu = F32(F32(r - d) / F32(u - d))
        pd = F32(F32(1) - pu)
        pu_r, pd_r = F32(pu * r_inv), F32(pd * r_inv)
        steps = np.array([max(F32(F32(s * expf(F32(vsdt * F32(F32(F32(2) * F32(j)) - F32(BO_STEPS))))) - x), F32(0))
                          for j in range(BO_STEPS + 1)], dtype=F32)
        for j in range(BO_STEPS, 0, -1):
            steps[:j] = (pd_r * steps[1:j + 1]).astype(F32) + (pu_r * steps[:j]).astype(F32)
        ref[k] = steps[0]
    return ref


def binomial_check(out: dict, wave: int) -> list[str]:
    got, ref = out["out"], _bo_reference(_bo_input())
    # appsdk compare(): sqrt(sum (ref - data)^2) / sqrt(sum ref^2) < epsilon (0.001), in float
    err = F32(np.sum(((ref - got).astype(F32)) ** 2, dtype=F32))
    norm = F32(np.sum((ref * ref).astype(F32), dtype=F32))
    rel = float(np.sqrt(err) / np.sqrt(norm)) if norm else math.inf
    probs = [] if rel < 0.001 else [f"FAILED: relative L2 error {rel} (compare() epsilon 0.001)"]
    # every option on its own: the lattice is the same sums in the same order; only expf differs (1-2 ulp)
    return probs + _close("out", got, ref, 2e-5, 1e-5)


# -- 11. n-body ---------------------------------------------------------------------------------------------------
NB_N = 256  # nBodies 256 (the sample's 30000): one block, one tile


def _nb_bodies() -> tuple[np.ndarray, np.ndarray]:
    buf8 = (F32(2.0) * uniform32(11, 8 * NB_N, 0.0, 1.0) - F32(1.0)).astype(F32)  # randomizeBodies
    return buf8[:4 * NB_N].copy(), buf8[4 * NB_N:].copy()


def nbody_script(wave: int) -> dict:
    p, v = _nb_bodies()
    return {"buffers": {"p": buf(p, "f32"), "v": buf(v, "f32")},
            "launches": [{"kernel": "bodyForce", "grid": NB_N, "block": 256,
                          "args": ["@p", "@v", "f32:0.01", f"i32:{NB_N}"]}]}


def nbody_check(out: dict, wave: int) -> list[str]:
    p, v = _nb_bodies()
    px, py, pz = p[0::4], p[1::4], p[2::4]
    fx, fy, fz = (np.zeros(NB_N, dtype=F32) for _ in range(3))
    for j in range(NB_N):  # one tile: spos = p's first 256 bodies
        dx, dy, dz = px[j] - px, py[j] - py, pz[j] - pz
        dist = ((dx * dx + dy * dy) + dz * dz + F32(1e-9)).astype(F32)
        inv = (F32(1) / np.sqrt(dist)).astype(F32)
        inv3 = (inv * inv * inv).astype(F32)
        fx, fy, fz = fx + dx * inv3, fy + dy * inv3, fz + dz * inv3
    want = v.copy()
    dt = F32(0.01)
    want[0::4] = v[0::4] + dt * fx
    want[1::4] = v[1::4] + dt * fy
    want[2::4] = v[2::4] + dt * fz
    # the sample has no host check (it prints timings); the twin is exact: sqrtf and 1/x are correctly rounded
    return _mismatch("v", out["v"], want) + _mismatch("p (read only)", out["p"], p)


# -- 12. MurmurHash3 ----------------------------------------------------------------------------------------------
MH_KEYS = 64  # 64 keys of rand() % 200 bytes (the sample's rand() % 10000)


def _mh_lengths() -> list[int]:
    return [v % 200 for v in rand31(12, MH_KEYS)]


def _rotl64(x: int, r: int) -> int:
    return ((x << r) | (x >> (64 - r))) & M64


def murmur3_x64_128(data: bytes, seed: int) -> tuple[int, int]:
    c1, c2 = 0x87C37B91114253D5, 0x4CF5AD432745937F
    h1 = h2 = seed
    n = len(data) // 16
    for i in range(n):
        k1 = int.from_bytes(data[16 * i:16 * i + 8], "little")
        k2 = int.from_bytes(data[16 * i + 8:16 * i + 16], "little")
        k1 = (_rotl64((k1 * c1) & M64, 31) * c2) & M64
        h1 ^= k1
        h1 = (_rotl64(h1, 27) + h2) & M64
        h1 = (h1 * 5 + 0x52DCE729) & M64
        k2 = (_rotl64((k2 * c2) & M64, 33) * c1) & M64
        h2 ^= k2
        h2 = (_rotl64(h2, 31) + h1) & M64
        h2 = (h2 * 5 + 0x38495AB5) & M64
    tail = data[16 * n:]
    if len(tail) > 8:
        k2 = int.from_bytes(tail[8:], "little")
        h2 ^= (_rotl64((k2 * c2) & M64, 33) * c1) & M64
    if tail:
        k1 = int.from_bytes(tail[:8], "little")
        h1 ^= (_rotl64((k1 * c1) & M64, 31) * c2) & M64
    h1 ^= len(data)
    h2 ^= len(data)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    h1, h2 = _fmix64(h1), _fmix64(h2)
    h1 = (h1 + h2) & M64
    h2 = (h2 + h1) & M64
    return h1, h2


def murmur_script(wave: int) -> dict:
    lengths = _mh_lengths()
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.uint32)
    keys = np.concatenate([np.arange(n, dtype=np.uint32) % 256 for n in lengths]).astype(np.uint8)
    return {"buffers": {"keys": buf(keys, "u8"), "offsets": buf(offsets, "u32"),
                        "lengths": buf(np.array(lengths + [0], dtype=np.uint32), "u32"),
                        "out": f"u64:{2 * MH_KEYS}"},
            "launches": [{"kernel": "murmurhash3_kernel", "grid": -(-MH_KEYS // 256) * 256, "block": 256,
                          "args": ["@keys", "@offsets", "@lengths", "@out", f"u32:{MH_KEYS}"]}]}


def murmur_check(out: dict, wave: int) -> list[str]:
    want = []
    for i, n in enumerate(_mh_lengths()):
        want += murmur3_x64_128(bytes(c % 256 for c in range(n)), i)
    got = [int(v) for v in out["out"]]
    bad = [i for i in range(MH_KEYS) if got[2 * i:2 * i + 2] != want[2 * i:2 * i + 2]]
    return [f"FAIL: {len(bad)} keys hash differently, first key {bad[0]}: got {got[2 * bad[0]:2 * bad[0] + 2]} "
            f"want {want[2 * bad[0]:2 * bad[0] + 2]}"] if bad else []


# -- 13. ChaCha20 ---------------------------------------------------------------------------------------------------
CC_KEY = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
CC_NONCE = "0001020304050607"
CC_STREAM = ("f798a189f195e66982105ffb640bb7757f579da31602fc93ec01ac56f85ac3c134a4547b733b46413042c9440049176905d3be"
             "59ea1c53f15916155c2be8241a38008b9a26bc35941e2444177c8ade6689de95264986d95889fb60e84629c9bd9a5acb1cc118"
             "be563eb9b3a4a472f82e09a7e778492b562ef7130e88dfe031c79db9d4f7c7a899151b9a475032b63fc385245fe054e3dd5a97"
             "a5f576fe064025d3ce042c566ab2c507b138db853e3d6959660996546cc9c4a6eafdc777c040d70eaf46f76dad3979e5c5360c"
             "3317166a1c894c94a371876a94df7628fe4eaaf2ccb27d5aaae0ad7ad0f9d4b6ad3b54098746d4524d38407a6deb3ab78fab78c9")


def _chars(s: str) -> np.ndarray:
    return np.frombuffer(s.encode(), dtype=np.uint8)


def chacha_script(wave: int) -> dict:
    table = np.zeros(256, dtype=np.uint8)
    for i in range(10):
        table[ord("0") + i] = i
    for i in range(26):
        table[ord("a") + i] = table[ord("A") + i] = i + 10
    n = len(CC_STREAM) // 2
    return {"buffers": {"key": buf(_chars(CC_KEY), "u8"), "nonce": buf(_chars(CC_NONCE), "u8"),
                        "keystream": buf(_chars(CC_STREAM), "u8"), "char_to_uint": buf(table, "u8"),
                        "raw_key": "u8:32", "raw_nonce": "u8:8", "raw_keystream": f"u8:{n}", "result": f"u8:{n}"},
            "launches": [{"kernel": "test_keystreams", "grid": 256, "block": 256,
                          "args": ["@key", "@nonce", "@keystream", "@char_to_uint", "@raw_key", "@raw_nonce",
                                   "@raw_keystream", "@result", f"i32:{len(CC_KEY)}", f"i32:{len(CC_NONCE)}",
                                   f"i32:{len(CC_STREAM)}"]}]}


def chacha20_stream(key: bytes, nonce: bytes, n: int) -> bytes:
    """The original ChaCha20 (64-bit counter from 0, 64-bit nonce), computed here independently of the sample."""
    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & M32

    const = [int.from_bytes(b"expand 32-byte k"[i:i + 4], "little") for i in range(0, 16, 4)]
    k = [int.from_bytes(key[i:i + 4], "little") for i in range(0, 32, 4)]
    nn = [int.from_bytes(nonce[i:i + 4], "little") for i in range(0, 8, 4)]
    out = b""
    for ctr in range(-(-n // 64)):
        st = const + k + [ctr & M32, ctr >> 32] + nn
        x = st[:]
        for _ in range(10):
            for a, b, c, d in ((0, 4, 8, 12), (1, 5, 9, 13), (2, 6, 10, 14), (3, 7, 11, 15),
                               (0, 5, 10, 15), (1, 6, 11, 12), (2, 7, 8, 13), (3, 4, 9, 14)):
                x[a] = (x[a] + x[b]) & M32
                x[d] = rotl(x[d] ^ x[a], 16)
                x[c] = (x[c] + x[d]) & M32
                x[b] = rotl(x[b] ^ x[c], 12)
                x[a] = (x[a] + x[b]) & M32
                x[d] = rotl(x[d] ^ x[a], 8)
                x[c] = (x[c] + x[d]) & M32
                x[b] = rotl(x[b] ^ x[c], 7)
        out += b"".join(((x[i] + st[i]) & M32).to_bytes(4, "little") for i in range(16))
    return out[:n]


def chacha_check(out: dict, wave: int) -> list[str]:
    want = np.frombuffer(bytes.fromhex(CC_STREAM), dtype=np.uint8)
    probs = [] if bytes(out["result"]) == bytes(out["raw_keystream"]) else ["FAIL (memcmp(result, raw_keystream))"]
    probs += _mismatch("raw_key", out["raw_key"], np.frombuffer(bytes.fromhex(CC_KEY), dtype=np.uint8))
    probs += _mismatch("raw_nonce", out["raw_nonce"], np.frombuffer(bytes.fromhex(CC_NONCE), dtype=np.uint8))
    probs += _mismatch("raw_keystream", out["raw_keystream"], want)
    ref = chacha20_stream(bytes.fromhex(CC_KEY), bytes.fromhex(CC_NONCE), len(want))
    if ref != want.tobytes():
        probs.append("the host ChaCha20 disagrees with the sample's keystream (twin bug)")
    return probs


# -- 14. NTT ------------------------------------------------------------------------------------------------------
NTT_BLOCKS = 1  # nttLen / 512 blocks in the sample (128); one block here, dst keeps the 64k layout
VAL_P = 0xFFFFFFFF00000001


def _ntt_input() -> np.ndarray:
    r = rand31(14, 2 * 512 * NTT_BLOCKS)
    return np.array([(r[2 * i] << 32) | r[2 * i + 1] for i in range(512 * NTT_BLOCKS)], dtype=np.uint64)


def _u96(x):
    s = x[1] + x[2]
    b = 1 if s > M32 else 0
    x[1] = s & M32
    if x[0] < x[2] and x[1] < 1:
        x[1] = (x[1] - 1) & M32
        b -= 1
    x[0] = (x[0] - x[2]) & M32
    if b == 1:
        s = x[0] + M32
        if s > M32:
            x[1] = (x[1] + 1) & M32
        x[0] = s & M32


def _u128(x):
    _u96(x)
    b = 0
    if x[0] < x[3] and x[1] < 1:
        x[1] = (x[1] - 1) & M32
        b = -1
    x[0] = (x[0] - x[3]) & M32
    if b == -1:
        if x[0] < M32:
            x[1] = (x[1] - 1) & M32
        x[0] = (x[0] - M32) & M32


def _u160(x):
    _u128(x)
    b = -1 if x[1] < x[4] else 0
    x[1] = (x[1] - x[4]) & M32
    if b == -1:
        if x[0] < M32:
            x[1] = (x[1] - 1) & M32
        x[0] = (x[0] - M32) & M32


def _ls(tx: int, sh: int) -> int:
    """_ls_modP, word by word as modP.h does it (not the modular identity it approximates)."""
    b = [0] * 7
    if sh == 0:
        b[0], b[1] = tx & M32, tx >> 32
    elif sh < 32:
        b[2], b[1], b[0] = (tx >> (64 - sh)) & M32, (tx >> (32 - sh)) & M32, (tx << sh) & M32
        _u96(b)
    elif sh < 64:
        b[3], b[2], b[1], b[0] = (tx >> (96 - sh)) & M32, (tx >> (64 - sh)) & M32, (tx << (sh - 32)) & M32, 0
        _u128(b)
    else:
        b[4], b[3], b[2] = (tx >> (128 - sh)) & M32, (tx >> (96 - sh)) & M32, (tx << (sh - 64)) & M32
        _u160(b)
    w = b[0] | (b[1] << 32)
    return w - VAL_P if w > VAL_P else w


def _add(x: int, y: int) -> int:
    r = (x + y) & M64
    if r < x:
        r = (r + M32) & M64
    return r - VAL_P if r >= VAL_P else r


def _sub(x: int, y: int) -> int:
    r = (x - y) & M64
    if r > x:
        r = (r - M32) & M64
    return r


def _mul(x: int, y: int, m: int) -> int:
    """_mul_modP's interleaved loop gives x * y mod m for reduced operands (as its 64-bit steps never wrap)."""
    return (x % m) * (y % m) % m


def _ntt8(x: list[int]) -> list[int]:
    s = [0] * 8
    s[0], s[1] = _add(x[0], x[4]), _sub(x[0], x[4])
    s[2], s[3] = _add(x[2], x[6]), _sub(x[2], x[6])
    s[4], s[5] = _add(x[1], x[5]), _sub(x[1], x[5])
    s[6], s[7] = _add(x[3], x[7]), _sub(x[3], x[7])
    x = x[:]
    x[0], x[2] = _add(s[0], s[2]), _sub(s[0], s[2])
    t = _ls(s[3], 48)
    x[1], x[3] = _add(s[1], t), _sub(s[1], t)
    x[4], x[6] = _add(s[4], s[6]), _sub(s[4], s[6])
    t = _ls(s[7], 48)
    x[5], x[7] = _add(s[5], t), _sub(s[5], t)
    s[0], s[4] = _add(x[0], x[4]), _sub(x[0], x[4])
    t = _ls(x[5], 24)
    s[1], s[5] = _add(x[1], t), _sub(x[1], t)
    t = _ls(x[6], 48)
    s[2], s[6] = _add(x[2], t), _sub(x[2], t)
    t = _ls(x[7], 72)
    s[3], s[7] = _add(x[3], t), _sub(x[3], t)
    return s


def ntt_reference(src: list[int], blocks: int) -> np.ndarray:
    dst = np.zeros(65536, dtype=np.uint32)
    for bidx in range(blocks):
        buffer = [0] * 512
        for tidx in range(64):
            fmem = (bidx << 9) | ((tidx & 0x3E) << 3) | (tidx & 1)
            smp = _ntt8([src[fmem | (i << 1)] for i in range(8)])
            for i in range(8):
                buffer[(tidx << 3) | i] = _ls(smp[i], ((tidx & 1) << 2) * i * 3)
        for tidx in range(64):
            fbuf = ((tidx & 0x38) << 3) | (tidx & 7)
            tmem = (bidx << 9) | ((tidx & 0x38) << 3) | (tidx & 7)
            smp = [buffer[fbuf | (i << 3)] for i in range(8)]
            s8 = []
            for i in range(4):
                s8 += [_add(smp[2 * i], smp[2 * i + 1]), _sub(smp[2 * i], smp[2 * i + 1])]
            for i in range(8):
                idx = (((tmem | (i << 3)) & 0xF) << 12) | ((tmem | (i << 3)) >> 4)
                dst[idx] = _mul(s8[i], 18446462594437939201, VAL_P) & M32
    return dst


def ntt_script(wave: int) -> dict:
    return {"buffers": {"dst": "u32:65536", "src": buf(_ntt_input(), "u64")},
            "launches": [{"kernel": "intt_3_64k_modcrt", "grid": 64 * NTT_BLOCKS, "block": 64,
                          "args": ["@dst", "@src"]}]}


def ntt_check(out: dict, wave: int) -> list[str]:
    want = ntt_reference([int(v) for v in _ntt_input()], NTT_BLOCKS)
    got_sum, want_sum = int(out["dst"].astype(np.uint64).sum()), int(want.astype(np.uint64).sum())
    # the sample prints "Checksum: %lu" (the sum of the outputs) and nothing else
    probs = [] if got_sum == want_sum else [f"Checksum: {got_sum} (host {want_sum})"]
    return probs + _mismatch("dst", out["dst"], want)


# -- 15. ballot ---------------------------------------------------------------------------------------------------
def ballot_script(wave: int) -> dict:
    return {"buffers": {"device_ballot": f"u32:{512 // wave}"},
            "launches": [{"kernel": "gpu_ballot", "grid": 512, "block": 512,
                          "args": ["@device_ballot", f"u32:{512 // wave}", f"u32:{wave.bit_length() - 1}"]}]}


def ballot_check(out: dict, wave: int) -> list[str]:
    h = [int(v) for v in out["device_ballot"]]
    divergent = sum(1 for v in h if not (v == 0 or v // wave == wave))
    probs = [] if divergent == 1 else [f"divergent_count == {divergent}, the test REQUIREs 1"]
    want = [wave * sum(1 for t in range(w * wave, (w + 1) * wave) if t != 245) for w in range(512 // wave)]
    return probs + _mismatch("device_ballot", np.array(h, dtype=np.uint32), np.array(want, dtype=np.uint32))


# -- 16. softmax --------------------------------------------------------------------------------------------------
SM_SLICES, SM_SIZE = 256, 16  # 256 slices of 16 (argv); the sample's grid: 256 blocks of 256 for 256 threads' work


def _sm_input() -> np.ndarray:
    return np.array([v % 13 for v in rand31(16, SM_SLICES * SM_SIZE)], dtype=F32)  # rand() % 13


def softmax_script(wave: int) -> dict:
    blocks = (SM_SLICES + 255) // 256 * 256  # global_work_size, passed as the grid's block count
    return {"buffers": {"src": buf(_sm_input(), "f32"), "dest": f"f32:{SM_SLICES * SM_SIZE}"},
            "launches": [{"kernel": "softMax", "grid": blocks * 256, "block": 256,
                          "args": [f"i32:{SM_SLICES}", f"i32:{SM_SIZE}", "@src", "@dest"]}]}


def softmax_check(out: dict, wave: int) -> list[str]:
    src = _sm_input().reshape(SM_SLICES, SM_SIZE)
    cpu = np.zeros_like(src)
    for i in range(SM_SLICES):  # softMax_cpu
        mx = src[i, 0]
        for j in range(SM_SIZE):
            mx = src[i, j] if mx < src[i, j] else mx
        s = F32(0)
        for j in range(SM_SIZE):
            e = expf(F32(src[i, j] - mx))
            s = F32(s + e)
            cpu[i, j] = e
        cpu[i] = (cpu[i] / s).astype(F32)
    got = out["dest"]
    bad = np.nonzero(np.abs(cpu.reshape(-1) - got) > 1e-3)[0]
    probs = [f"@index {bad[0]} host: {cpu.reshape(-1)[bad[0]]} device: {got[bad[0]]} (FAIL)"] if bad.size else []
    return probs + _close("dest", got, cpu.reshape(-1), 1e-5, 1e-6)


SAMPLES = [
    Sample("reduction_v7", "ROCm/rocm-examples Tutorials/reduction/include/Reduction/v7.hpp", reduction_script,
           reduction_check, {"front": np.uint32, "back": np.uint32}, ("front", "back")),
    Sample("block_prefix_sum", "ROCm/rocm-examples Applications/prefix_sum/main.hip", prefix_sum_script,
           prefix_sum_check, {"data": F32}, ("data",)),
    Sample("bitonic_sort_kernel", "ROCm/rocm-examples Applications/bitonic_sort/main.hip", bitonic_script,
           bitonic_check, {"array": np.uint32}, ("array",)),
    Sample("histogram256_block", "ROCm/rocm-examples Applications/histogram/main.hip", histogram_script,
           histogram_check, {"data": np.uint8, "block_bins": np.uint32}, ("block_bins",)),
    Sample("matrix_transpose_lds", "ROCm/rocm-examples HIP-Basic/shared_memory/main.hip", transpose_lds_script,
           lambda out, wave: _tr_check(out, 64), {"out": F32, "in": F32}, ("out",)),
    Sample("matrix_transpose_shfl", "ROCm/rocm-examples HIP-Basic/warp_shuffle/main.hip", transpose_shfl_script,
           lambda out, wave: _tr_check(out, 4), {"out": F32, "in": F32}, ("out",)),
    Sample("matrix_multiplication", "ROCm/rocm-examples HIP-Basic/matrix_multiplication/main.hip", matmul_script,
           matmul_check, {"A": F32, "B": F32, "C": F32}, ("C",)),
    Sample("stencil_1d", "zjin-lcf/HeCBench src/stencil1d-hip/stencil_1d.cu", stencil_script, stencil_check,
           {"in": np.int32, "out": np.int32}, ("out",)),
    Sample("convolution", "ROCm/rocm-examples Applications/convolution/main.hip", convolution_script,
           convolution_check, {"in": F32, "out": F32}, ("out",)),
    Sample("binomial_options", "ROCm/HIP-Examples HIP-Examples-Applications/BinomialOption/BinomialOption.cpp",
           binomial_script, binomial_check, {"rand": F32, "out": F32}, ("out",)),
    Sample("bodyForce", "ROCm/HIP-Examples mini-nbody/hip/nbody-block.cpp", nbody_script, nbody_check,
           {"p": F32, "v": F32}, ("v",)),
    Sample("murmurhash3_kernel", "zjin-lcf/HeCBench src/murmurhash3-hip/murmurhash3.cu", murmur_script,
           murmur_check, {"keys": np.uint8, "offsets": np.uint32, "lengths": np.uint32, "out": np.uint64}, ("out",)),
    Sample("test_keystreams", "zjin-lcf/HeCBench src/chacha20-hip/main.cu", chacha_script, chacha_check,
           {k: np.uint8 for k in ("key", "nonce", "keystream", "char_to_uint", "raw_key", "raw_nonce",
                                  "raw_keystream", "result")}, ("raw_key", "raw_nonce", "raw_keystream", "result")),
    Sample("intt_3_64k_modcrt", "zjin-lcf/HeCBench src/ntt-hip/main.cu", ntt_script, ntt_check,
           {"dst": np.uint32, "src": np.uint64}, ("dst",), max_instructions=20_000_000),
    Sample("gpu_ballot", "ROCm/hip-tests catch/unit/deviceLib/ballot.cc", ballot_script, ballot_check,
           {"device_ballot": np.uint32}, ("device_ballot",)),
    Sample("softMax", "zjin-lcf/HeCBench src/softmax-hip/main.cu", softmax_script, softmax_check,
           {"src": F32, "dest": F32}, ("dest",)),
]
BY_KERNEL = {s.kernel: s for s in SAMPLES}
