"""Dense matrix fused multiply-add (MFMA) on CDNA2 (gfx90a) and CDNA3 (gfx940/941/942): D = C + A x B per block.

What clang emits for the `__builtin_amdgcn_mfma_*` builtins (rocWMMA, composable kernels, hand-written GEMMs). A
wave holds, per block, an M x K A matrix, a K x N B matrix and M x N C/D matrices spread over its 64 lanes and
registers; `layout` says where each element is. Its formulas are ours; tests/emu/test_mfma.py checks them against
every dense f32/f16/bf16/i8/f64 instruction of AMD's matrix instruction calculator (corefiles/mfma/layouts.json.gz,
written by corefiles/mfma/make_layouts.py), and the semantics against host twins on clang-built kernels.

Arithmetic (deterministic, and written down because the ISA does not say how the hardware accumulates):
- i8 -> i32: exact, wrapping to 32 bits;
- f16/bf16/f32 -> f32: every product is exact in binary64 (at most 48 significant bits); C plus the K products
  are summed in binary64 in k order and rounded once to f32 (nearest even);
- f64: a chain of fused multiply-adds in k order starting from C, each rounded once (nearest even).
Not modelled (the wave stops with the reason): the CBSZ/ABID/BLGP broadcast fields, neg modifiers, a partial EXEC,
the xf32, fp8/bf8 and sparse (v_smfmac) forms.

GFX11/12 WMMA (`v_wmma_f32_16x16x16_f16/bf16`, `v_wmma_i32_16x16x16_iu8`; wave32 and wave64) is the same product
of one 16x16x16 block with its own placement (`wmma_layout`, also checked against the calculator), in the same
arithmetic; GFX11 keeps A and B replicated in every half-wave, and copies that differ stop the wave. The f16/bf16
results, iu4 and the GFX12 sparse forms stop as unsupported.
"""

from __future__ import annotations

import re
from functools import cache

import numpy as np

from amddbg.emu.errors import Unsupported
from amddbg.emu.semantics import semantic
from amddbg.isa.model import OperandKind

_NAME = re.compile(r"v_mfma_(f32|i32|f64)_(\d+)x(\d+)x(\d+)(?:_(\d+)b)?_?(f32|f16|bf16_1k|bf16|i8|f64)$")
_BITS = {"f32": 32, "f16": 16, "bf16": 16, "bf16_1k": 16, "i8": 8, "f64": 64}


def shape(mnemonic: str) -> tuple[str, int, int, int, str] | None:
    """(result type, M, N, K, source type) of an MFMA mnemonic; None for the forms not modelled."""
    m = _NAME.match(mnemonic.removesuffix("_e64"))
    if m is None:
        return None
    out, M, N, K, _, src = m.groups()
    return out, int(M), int(N), int(K), src


@cache
def layout(M: int, N: int, K: int, blocks: int, bits: int, matrix: str) -> tuple[np.ndarray, ...]:
    """Where each element of A (blocks x M x K), B (blocks x K x N) or C/D (blocks x M x N) lives: arrays of its
    register (the first of a pair for 64-bit elements), lane and low bit, in that index order.

    A row i of A (column j of B) sits in lane i (j) of a group of M (N) lanes; each lane holds `kpl` consecutive k
    of the block-major k sequence, packed low to high in its registers. C/D: lane j of each group of N lanes,
    four consecutive rows per register, row groups spread over the lane groups first, then the registers, then
    the blocks (the 4x4 forms put each block in its own four lanes). 64-bit elements: lane groups of 16 are k (A,
    B) or the row within four (C/D), and the block moves within the group."""
    if matrix in ("A", "B"):
        rows = M if matrix == "A" else N
        b, r, k = np.meshgrid(np.arange(blocks), np.arange(rows), np.arange(K), indexing="ij")
        if bits == 64:
            reg, lane, low = np.zeros_like(k), r + rows * b + 16 * k, np.zeros_like(k)
        else:
            kpl = rows * K * blocks // 64
            g, e = np.divmod(b * K + k, kpl)
            per = 32 // bits
            reg, lane, low = e // per, r + rows * g, (e % per) * bits
        if matrix == "B":  # B is indexed [block][k][j]
            reg, lane, low = (x.transpose(0, 2, 1) for x in (reg, lane, low))
        return reg.copy(), lane.copy(), low.copy()
    b, i, j = np.meshgrid(np.arange(blocks), np.arange(M), np.arange(N), indexing="ij")
    if bits == 64:
        return 2 * (i // 4), j + N * b + 16 * (i % 4), np.zeros_like(i)
    if N == 4:
        return i, j + 4 * b, np.zeros_like(i)
    groups = 64 // N
    return (i % 4) + 4 * (i // (4 * groups)) + b * (M * N // 64), j + N * ((i // 4) % groups), np.zeros_like(i)


def _rows(w, op, count: int) -> np.ndarray:
    """`count` registers from a VGPR/AGPR range as (count, lanes) uint32; a constant in every one."""
    if op.kind in (OperandKind.VGPR, OperandKind.AGPR):
        regs = w.v if op.kind is OperandKind.VGPR else w.a
        if op.register + count > regs.shape[0]:
            (w.ensure_vgprs if op.kind is OperandKind.VGPR else w.ensure_agprs)(op.register + count)
            regs = w.v if op.kind is OperandKind.VGPR else w.a
        return regs[op.register:op.register + count].copy()
    if op.kind in (OperandKind.INLINE, OperandKind.LITERAL) and isinstance(op.value, int):
        return np.full((count, w.lanes), op.value & 0xFFFFFFFF, dtype=np.uint32)
    raise Unsupported(f"MFMA operand {op.text}", w.pc)


def _elements(rows: np.ndarray, where: tuple, src: str) -> np.ndarray:
    """The elements at `where` (register, lane, low bit) of `rows`, as float64 (int64 for i8)."""
    reg, lane, low = where
    if src == "f64":
        u = rows[reg, lane].astype(np.uint64) | rows[reg + 1, lane].astype(np.uint64) << np.uint64(32)
        return u.view(np.float64)
    u = (rows[reg, lane] >> low.astype(np.uint32)).astype(np.uint32)
    if src == "f32":
        return u.view(np.float32).astype(np.float64)
    if src == "f16":
        return (u & np.uint32(0xFFFF)).astype(np.uint16).view(np.float16).astype(np.float64)
    if src.startswith("bf16"):
        return ((u & np.uint32(0xFFFF)) << np.uint32(16)).view(np.float32).astype(np.float64)
    return (u & np.uint32(0xFF)).astype(np.uint8).view(np.int8).astype(np.int64)


@semantic(*(f"v_mfma_{o}_{s}{sep}{t}" for o, s, t, sep in (
    # CDNA2 spellings, then CDNA3's
    ("f32", "32x32x1", "f32", ""), ("f32", "16x16x1", "f32", ""), ("f32", "4x4x1", "f32", ""),
    ("f32", "32x32x2", "f32", ""), ("f32", "16x16x4", "f32", ""), ("f32", "32x32x4", "f16", ""),
    ("f32", "16x16x4", "f16", ""), ("f32", "4x4x4", "f16", ""), ("f32", "32x32x8", "f16", ""),
    ("f32", "16x16x16", "f16", ""), ("i32", "32x32x4", "i8", ""), ("i32", "16x16x4", "i8", ""),
    ("i32", "4x4x4", "i8", ""), ("i32", "32x32x8", "i8", ""), ("i32", "16x16x16", "i8", ""),
    ("f32", "32x32x4", "bf16_1k", ""), ("f32", "16x16x4", "bf16_1k", ""), ("f32", "4x4x4", "bf16_1k", ""),
    ("f32", "32x32x8", "bf16_1k", ""), ("f32", "16x16x16", "bf16_1k", ""), ("f32", "32x32x2", "bf16", ""),
    ("f32", "16x16x2", "bf16", ""), ("f32", "4x4x2", "bf16", ""), ("f32", "32x32x4", "bf16", ""),
    ("f32", "16x16x8", "bf16", ""), ("f64", "16x16x4", "f64", ""), ("f64", "4x4x4", "f64", ""),
    ("f32", "32x32x1_2b", "f32", "_"), ("f32", "16x16x1_4b", "f32", "_"), ("f32", "4x4x1_16b", "f32", "_"),
    ("f32", "32x32x2", "f32", "_"), ("f32", "16x16x4", "f32", "_"), ("f32", "32x32x4_2b", "f16", "_"),
    ("f32", "16x16x4_4b", "f16", "_"), ("f32", "4x4x4_16b", "f16", "_"), ("f32", "32x32x8", "f16", "_"),
    ("f32", "16x16x16", "f16", "_"), ("i32", "32x32x4_2b", "i8", "_"), ("i32", "16x16x4_4b", "i8", "_"),
    ("i32", "4x4x4_16b", "i8", "_"), ("i32", "32x32x16", "i8", "_"), ("i32", "16x16x32", "i8", "_"),
    ("f32", "32x32x4_2b", "bf16", "_"), ("f32", "16x16x4_4b", "bf16", "_"), ("f32", "4x4x4_16b", "bf16", "_"),
    ("f32", "32x32x8", "bf16", "_"), ("f32", "16x16x16", "bf16", "_"), ("f64", "16x16x4", "f64", "_"),
    ("f64", "4x4x4_4b", "f64", "_"))))
def v_mfma(ctx, insn):
    w = ctx.wave
    form = shape(insn.mnemonic)
    if form is None:
        raise Unsupported(insn.text, insn.address)
    out, M, N, K, src = form
    if re.search(r"\b(cbsz|abid|blgp|neg_lo|neg_hi|neg):", insn.text):
        raise Unsupported(f"{insn.text} (MFMA broadcast or negate fields: not modelled)", insn.address)
    if w.exec & w.mask != w.mask or w.lanes != 64:
        raise Unsupported(f"{insn.text} (MFMA with EXEC {w.exec:#x}: only a full wave64 EXEC is modelled)",
                          insn.address)
    dst, a_op, b_op, c_op = insn.operands[:4]
    bits = _BITS[src]
    a_regs = a_op.count
    blocks = (a_regs * 32 // bits if bits < 64 else 1) * 64 // (M * K)
    d_bits = 64 if out == "f64" else 32
    d_regs = M * N * blocks * d_bits // 32 // 64
    if blocks < 1 or dst.count != d_regs or b_op.count != a_regs:
        raise Unsupported(f"{insn.text} (operand widths do not fit {M}x{N}x{K})", insn.address)
    a = _elements(_rows(w, a_op, a_regs), layout(M, N, K, blocks, bits, "A"), src)
    b = _elements(_rows(w, b_op, a_regs), layout(M, N, K, blocks, bits, "B"), src)
    where = layout(M, N, K, blocks, d_bits, "D")
    c_rows = _rows(w, c_op, d_regs)
    _finish(w, insn, dst, d_regs, where, out, a, b, c_rows)


def _finish(w, insn, dst, d_regs: int, where: tuple, out: str, a: np.ndarray, b: np.ndarray,
            c_rows: np.ndarray) -> None:
    """D = C + A x B in the module's arithmetic, written to the destination registers at `where`."""
    if out == "i32":
        c = c_rows[where[0], where[1]].view(np.int32).astype(np.int64)
        d = c + np.einsum("bik,bkj->bij", a, b)
        bits_out = (d & 0xFFFFFFFF).astype(np.uint32)
    elif out == "f32":
        acc = c_rows[where[0], where[1]].view(np.float32).astype(np.float64)
        with np.errstate(all="ignore"):
            for k in range(a.shape[2]):  # k order, in binary64 (the products are exact)
                acc = acc + a[:, :, k:k + 1] * b[:, k:k + 1, :]
            bits_out = acc.astype(np.float32).view(np.uint32)
    else:
        from amddbg.emu.semantics.vfloat import _fma_exact

        acc = _elements(c_rows, where, "f64")
        for k in range(a.shape[2]):  # a fused multiply-add per k, in k order
            x = np.broadcast_to(a[:, :, k:k + 1], acc.shape).ravel()
            y = np.broadcast_to(b[:, k:k + 1, :], acc.shape).ravel()
            acc = _fma_exact(x, y, acc.ravel(), 64).reshape(acc.shape)
        u = acc.view(np.uint64)
        bits_out = None
    regs = w.v if dst.kind is OperandKind.VGPR else w.a
    if dst.kind not in (OperandKind.VGPR, OperandKind.AGPR):
        raise Unsupported(insn.text, insn.address)
    if dst.register + d_regs > regs.shape[0]:
        (w.ensure_vgprs if dst.kind is OperandKind.VGPR else w.ensure_agprs)(dst.register + d_regs)
        regs = w.v if dst.kind is OperandKind.VGPR else w.a
    rows = np.empty((d_regs, w.lanes), dtype=np.uint32)
    if bits_out is not None:
        rows[where[0], where[1]] = bits_out
    else:
        rows[where[0], where[1]] = (u & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        rows[where[0] + 1, where[1]] = (u >> np.uint64(32)).astype(np.uint32)
    regs[dst.register:dst.register + d_regs] = rows


# ---------------------------------------------------------------------------------------------- GFX11/12 WMMA

_WMMA = {"v_wmma_f32_16x16x16_f16": ("f32", "f16"), "v_wmma_f32_16x16x16_bf16": ("f32", "bf16"),
         "v_wmma_i32_16x16x16_iu8": ("i32", "i8")}


@cache
def wmma_layout(gfx12: bool, lanes: int, bits: int, matrix: str) -> tuple[np.ndarray, ...]:
    """(register, lane, low bit) arrays, each (1, 16, 16) indexed like `layout`'s, of a 16x16x16 WMMA's A, B or D
    (for GFX11's replicated A and B, the copy in lanes 0-15; the others are 16 lanes further each).

    GFX11: row i (column j) of A (B) whole in lane i (j), k packed low to high; D row pairs (wave64: quads) share
    a register, alternate half-waves. GFX12 wave32: each lane holds half a row, 64-bit chunks of k alternating
    between lanes i and i + 16; D row i % 8 is the register, i // 8 the half-wave. GFX12 wave64 is the wave32
    placement with the upper half of each lane's registers moved 32 lanes up."""
    i, j = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
    if matrix == "D":
        if not gfx12:
            g = lanes // 16
            return (i // g)[None], (j + 16 * (i % g))[None], np.zeros_like(i)[None]
        reg, lane = i % 8, j + 16 * (i // 8)
        if lanes == 64:
            reg, lane = reg % 4, lane + 32 * (reg // 4)
        return reg[None], lane[None], np.zeros_like(i)[None]
    row, k = (i, j) if matrix == "A" else (j, i)  # A[i][k], B[k][j]
    if not gfx12:
        return (k * bits // 32)[None], row[None], (k * bits % 32)[None]
    ce = 64 // bits
    c = k // ce
    e = (c // 2) * ce + k % ce
    reg, low, lane = e * bits // 32, e * bits % 32, row + 16 * (c % 2)
    if lanes == 64:
        half = 8 * bits // 32 // 2
        reg, lane = reg % half, lane + 32 * (reg // half)
    return reg[None], lane[None], low[None]


@semantic(*_WMMA)
def v_wmma(ctx, insn):
    w = ctx.wave
    out, src = _WMMA[insn.mnemonic]
    gfx12 = w.family == "gfx12"
    if w.exec & w.mask != w.mask:
        raise Unsupported(f"{insn.text} (WMMA with EXEC {w.exec:#x}: only a full EXEC is modelled)", insn.address)
    text = insn.text
    signed = (False, False)
    if src == "i8":  # neg_lo[0]/[1] mark A/B signed
        m = re.search(r"neg_lo:\[([01]),([01])", text)
        signed = (m.group(1) == "1", m.group(2) == "1") if m else (False, False)
        text = re.sub(r" neg_lo:\[[01,]+\]", "", text)
    if re.search(r"\b(neg_lo|neg_hi|op_sel|op_sel_hi|index_key|clamp)\b", text):
        raise Unsupported(f"{insn.text} (WMMA modifiers: not modelled)", insn.address)
    dst, a_op, b_op, c_op = insn.operands[:4]
    bits = _BITS[src]
    ab_regs = 16 * bits // 32 if not gfx12 else 256 * bits // 32 // w.lanes
    d_regs = 256 // w.lanes
    # (register counts come from the wave size, not the operands: a disassembler that does not know the wave size
    # prints wave32 widths, as llvm-objdump does for wave64 code)
    mats = []
    for op, which, sgn in ((a_op, "A", signed[0]), (b_op, "B", signed[1])):
        rows = _rows(w, op, ab_regs)
        where = wmma_layout(gfx12, w.lanes, bits, which)
        vals = _elements(rows, where, src)
        if src == "i8" and not sgn:
            vals = vals & 0xFF
        if not gfx12:  # every half-wave must hold the same copy
            for t in range(1, w.lanes // 16):
                if not (rows[:, 16 * t:16 * t + 16] == rows[:, :16]).all():
                    raise Unsupported(f"{insn.text} ({which} differs between half-waves; GFX11 WMMA reads it "
                                      "replicated)", insn.address)
        mats.append(vals)
    where = wmma_layout(gfx12, w.lanes, 32, "D")
    _finish(w, insn, dst, d_regs, where, out, mats[0], mats[1], _rows(w, c_op, d_regs))
