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
MFMA_KEYS = sorted(k for k in CALC if k.count(":") == 1)  # "cdna2:v_mfma_..."
WMMA_KEYS = sorted(k for k in CALC if k.count(":") == 2)  # "rdna3:w32:v_wmma_..."
OBJECTS = sorted(HERE.glob("mfma-llvm*.co"))
WMMA_OBJECTS = sorted(HERE.glob("wmma-llvm*.co"))


def _blocks(cells) -> int:
    return max(c[0] for c in cells) + 1


@pytest.mark.parametrize("key", MFMA_KEYS)
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
    assert len(MFMA_KEYS) == 49 and sum(k.startswith("cdna3:") for k in MFMA_KEYS) == 22
    assert len(WMMA_KEYS) == 12 and len(WMMA_OBJECTS) == 16 and len(OBJECTS) == 8


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


# ---------------------------------------------------------------------------------------------- GFX11/12 WMMA

@pytest.mark.parametrize("key", WMMA_KEYS)
def test_wmma_layout_matches_the_calculator(key):
    """Every place the calculator lists (GFX11 keeps A and B in each half-wave: each element has one place per
    16 lanes) is where `wmma_layout` puts the element, or one of its replicas."""
    arch, wave, name = key.split(":")
    gfx12, lanes = arch == "rdna4", int(wave[1:])
    out, src = matrix._WMMA[name]
    for mat in ("A", "B", "D"):
        bits = 32 if mat == "D" else matrix._BITS[src]
        reg, lane, low = matrix.wmma_layout(gfx12, lanes, bits, mat)
        copies = 1 if gfx12 or mat == "D" else lanes // 16
        ours = {(r, c): {(int(reg[0, r, c]), int(lane[0, r, c]) + 16 * t, int(low[0, r, c])) for t in range(copies)}
                for r in range(16) for c in range(16)}
        theirs: dict = {}
        for _, r, c, g, ln, lo in CALC[key][mat]:
            theirs.setdefault((r, c), set()).add((g, ln, lo))
        assert ours == theirs, (key, mat)


WMMA_KERNELS = {"k_f16": ("v_wmma_f32_16x16x16_f16", "f16", "f16"),  # (instruction, A elements, B elements)
                "k_bf16": ("v_wmma_f32_16x16x16_bf16", "bf16", "bf16"),
                "k_iu8": ("v_wmma_i32_16x16x16_iu8", "i8", "u8")}


def _wmma_case(path: Path, kernel: str, replicate: bool = True):
    gfx12 = "gfx1200" in path.name
    lanes = 64 if "-w64-" in path.name else 32
    name, a_kind, b_kind = WMMA_KERNELS[kernel]
    cells = CALC[f"{'rdna4' if gfx12 else 'rdna3'}:w{lanes}:{name}"]
    apl = 256 // lanes if gfx12 else 16  # A/B elements per lane
    dpl = 256 // lanes
    rng = np.random.default_rng(zlib.crc32(f"{path.name}:{kernel}".encode()))

    def fragments(kind):
        if kind in ("i8", "u8"):
            v = rng.integers(-128, 128, 64 * apl) if kind == "i8" else rng.integers(0, 256, 64 * apl)
            v = v.astype(np.int8 if kind == "i8" else np.uint8)
        else:
            v = _inputs(kind, 64 * apl, rng)
        v = v[:lanes * apl]
        if replicate and not gfx12:  # GFX11: every half-wave holds the same A and B
            v = np.tile(v[:16 * apl], lanes // 16)
        return v

    a_in, b_in = fragments(a_kind), fragments(b_kind)
    out = "i32" if kernel == "k_iu8" else "f32"
    c_in = (rng.integers(-8, 9, lanes * dpl) * (1 if out == "i32" else 0.25)).astype(
        np.int32 if out == "i32" else np.float32)
    bits = 8 if kernel == "k_iu8" else 16

    def value(buf, kind, cell):
        _, _, _, reg, ln, low = cell
        raw = buf[ln * apl + reg * (32 // bits) + low // bits]
        return int(raw) if kind in ("i8", "u8") else _value(raw, kind)

    A, B = np.zeros((16, 16), dtype=object), np.zeros((16, 16), dtype=object)
    for cell in cells["A"]:
        if cell[4] < 16 or gfx12:
            A[cell[1], cell[2]] = value(a_in, a_kind, cell)
    for cell in cells["B"]:
        if cell[4] < 16 or gfx12:
            B[cell[1], cell[2]] = value(b_in, b_kind, cell)
    want = np.zeros(lanes * dpl, dtype=c_in.dtype)
    for _, i, j, reg, ln, _ in cells["D"]:
        idx = ln * dpl + reg
        if out == "i32":
            acc = int(c_in[idx]) + sum(A[i, k] * B[k, j] for k in range(16))
            want[idx] = np.int64(acc & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
        else:
            acc = float(c_in[idx])
            for k in range(16):
                acc = acc + float(A[i, k]) * float(B[k, j])
            want[idx] = np.float32(acc)
    spec = {"f16": "f16", "bf16": "u16", "i8": "i8", "u8": "u8"}
    dspec = "i32" if out == "i32" else "f32"

    def values(arr):
        return ",".join(repr(float(x)) if arr.dtype.kind == "f" else str(int(x)) for x in arr)

    m = Machine(path)
    m.dispatch(kernel, (lanes, 1, 1), (lanes, 1, 1), [
        f"buf:{spec[a_kind]}:{a_in.size}:values={values(a_in)}",
        f"buf:{spec[b_kind]}:{b_in.size}:values={values(b_in)}",
        f"buf:{dspec}:{c_in.size}:values={values(c_in)}", f"buf:{dspec}:{want.size}"])
    r = m.run(max_instructions=100_000)
    return m, r, want


@pytest.mark.parametrize("path", WMMA_OBJECTS, ids=lambda p: p.stem)
@pytest.mark.parametrize("kernel", sorted(WMMA_KERNELS))
def test_wmma_kernel_matches_its_twin(path, kernel):
    """f16, bf16 and iu8 (A signed, B unsigned) WMMA kernels on gfx1100/gfx1200, wave32 and wave64."""
    m, r, want = _wmma_case(path, kernel)
    assert r.status == "completed", r.reason
    got = np.array(read_buffer(m, m.buffers[-1]), dtype=want.dtype)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, [(int(i), got[i], want[i]) for i in bad[:4]]


def test_gfx11_wmma_with_unreplicated_inputs_stops():
    path = next(p for p in WMMA_OBJECTS if "gfx1100-w32-O2" in p.name)
    _, r, _ = _wmma_case(path, "k_f16", replicate=False)
    assert r.status == "unsupported" and "differs between half-waves" in r.reason, r.reason


@pytest.mark.parametrize("path", [p for p in WMMA_OBJECTS if "-O2" in p.name], ids=lambda p: p.stem)
def test_decoder_prints_integer_wmma_signedness_as_llvm_does(path):
    """The kernels' iu8 WMMA has A signed: llvm-objdump-22 prints `neg_lo:[1,0,0]` on every target and wave size
    (the GFX12 decoder dropped it once, which also made the emulator read A unsigned)."""
    texts = [i.text for i in Machine(path).instructions.values() if i.mnemonic == "v_wmma_i32_16x16x16_iu8"]
    assert texts and all(t.endswith(" neg_lo:[1,0,0]") for t in texts), texts
