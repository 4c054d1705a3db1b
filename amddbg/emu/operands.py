"""Reading and writing an instruction's operands on a `Wave`.

Operands come from the decoder (`amddbg.isa.model.Operand`): register ranges, special registers by name,
inline constants (integers, or floats the instruction's type encodes as f16/f32/f64 bit patterns), 32-bit
literals. Vector reads broadcast scalar sources to every lane; vector writes touch only the lanes of EXEC
(or an explicit mask).
"""

from __future__ import annotations

import struct

import numpy as np

from amddbg.emu.errors import Unsupported
from amddbg.emu.wave import lane_bools
from amddbg.isa.model import OperandKind

M32 = 0xFFFFFFFF
M64 = 0xFFFFFFFFFFFFFFFF
SHARED_BASE_HI = 0x10000  # src_shared_base: the high dword of the LDS aperture (1 << 48)
PRIVATE_BASE_HI = 0x20000


def _float_bits(x: float, bits: int) -> int:
    if bits == 16:
        return struct.unpack("<H", struct.pack("<e", x))[0]
    if bits == 64:
        return struct.unpack("<Q", struct.pack("<d", x))[0]
    return struct.unpack("<I", struct.pack("<f", x))[0]


def _special_read(w, name: str, bits: int) -> int:
    n = name.lower()
    if n == "vcc":
        return w.vcc & (M64 if bits == 64 or w.lanes == 64 else M32)
    if n == "vcc_lo":
        return w.vcc & M32
    if n == "vcc_hi":
        return w.vcc >> 32 & M32
    if n == "exec":
        return w.exec
    if n == "exec_lo":
        return w.exec & M32
    if n == "exec_hi":
        return w.exec >> 32 & M32
    if n == "m0":
        return w.m0
    if n == "scc" or n == "src_scc":
        return w.scc
    if n == "null" or n == "off":
        return 0
    if n == "flat_scratch":
        return w.flat_scratch
    if n == "flat_scratch_lo":
        return w.flat_scratch & M32
    if n == "flat_scratch_hi":
        return w.flat_scratch >> 32
    if n == "src_shared_base":
        return SHARED_BASE_HI if bits == 32 else SHARED_BASE_HI << 32
    if n == "src_private_base":
        return PRIVATE_BASE_HI if bits == 32 else PRIVATE_BASE_HI << 32
    if n == "src_shared_limit":
        return SHARED_BASE_HI if bits == 32 else (SHARED_BASE_HI << 32) | M32
    if n == "src_private_limit":
        return PRIVATE_BASE_HI if bits == 32 else (PRIVATE_BASE_HI << 32) | M32
    if n in ("src_flat_scratch_base_lo", "src_flat_scratch_base_hi"):  # gfx1250 (see memory.flat_scratch_base)
        from amddbg.emu.memory import flat_scratch_base

        base = flat_scratch_base(w)
        return base & M32 if bits == 32 and n.endswith("_lo") else base >> 32 if n.endswith("_hi") else base
    if n == "src_execz":
        return int(w.exec == 0)
    if n == "src_vccz":
        return int(w.vcc == 0)
    if n == "src_lds_direct":
        raise Unsupported("src_lds_direct", w.pc)
    raise Unsupported(f"special register {name}", w.pc)


def _special_write(w, name: str, value: int, bits: int) -> None:
    n = name.lower()
    if n == "vcc":
        w.vcc = value & (M64 if w.lanes == 64 else M32)
    elif n == "vcc_lo":
        w.vcc = (w.vcc & ~M32) | (value & M32)
    elif n == "vcc_hi":
        w.vcc = (w.vcc & M32) | (value & M32) << 32
    elif n == "exec":
        w.exec = value & w.mask
    elif n == "exec_lo":
        w.exec = ((w.exec & ~M32) | (value & M32)) & w.mask
    elif n == "exec_hi":
        w.exec = ((w.exec & M32) | (value & M32) << 32) & w.mask
    elif n == "m0":
        w.m0 = value & M32
    elif n == "scc":
        w.scc = value & 1
    elif n in ("null", "off"):
        pass
    elif n == "flat_scratch":
        w.flat_scratch = value & M64
    elif n == "flat_scratch_lo":
        w.flat_scratch = (w.flat_scratch & ~M32) | (value & M32)
    elif n == "flat_scratch_hi":
        w.flat_scratch = (w.flat_scratch & M32) | (value & M32) << 32
    else:
        raise Unsupported(f"write to special register {name}", w.pc)


def read_scalar(w, op, bits: int = 32, fmt: str = "i") -> int:
    k = op.kind
    if k is OperandKind.SGPR:
        r = op.register
        v = w.s[r]
        if bits == 64:
            v |= w.s[r + 1] << 32
        return v
    if k is OperandKind.TTMP:
        r = op.register if op.register < 16 else op.register - 108
        v = w.ttmp[r]
        if bits == 64:
            v |= w.ttmp[r + 1] << 32
        return v
    if k is OperandKind.SPECIAL:
        return _special_read(w, op.text.split("[")[0], bits)
    if k is OperandKind.INLINE:
        val = op.value
        if isinstance(val, float):
            return _float_bits(val, bits if fmt == "f" else (16 if bits == 16 else bits))
        if fmt == "f" and bits in (16, 32, 64) and isinstance(val, int) and False:
            return val
        return val & ((1 << bits) - 1)
    if k is OperandKind.LITERAL:
        if bits == 64 and (int(op.value) > M32 or op.text.startswith("lit64(")):
            return int(op.value) & M64  # gfx1250's 64-bit literal (src 254 / VOP3 literal 9): all 64 bits given
        val = int(op.value) & M32
        if bits == 64:  # a 32-bit literal for a 64-bit operand (AMDGPU ISA, LLVM's OPERAND_REG_IMM_{I,U}64):
            if fmt == "f":  # f64: the literal is the high half
                return val << 32
            if fmt == "s":  # signed i64 operands (ashr, bfe_i64, v_cmp_*_i64, v_mad_i64_i32): sign-extended
                return val | (M32 << 32 if val >> 31 else 0)
            return val  # b64/u64 operands (s_mov_b64 s[0:1], 0xffffffff is 0x00000000ffffffff): zero-extended
        if bits == 16:
            return val & 0xFFFF
        return val
    if k in (OperandKind.IMMEDIATE, OperandKind.OFFSET):
        return int(op.value or 0) & ((1 << bits) - 1)
    if k is OperandKind.VGPR:
        raise Unsupported(f"scalar read of vector operand {op.text}", w.pc)
    raise Unsupported(f"operand {op.text}", w.pc)


def write_scalar(w, op, value: int, bits: int = 32) -> None:
    k = op.kind
    if k is OperandKind.SGPR:
        r = op.register
        w.s[r] = value & M32
        if bits == 64:
            w.s[r + 1] = value >> 32 & M32
        return
    if k is OperandKind.TTMP:
        r = op.register if op.register < 16 else op.register - 108
        w.ttmp[r] = value & M32
        if bits == 64:
            w.ttmp[r + 1] = value >> 32 & M32
        return
    if k is OperandKind.SPECIAL:
        _special_write(w, op.text.split("[")[0], value, bits)
        return
    raise Unsupported(f"write to operand {op.text}", w.pc)


def read_vector(w, op, bits: int = 32, fmt: str = "i") -> np.ndarray:
    """Per-lane values: uint32 array for <= 32 bits, uint64 for 64 bits."""
    k = op.kind
    if k is OperandKind.VGPR:
        r = op.register
        if r + (2 if bits == 64 else 1) > w.v.shape[0]:
            w.ensure_vgprs(r + 2)
        if bits == 64:
            return w.v[r].astype(np.uint64) | (w.v[r + 1].astype(np.uint64) << np.uint64(32))
        return w.v[r].copy()
    if k is OperandKind.AGPR:
        r = op.register
        w.ensure_agprs(r + 2)
        if bits == 64:
            return w.a[r].astype(np.uint64) | (w.a[r + 1].astype(np.uint64) << np.uint64(32))
        return w.a[r].copy()
    val = read_scalar(w, op, bits, fmt)
    out = np.empty(w.lanes, dtype=np.uint64 if bits == 64 else np.uint32)  # np.full, without its Python layer
    out.fill(val & (M64 if bits == 64 else M32))
    return out


def write_vector(w, op, values: np.ndarray, bits: int = 32, mask: np.ndarray | None = None) -> None:
    """Write per-lane `values` to a VGPR/AGPR (a pair for 64 bits), only in the lanes of `mask` (EXEC by default)."""
    if mask is None:
        mask = lane_bools(w.exec, w.lanes)
    k = op.kind
    r = op.register
    if k is OperandKind.VGPR:
        n = r + (2 if bits == 64 else 1)
        if n > w.v.shape[0]:
            w.ensure_vgprs(n)
        regs = w.v
    elif k is OperandKind.AGPR:
        w.ensure_agprs(r + 2)
        regs = w.a
    else:
        raise Unsupported(f"vector write to {op.text}", w.pc)
    if bits == 64:
        vals = np.asarray(values)
        if vals.dtype != np.uint64:
            vals = vals.astype(np.uint64)
        np.copyto(regs[r], (vals & np.uint64(M32)).astype(np.uint32), where=mask)
        np.copyto(regs[r + 1], (vals >> np.uint64(32)).astype(np.uint32), where=mask)
    else:
        vals = np.asarray(values)
        if vals.dtype != np.uint32:
            vals = (vals.astype(np.int64) & M32).astype(np.uint32) if vals.dtype.kind in "iu" else vals.astype(
                np.uint32)
        np.copyto(regs[r], vals, where=mask)


def write_vector_multi(w, op, dwords: list[np.ndarray], mask: np.ndarray | None = None) -> None:
    """Write consecutive VGPRs or AccVGPRs (loads of dwordx2..x4)."""
    if mask is None:
        mask = lane_bools(w.exec, w.lanes)
    r = op.register
    if op.kind is OperandKind.AGPR:  # (gfx90a/gfx942 load straight into AccVGPRs, e.g. MFMA operands at -O0)
        w.ensure_agprs(r + len(dwords))
        regs = w.a
    else:
        w.ensure_vgprs(r + len(dwords))
        regs = w.v
    for i, d in enumerate(dwords):
        np.copyto(regs[r + i], d if d.dtype == np.uint32 else d.astype(np.uint32), where=mask)
