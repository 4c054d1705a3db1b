"""MFMA (amddbg/emu/semantics/matrix.py) against AMD's matrix instruction calculator and host twins.

1. Layouts: for every dense f32/f16/bf16/i8/f64 MFMA instruction of CDNA2 and CDNA3, `matrix.layout` puts every
   element of A, B and D where the calculator does (corefiles/mfma/layouts.json.gz, written by make_layouts.py
   from the calculator's own tables).
2. Semantics: clang-built kernels (corefiles/mfma/mfma.hip; gfx90a and gfx942, clang-19/22, -O0/-O2) load
   fragments, run one MFMA and store D. The twin here rebuilds A, B and C from the input buffers through the
   calculator's layout (not ours), computes D = C + A x B in the documented arithmetic (f32 results: exact
   products summed in binary64 in k order, rounded once; i32: wrapping; f64: an fma per k in k order) and maps
   D back to lanes through the calculator's layout again.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from amddbg.emu.args import read_buffer
from amddbg.emu.machine import Machine
from amddbg.emu.semantics import matrix

HERE = Path(__file__).resolve().parents[2] / "corefiles" / "mfma"
CALC = json.loads(gzip.open(HERE / "layouts.json.gz", "rt").read())["instructions"]
OBJECTS = sorted(HERE.glob("mfma-llvm*.co"))


def _blocks(cells) -> int:
    return max(c[0] for c in cells) + 1


@pytest.mark.parametrize("key", sorted(CALC))
def test_layout_matches_the_calculator(key):
    arch, name = key.split(":")
    out, M, N, K, src = matrix.shape(name)
    blocks = _blocks(CALC[key]["A"])
    bits = matrix._BITS[src]
    for mat in ("A", "B", "D"):
        reg, lane, low = matrix.layout(M, N, K, blocks, (64 if out == "f64" else 32) if mat == "D" else bits, mat)
        ours = {(b, r, c): (int(reg[b, r, c]), int(lane[b, r, c]), int(low[b, r, c]))
                for b in range(reg.shape[0]) for r in range(reg.shape[1]) for c in range(reg.shape[2])}
        theirs = {(b, r, c): (g, ln, lo) for b, r, c, g, ln, lo in CALC[key][mat]}
        assert ours == theirs, (key, mat)


def test_the_calculator_data_covers_both_generations():
    assert len(CALC) == 49 and sum(k.startswith("cdna3:") for k in CALC) == 22


# kernel -> (CDNA2 name, CDNA3 name, element type of A/B as the kernel passes it, elements of A per lane, C/D type)
KERNELS = {
    "k_f16_16": ("v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16", "f16", 4, "f32"),
    "k_f16_32": ("v_mfma_f32_32x32x8f16", "v_mfma_f32_32x32x8_f16", "f16", 4, "f32"),
    "k_f16_4x4": ("v_mfma_f32_4x4x4f16", "v_mfma_f32_4x4x4_16b_f16", "f16", 4, "f32"),
    "k_f16_32_2b": ("v_mfma_f32_32x32x4f16", "v_mfma_f32_32x32x4_2b_f16", "f16", 4, "f32"),
    "k_f32": ("v_mfma_f32_16x16x4f32", "v_mfma_f32_16x16x4_f32", "f32", 1, "f32"),
    "k_f32_2b": ("v_mfma_f32_32x32x1f32", "v_mfma_f32_32x32x1_2b_f32", "f32", 1, "f32"),
    "k_bf16": ("v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16_bf16", "bf16", 4, "f32"),
    "k_i8": ("v_mfma_i32_16x16x16i8", "v_mfma_i32_16x16x32_i8", "i8", None, "i32"),
    "k_f64": ("v_mfma_f64_16x16x4f64", "v_mfma_f64_16x16x4_f64", "f64", 1, "f64"),
    "k_f64_4x4": ("v_mfma_f64_4x4x4f64", "v_mfma_f64_4x4x4_4b_f64", "f64", 1, "f64"),
    "k_zero_c": ("v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16_f16", "f16", 4, "f32"),
}
ELEM = {"f16": (np.float16, 16), "bf16": (np.uint16, 16), "f32": (np.float32, 32), "i8": (np.int8, 8),
        "f64": (np.float64, 64)}


def _value(raw, kind: str) -> float | int:
    if kind == "bf16":
        return float(np.uint32(int(raw) << 16).view(np.float32))
    return int(raw) if kind == "i8" else float(raw)


def _inputs(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    """n elements: small integers and halves (so sums are often exact and sometimes not), some negative."""
    if kind == "i8":
        return rng.integers(-128, 128, n).astype(np.int8)
    vals = rng.integers(-24, 25, n) / rng.choice([1, 2, 4, 3, 7], n)
    if kind == "bf16":
        return (np.float32(vals).view(np.uint32) >> np.uint32(16)).astype(np.uint16)
    return vals.astype(ELEM[kind][0])


def _fma(x: float, y: float, z: float) -> float:
    return float(Fraction(x) * Fraction(y) + Fraction(z))


@pytest.mark.parametrize("path", OBJECTS, ids=lambda p: p.stem)
@pytest.mark.parametrize("kernel", sorted(KERNELS))
def test_kernel_matches_its_twin(path, kernel):
    cdna3 = "gfx942" in path.name
    n2, n3, kind, apl, dkind = KERNELS[kernel]
    name = n3 if cdna3 else n2
    cells = CALC[f"{'cdna3' if cdna3 else 'cdna2'}:{name}"]
    _, M, N, K, _ = matrix.shape(name)
    blocks = _blocks(cells["A"])
    bits = ELEM[kind][1]
    apl = apl or M * K * blocks // 64  # (i8: 4 elements per lane on CDNA2, 8 on CDNA3)
    dpl = M * N * blocks // 64  # D elements per lane
    rng = np.random.default_rng(zlib.crc32(f"{path.name}:{kernel}".encode()))
    a_in, b_in = _inputs(kind, 64 * apl, rng), _inputs(kind, 64 * apl, rng)
    c_in = (rng.integers(-8, 9, 64 * dpl) * (1 if dkind == "i32" else 0.25)).astype(
        {"f32": np.float32, "i32": np.int32, "f64": np.float64}[dkind])
    if kernel == "k_zero_c":
        c_in[:] = 0

    def element(buf, cell, width):  # a lane's element for a calculator cell: its register and low bit -> index
        _, _, _, reg, ln, low = cell
        return buf[ln * apl + (reg // 2 if width == 64 else reg * (32 // width) + low // width)]

    A = np.zeros((blocks, M, K), dtype=object)
    B = np.zeros((blocks, K, N), dtype=object)
    for cell in cells["A"]:
        A[cell[0], cell[1], cell[2]] = _value(element(a_in, cell, bits), kind)
    for cell in cells["B"]:
        B[cell[0], cell[1], cell[2]] = _value(element(b_in, cell, bits), kind)
    d_width = 64 if dkind == "f64" else 32
    want = np.zeros(64 * dpl, dtype=c_in.dtype)
    for cell in cells["D"]:
        b, i, j, reg, ln, _ = cell
        idx = ln * dpl + (reg // 2 if d_width == 64 else reg)
        c = c_in[idx]
        if dkind == "i32":
            acc = int(c) + sum(A[b, i, k] * B[b, k, j] for k in range(K))
            want[idx] = np.int64(acc & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
        elif dkind == "f32":
            acc = float(c)
            for k in range(K):
                acc = acc + float(A[b, i, k]) * float(B[b, k, j])  # binary64, k order
            want[idx] = np.float32(acc)
        else:
            acc = float(c)
            for k in range(K):
                acc = _fma(A[b, i, k], B[b, k, j], acc)
            want[idx] = acc
    m = Machine(path)
    spec = {"f16": "f16", "bf16": "u16", "f32": "f32", "i8": "i8", "f64": "f64"}[kind]
    dspec = {"f32": "f32", "i32": "i32", "f64": "f64"}[dkind]

    def values(arr):
        return ",".join(repr(float(x)) if arr.dtype.kind == "f" else str(int(x)) for x in arr)

    args = [f"buf:{spec}:{a_in.size}:values={values(a_in)}", f"buf:{spec}:{b_in.size}:values={values(b_in)}"]
    if kernel != "k_zero_c":
        args.append(f"buf:{dspec}:{c_in.size}:values={values(c_in)}")
    args.append(f"buf:{dspec}:{want.size}")
    m.dispatch(kernel, (64, 1, 1), (64, 1, 1), args)
    r = m.run(max_instructions=100_000)
    assert r.status == "completed", r.reason
    got = np.array(read_buffer(m, m.buffers[-1]), dtype=want.dtype)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(int(i), got[i], want[i]) for i in bad[:4]]
    assert re.search(r"v_mfma", " ".join(i.mnemonic for i in m.instructions.values()))
