"""Memory instructions: SMEM, GLOBAL/FLAT/SCRATCH, MUBUF (buffer) and DS, with atomics returning the old value.

Offsets that the decoder leaves in the text (``offset:16``, ``offset0:``/``offset1:``, ``off``, ``offen``)
are read from it. Every access records a `MemOp` (kind, space, per-lane addresses, size) for the step hook
that replay and the teaching views consume.
"""

from __future__ import annotations

import re
import struct
import sys

import numpy as np

from amddbg.emu.caches import LINE
from amddbg.emu.errors import Unsupported
from amddbg.emu.memory import (
    APERTURE_MASK,
    PAGE,
    PRIVATE_APERTURE,
    SHARED_APERTURE,
    classify_flat,
    read_private,
    write_private,
)
from amddbg.emu.memory import scratch_lanes as foreign_scratch_lanes
from amddbg.emu.operands import M32, read_scalar, read_vector, write_scalar, write_vector_multi
from amddbg.emu.semantics import per_insn_cache, semantic
from amddbg.emu.wave import lane_index, lane_tuple
from amddbg.isa.model import OperandKind

U32 = np.uint32
_M64 = (1 << 64) - 1


class MemOp:
    """One memory operation of an executed instruction, as the step hook sees it: kind (load | store | atomic |
    cache), space (global | generic | local | private | scalar), `addresses` (lane -> address), size, cache
    policy, atomic op. Vector memory instructions give their lanes and addresses as sequences and the dict is
    built when someone reads it: most runs have no hook that looks."""

    __slots__ = ("kind", "space", "_addresses", "_lanes", "_addrs", "size", "policy", "op")

    def __init__(self, kind: str, space: str, addresses: dict | None = None, size: int = 4,
                 policy: dict | None = None, op: str = "", *, lanes=None, addrs=None) -> None:
        self.kind = kind
        self.space = space
        self._addresses = addresses if addresses is not None or lanes is not None else {}
        self._lanes = lanes  # sequence of lane numbers
        self._addrs = addrs  # one address per lane, or an int: every lane at that address
        self.size = size
        self.policy = policy if policy is not None else {}
        self.op = op

    @property
    def addresses(self) -> dict:
        a = self._addresses
        if a is None:
            lanes = self._lanes.tolist() if hasattr(self._lanes, "tolist") else self._lanes
            addrs = self._addrs
            if isinstance(addrs, int):
                a = dict.fromkeys(lanes, addrs)
            else:
                a = dict(zip(lanes, addrs.tolist() if hasattr(addrs, "tolist") else addrs, strict=True))
            self._addresses = a
        return a

    def __eq__(self, other) -> bool:
        return isinstance(other, MemOp) and (self.kind, self.space, self.addresses, self.size, self.policy,
                                             self.op) == (other.kind, other.space, other.addresses, other.size,
                                                          other.policy, other.op)

    __hash__ = None

    def __repr__(self) -> str:
        return (f"MemOp({self.kind!r}, {self.space!r}, {self.addresses!r}, {self.size}, {self.policy!r}"
                f"{', ' + repr(self.op) if self.op else ''})")


_SIZES = {"ubyte": 1, "sbyte": 1, "byte": 1, "ushort": 2, "sshort": 2, "short": 2, "u8": 1, "i8": 1, "u16": 2,
          "i16": 2, "b8": 1, "b16": 2, "dword": 4, "b32": 4, "u32": 4, "i32": 4, "dwordx2": 8, "b64": 8,
          "dwordx3": 12, "b96": 12, "dwordx4": 16, "b128": 16, "short_d16": 2, "ubyte_d16": 1, "sbyte_d16": 1,
          "short_d16_hi": 2, "ubyte_d16_hi": 1, "sbyte_d16_hi": 1, "b16_d16": 2}


def _offset(text: str, name: str = "offset") -> int:
    m = re.search(rf"\b{name}:(-?0x[0-9a-fA-F]+|-?\d+)", text)
    return int(m.group(1), 0) if m else 0


def _width(mn: str) -> tuple[int, bool, bool]:
    """(bytes, signed, d16-high) from a load/store mnemonic suffix."""
    parts = mn.split("_")
    suffix = "_".join(parts[2:]) if len(parts) > 2 else parts[-1]
    # the d16 spellings: GFX9/10 put d16/d16_hi after the type (global_store_byte_d16_hi), GFX11+ before it
    # (global_load_d16_hi_b16); what is left names the width
    hi = suffix.endswith("_d16_hi") or suffix.startswith("d16_hi_")
    base = suffix.replace("_d16_hi", "").replace("_d16", "").replace("d16_hi_", "").replace("d16_", "")
    size = _SIZES.get(base) or _SIZES.get(suffix) or _SIZES.get(parts[-1])
    if size is None:
        size = 4
    signed = base.startswith(("sbyte", "sshort", "i8", "i16"))
    return size, signed, hi


def _extend(data: bytes, size: int, signed: bool) -> int:
    return int.from_bytes(data, "little", signed=signed) & M32


def _vregs_of(op):
    return op.count


def _put_lane(outs: list, ln: int, data: bytes, size: int, signed: bool) -> None:
    """A loaded value into lane `ln` of the destination dwords (sub-dword loads zero/sign-extend)."""
    if size >= 4:
        for k in range(len(outs)):
            outs[k][ln] = struct.unpack_from("<I", data, 4 * k)[0]
    else:
        outs[0][ln] = int.from_bytes(data, "little", signed=signed) & M32


# ---------------------------------------------------------------------------------------------- SMEM


def _scaled(insn) -> bool:
    """gfx1250's `scale_offset` (SMEM CPOL bit, FLAT/GLOBAL/SCRATCH bit 48): the register offset is an element
    index, multiplied by the access size (LLVM selects it for `base[zext(i)]`; the immediate stays in bytes)."""
    return " scale_offset" in insn.text


def _smem_size(mn: str, n: int) -> int:
    return 1 if mn.endswith(("u8", "i8")) else 2 if mn.endswith(("u16", "i16")) else 4 * n


@semantic("s_load_dword", "s_load_dwordx2", "s_load_dwordx4", "s_load_dwordx8", "s_load_dwordx16",
          "s_load_b32", "s_load_b64", "s_load_b128", "s_load_b256", "s_load_b512", "s_load_dwordx3", "s_load_b96",
          "s_buffer_load_dword", "s_buffer_load_dwordx2", "s_buffer_load_dwordx4", "s_buffer_load_b32",
          "s_buffer_load_b64", "s_buffer_load_b128", "s_load_u8", "s_load_i8", "s_load_u16", "s_load_i16")
def s_load(ctx, insn):
    w = ctx.wave
    dst, base_op = insn.operands[0], insn.operands[1]
    n = dst.count
    if "buffer" in insn.mnemonic:
        desc = read_scalar(w, base_op, 64) & ((1 << 48) - 1)
    else:
        desc = read_scalar(w, base_op, 64)
    off = 0
    for o in insn.operands[2:]:
        if o.kind is OperandKind.OFFSET or o.kind is OperandKind.IMMEDIATE or o.kind is OperandKind.LITERAL:
            off += int(o.value or 0)
        elif o.kind is OperandKind.SGPR:
            off += read_scalar(w, o) * (_smem_size(insn.mnemonic, n) if _scaled(insn) else 1)
        elif o.kind is OperandKind.INLINE:
            off += int(o.value or 0)
    if "offset:" in insn.text and not any(o.kind is OperandKind.OFFSET for o in insn.operands):
        off += _offset(insn.text)
    addr = (desc + off) & ((1 << 64) - 1)
    size = _smem_size(insn.mnemonic, n)
    policy = dict(insn.memory.cache_policy) if insn.memory else {}
    caches = ctx.machine.caches
    a = addr & ~3 if size >= 4 else addr
    # through the scalar data cache (amddbg.emu.scalarcache): not coherent with vector stores
    data = caches.scalar_load(w, a, size, policy) if caches is not None else ctx.mem.read(a, size, [])
    ctx.record(MemOp("load", "scalar", {0: addr}, size, policy))
    if size < 4:
        write_scalar(w, dst, int.from_bytes(data, "little", signed=insn.mnemonic[-2] == "i") & M32)
        return
    for i in range(n):
        w.s[dst.register + i] = struct.unpack_from("<I", data, 4 * i)[0]


# ---------------------------------------------------------------------------------------------- addresses


def _flat_layout(insn):
    """Split a GLOBAL/FLAT/SCRATCH instruction's operands into (vdst, vaddr, vdata, saddr)."""
    ops = [o for o in insn.operands if o.kind is not OperandKind.OFFSET]
    mem = insn.memory
    vdst = next((o for o in ops if o.is_dest), None)
    rest = [o for o in ops if not o.is_dest]
    saddr = next((o for o in rest if o.kind in (OperandKind.SGPR, OperandKind.SPECIAL, OperandKind.TTMP)
                  and o.text not in ("off", "null")), None)
    vregs = [o for o in rest if o.kind in (OperandKind.VGPR, OperandKind.AGPR)]
    text_ops = insn.text.split(None, 1)[1] if " " in insn.text else ""
    vaddr_off = text_ops.startswith("off,") or ", off," in text_ops or text_ops.startswith("off ")
    vaddr = vdata = None
    if mem.is_store and not mem.is_atomic:
        if vaddr_off:
            vdata = vregs[0] if vregs else None
        else:
            vaddr, vdata = (vregs + [None, None])[:2]
    elif mem.is_atomic:
        vaddr, vdata = (vregs + [None, None])[:2]
    else:
        if not vaddr_off:
            vaddr = vregs[0] if vregs else None
    return vdst, vaddr, vdata, saddr


def _immediate_offset(insn) -> int:
    """The instruction's signed immediate offset (the decoder's OFFSET operand, else the text's `offset:`)."""
    off = _offset(insn.text)
    for o in insn.operands:
        if o.kind is OperandKind.OFFSET:
            off = int(o.value or 0)
            if off >= 1 << 31:  # a 32-bit pattern; the decoder may already give a negative value
                off -= 1 << 32
    return off


def _lane_addresses(ctx, insn, space_hint: str):
    w = ctx.wave
    vdst, vaddr, vdata, saddr = _flat_layout(insn)
    off = _immediate_offset(insn)
    base_s = 0
    if saddr is not None:
        base_s = read_scalar(w, saddr, 64 if space_hint != "private" else 32) if not (
            saddr.kind is OperandKind.SPECIAL and saddr.text == "off") else 0
    if vaddr is not None:
        if space_hint == "private" or saddr is not None:
            v = read_vector(w, vaddr, 32).astype(np.int64)
        else:
            v = read_vector(w, vaddr, 64).astype(np.uint64).astype(object)
    else:
        v = np.zeros(w.lanes, dtype=np.int64)
    addrs = {}
    for ln in w.active_lanes():
        a = int(v[ln]) + base_s + off
        addrs[ln] = a & ((1 << 64) - 1) if space_hint != "private" else a & M32
    return vdst, vdata, addrs


def _access(ctx, space: str, address: int, lane: int, size: int, data: bytes | None = None,
            policy: dict | None = None, atomic: bool = False):
    w = ctx.wave
    if space == "flat":
        sub, off = classify_flat(address)
        space, address = sub, off
    if space == "global":
        caches = ctx.machine.caches
        if data is None:
            if atomic or caches is None:
                return ctx.mem.read(address, size, [lane])
            return caches.load(w, address, size, lane, policy or {})
        if caches is None:
            ctx.mem.write(address, data, [lane])
        else:
            caches.store(w, address, data, lane)
        return None
    if space == "local":
        lds = ctx.machine.lds_of(w)
        if data is None:
            return lds.read(address, size, lane)
        lds.write(address, data, lane)
        return None
    if space == "private":
        if data is None:
            return read_private(ctx.mem, w, address, size, lane)
        write_private(ctx.mem, w, address, data, lane)
        return None
    raise Unsupported(f"{space} memory access", w.pc)


# ---------------------------------------------------------------------------------------------- GLOBAL / FLAT / SCRATCH


def _vmem_plan(insn) -> tuple:
    """What a GLOBAL/FLAT/SCRATCH instruction's execution needs that its text and operands fix: computed once
    per instruction (`per_insn_cache`), not on every execution."""
    mn = insn.mnemonic
    space = "private" if mn.startswith("scratch_") else "flat" if mn.startswith("flat_") else "global"
    vdst, vaddr, vdata, saddr = _flat_layout(insn)
    off = _immediate_offset(insn)
    if saddr is not None and saddr.kind is OperandKind.SPECIAL and saddr.text == "off":
        saddr = None
    size, signed, hi = _width(mn)
    policy = tuple(insn.memory.cache_policy.items()) if insn.memory else ()
    n = max(1, size // 4)
    data_regs = tuple(_reg(vdata, i) for i in range(n)) if vdata is not None else ()
    # what `_vmem_quick` needs: the address VGPR (None: no address register), whether it is a 64-bit pair, the
    # destination VGPR of a load, the data VGPRs of a store (None when not all VGPRs: AccVGPRs go the general way)
    quick = None
    # gfx1250 `scale_offset`: the address VGPR (the 32-bit offset of the SADDR/scratch forms) counts elements of
    # the access size, not bytes; the immediate offset stays in bytes. Only the general path scales.
    scale = size if _scaled(insn) else 1
    if scale == 1 and (vaddr is None or vaddr.kind is OperandKind.VGPR):
        quick = (vaddr.register if vaddr is not None else None, vaddr is not None and space != "private" and saddr
                 is None, vdst.register if vdst is not None and vdst.kind is OperandKind.VGPR else None,
                 tuple(r.register for r in data_regs) if data_regs and all(
                     r.kind is OperandKind.VGPR for r in data_regs) else None, n)
    return space, vdst, vaddr, vdata, saddr, off, size, signed, hi, "d16" in mn, policy, data_regs, quick, scale


_PLANS: dict = {}
_BYTE = [np.arange(k, dtype=np.uint64) for k in range(17)]
_BYTE64 = [np.arange(k, dtype=np.int64) for k in range(17)]
_APERTURES = np.uint64(APERTURE_MASK)


def _vmem(kind: str):
    def run(ctx, insn):
        w = ctx.wave
        hit = _PLANS.get(id(insn))
        plan = hit[1] if hit is not None and hit[0] is insn else per_insn_cache(_PLANS, insn, _vmem_plan)
        scratch_lanes = plan[0] == "flat" and w.processor.startswith("gfx125")  # lane fields: see memory.scratch_lanes
        if plan[12] is not None and not scratch_lanes and _vmem_quick(ctx, w, kind, plan):
            return
        space, vdst, vaddr, vdata, saddr, off, size, signed, hi, d16, policy_items, data_regs, _, scale = plan
        # per-lane addresses of the active lanes (one array operation, wrapping as the hardware's adders do)
        base_s = read_scalar(w, saddr, 64 if space != "private" else 32) if saddr is not None else 0
        lanes = lane_index(w.exec, w.lanes)
        lane_list = lane_tuple(w.exec, w.lanes)
        policy = dict(policy_items)
        shown = space if space != "flat" else "generic"
        if vaddr is None:  # no address VGPR: every lane at the scalar address (a stack slot at -O0)
            a0 = (base_s + off) & (M32 if space == "private" else _M64)
            ctx.record(MemOp(kind, shown, None, size, policy, lanes=lane_list, addrs=a0))
            if lane_list and _vmem_uniform(ctx, w, kind, space, lanes, lane_list, a0, vdst, size, signed, hi, d16,
                                           policy, data_regs):
                return
            a = np.full(lanes.size, a0, dtype=np.uint64)
        else:
            if space == "private" or saddr is not None:
                v = read_vector(w, vaddr, 32).astype(np.uint64)
            else:
                v = read_vector(w, vaddr, 64)
            if scale != 1:
                v = v * np.uint64(scale)
            a = v[lanes] + np.uint64((base_s + off) & _M64)
            foreign = {}
            if space == "private":
                a &= np.uint64(M32)
            elif scratch_lanes:
                a, foreign = foreign_scratch_lanes(ctx.machine, w, lanes, a)
            ctx.record(MemOp(kind, shown, None, size, policy, lanes=lane_list, addrs=a))
            if foreign:  # another lane's or wave's scratch (gfx1250): lane by lane, each in its owner's slot
                _foreign_scratch(ctx, w, kind, lane_list, a, foreign, vdst, size, signed, hi, d16, policy, data_regs)
                return
            if lane_list and (a == a[0]).all() and _vmem_uniform(
                    ctx, w, kind, space, lanes, lane_list, int(a[0]), vdst, size, signed, hi, d16, policy, data_regs):
                return
        if lane_list and _vmem_fast(ctx, w, kind, space, lanes, lane_list, a, vdst, size, signed, hi, d16, policy,
                                    data_regs):
            return
        # lane by lane: the reference behaviour (faults, page-crossing and overlapping accesses, d16 halves)
        def access(ln: int, addr: int, data: bytes | None = None):
            if data is None:
                return _access(ctx, space, addr, ln, size, policy=policy)
            return _access(ctx, space, addr, ln, size, data)

        _lane_by_lane(w, kind, dict(zip(lane_list, a.tolist(), strict=True)), access, vdst, size, signed, hi, d16,
                      data_regs)

    return run


def _lane_by_lane(w, kind, addrs: dict, access, vdst, size, signed, hi, d16, data_regs) -> None:
    """A load or store one lane at a time through `access(lane, address[, data])`: what the wave's registers
    receive or give (dwords, sign/zero-extended sub-dword loads, d16 halves that keep the other half)."""
    if kind == "load":
        n = max(1, size // 4)
        w.ensure_vgprs(vdst.register + n)
        outs = [w.v[vdst.register + i].copy() for i in range(n)]
        for ln, addr in addrs.items():
            data = access(ln, addr)
            if size >= 4:
                for i in range(n):
                    outs[i][ln] = struct.unpack_from("<I", data, 4 * i)[0]
                continue
            val = int.from_bytes(data, "little", signed=signed)
            if d16:
                old = int(outs[0][ln])
                val &= 0xFFFF
                outs[0][ln] = ((old & 0xFFFF) | (val << 16)) if hi else ((old & 0xFFFF0000) | val)
            else:
                outs[0][ln] = val & M32
        write_vector_multi(w, vdst, outs)
        return
    regs = [read_vector(w, r) for r in data_regs]
    for ln, addr in addrs.items():
        if size >= 4:
            data = b"".join(struct.pack("<I", int(r[ln])) for r in regs)
        else:
            val = int(regs[0][ln]) >> (16 if hi else 0)
            data = (val & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
        access(ln, addr, data)


def _foreign_scratch(ctx, w, kind, lane_list, a, foreign, vdst, size, signed, hi, d16, policy, data_regs) -> None:
    """A gfx1250 flat load or store some of whose lanes name another lane's or another wave's scratch
    (memory.scratch_lanes): those lanes read or write the owner's private memory, the others as usual."""
    def access(ln: int, addr: int, data: bytes | None = None):
        f = foreign.get(ln)
        if f is None:
            return _access(ctx, "flat", addr, ln, size, data, policy=policy)
        owner, lane, off = f
        if data is None:
            return read_private(ctx.mem, owner, off, size, lane)
        write_private(ctx.mem, owner, off, data, lane)
        return None

    _lane_by_lane(w, kind, dict(zip(lane_list, a.tolist(), strict=True)), access, vdst, size, signed, hi, d16,
                  data_regs)


# -- the quick path: whole-instruction accesses worked out on Python ints and byte strings ----------------------
# A wave's VGPR row is `lanes` little-endian dwords; as one int, lane L's dword is bits [32L, 32L + 32). EXEC as a
# dword mask (`_exec_info`) then selects lanes, an address row is checked for "every lane at one address" or
# "lane L at base + size * L" with one comparison, and a store counts its changed lanes by folding the XOR of old
# and new bytes. numpy costs microseconds per call on 32/64-lane arrays; these are a few hundred nanoseconds.

_LITTLE = sys.byteorder == "little"  # memoryview casts to "I" are native-endian
_ONES = {nl: sum(1 << (32 * i) for i in range(nl)) for nl in (32, 64)}  # 1 in every lane's dword
_IDX = {nl: sum(i << (32 * i) for i in range(nl)) for nl in (32, 64)}  # lane number in every lane's dword
_LOW = {fw: sum(1 << (fw * i) for i in range(8192 // fw)) for fw in (8, 16, 32, 64, 128)}  # bit 0 of each field
_XINFO: dict[int, tuple] = {}


def _exec_info(ex: int, nl: int) -> tuple:
    """(dword mask of the lanes of EXEC `ex`, first lane, last lane, lane tuple, {size: mask of size-byte fields
    of the lanes first..last, relative to the first}) for a non-zero EXEC of an `nl`-lane wave, cached."""
    key = ex | nl << 64
    info = _XINFO.get(key)
    if info is None:
        if len(_XINFO) >= 1 << 14:
            _XINFO.clear()
        lanes = lane_tuple(ex, nl)
        m = 0
        for ln in lanes:
            m |= M32 << (32 * ln)
        info = _XINFO[key] = (m, lanes[0], lanes[-1], lanes, {})
    return info


def _fields(info: tuple, size: int) -> int:
    """Mask of the `size`-byte fields of the active lanes in a run of lanes first..last (lane `first` at bit 0)."""
    fm = info[4].get(size)
    if fm is None:
        first = info[1]
        one = (1 << (8 * size)) - 1
        fm = 0
        for ln in info[3]:
            fm |= one << (8 * size * (ln - first))
        info[4][size] = fm
    return fm


def _changed(x: int, fw: int) -> int:
    """How many `fw`-bit fields of `x` are not zero (fw a power of two up to 128)."""
    s = 1
    while s < fw:
        x |= x >> s
        s <<= 1
    return (x & _LOW[fw]).bit_count()


class _Affine:
    """The addresses start + stride * (lane - first) of `lanes`, listed only when `MemOp.addresses` is read."""

    __slots__ = ("start", "stride", "first", "lanes")

    def __init__(self, start: int, stride: int, first: int, lanes) -> None:
        self.start, self.stride, self.first, self.lanes = start, stride, first, lanes

    def tolist(self) -> list[int]:
        s, k, f = self.start, self.stride, self.first
        return [s + k * (ln - f) for ln in self.lanes]


def _put_rows(mv, rb: int, reg: int, rows: list, m: int, full: bool) -> None:
    """Write dword rows (bytes of `rb`, lane order) to VGPRs reg.. in the lanes of dword mask `m`."""
    for k, new in enumerate(rows):
        o = (reg + k) * rb
        if full:
            mv[o:o + rb] = new
        else:
            old = int.from_bytes(mv[o:o + rb], "little")
            mv[o:o + rb] = (old ^ ((old ^ int.from_bytes(new, "little")) & m)).to_bytes(rb, "little")


def _vmem_quick(ctx, w, kind: str, plan: tuple) -> bool:
    """The common GLOBAL/FLAT/SCRATCH accesses without numpy: every active lane at one address (a stack slot, a
    polled flag, a uniform load or a single lane's store) and lane L at base + size * L (a contiguous row of 4-,
    8- or 16-byte elements on one page). Leaves exactly what the general path leaves: the same MemOp, bytes,
    `version`/`dirty` counts, cache lines filled in the same order, the same fault. False, with nothing done or
    recorded, when the general path must decide."""
    space, _, _, _, saddr, off, size, _, _, _, _, _, quick, _ = plan
    vreg, wide, dreg, sregs, n = quick
    ex = w.exec & w.mask
    nl = w.lanes
    if not ex or not _LITTLE or nl not in _ONES:
        return False
    info = _XINFO.get(ex | nl << 64) or _exec_info(ex, nl)
    m, first, last = info[0], info[1], info[2]
    full = ex == w.mask
    v = w.v
    nreg = v.shape[0]
    if kind == "load":
        if dreg is None or dreg + n > nreg:
            return False
    elif sregs is None or max(sregs) >= nreg:
        return False
    try:
        mv = memoryview(v).cast("B")
    except TypeError:  # not C-contiguous
        return False
    rb = 4 * nl
    private = space == "private"
    amask = M32 if private else _M64
    base_s = read_scalar(w, saddr, 32 if private else 64) if saddr is not None else 0
    ones = _ONES[nl]
    stride = 0
    lane_addrs = None
    if vreg is None:
        a = (base_s + off) & amask
    else:
        if vreg + (2 if wide else 1) > nreg:
            return False
        sh = 32 * first
        lo = int.from_bytes(mv[vreg * rb:(vreg + 1) * rb], "little")
        lo0 = lo >> sh & M32
        hi0 = 0
        split = False
        if wide:
            hv = int.from_bytes(mv[(vreg + 1) * rb:(vreg + 2) * rb], "little")
            hi0 = hv >> sh & M32
            split = bool((hv ^ hi0 * ones) & m)
        if split or (lo ^ lo0 * ones) & m:
            base = lo0 - size * first
            if (split or private or size not in (4, 8, 16) or base < 0 or base + size * (nl - 1) > M32
                    or (lo ^ (base * ones + size * _IDX[nl])) & m):
                add = base_s + off
                los = mv[vreg * rb:(vreg + 1) * rb].cast("I").tolist()
                if split:
                    his = mv[(vreg + 1) * rb:(vreg + 2) * rb].cast("I").tolist()
                    lane_addrs = [((his[ln] << 32 | los[ln]) + add) & amask for ln in info[3]]
                else:
                    add += hi0 << 32
                    lane_addrs = [(los[ln] + add) & amask for ln in info[3]]
            else:
                stride = size
        a = ((hi0 << 32 | lo0) + base_s + off) & amask
    if lane_addrs is not None:
        return _quick_lanes(ctx, w, kind, plan, mv, rb, info, lane_addrs)
    span = size * (last - first + 1) if stride else size
    if a + span > amask + 1:  # wraps the address space: lane by lane
        return False
    sp = space
    if space == "flat":
        top = a & APERTURE_MASK
        if (a + span - 1) & APERTURE_MASK != top:
            return False
        sp = "private" if top == PRIVATE_APERTURE else "local" if top == SHARED_APERTURE else "global"
    if sp == "local":
        al = a & M32
        addrs = [al + size * (ln - first) for ln in info[3]] if stride else [al] * len(info[3])
        return _quick_lds(ctx, w, kind, plan, mv, rb, info, addrs, _Affine(a, size, first, info[3]) if stride else a)
    if sp == "private":
        if stride:
            return False
        if size & 3:
            return _quick_private_narrow(ctx, w, kind, a if private else a & M32, plan, mv, rb, info, full, a)
        return _quick_private(ctx, w, kind, a if private else a & M32, plan, mv, rb, info, full, a)
    if stride:
        return _quick_run(ctx, w, kind, a, span, plan, mv, rb, info, full)
    return _quick_uniform(ctx, w, kind, a, plan, mv, rb, info, full)


def _lane_data(mv, rb: int, plan: tuple, lanes) -> list:
    """The bytes each active lane of a store writes (as the lane-by-lane path packs them)."""
    size, hi, sregs = plan[6], plan[8], plan[12][3]
    if size >= 4:
        if len(sregs) == 1:
            o = sregs[0] * rb
            return [mv[o + 4 * ln:o + 4 * ln + 4] for ln in lanes]
        rows = [mv[r * rb:(r + 1) * rb].cast("I").tolist() for r in sregs]
        fmt = f"<{len(sregs)}I"
        return [struct.pack(fmt, *[row[ln] for row in rows])[:size] for ln in lanes]
    vals = mv[sregs[0] * rb:(sregs[0] + 1) * rb].cast("I").tolist()
    sh, keep = 16 if hi else 0, (1 << (8 * size)) - 1
    return [((vals[ln] >> sh) & keep).to_bytes(size, "little") for ln in lanes]


def _load_rows(mv, rb: int, plan: tuple, info: tuple, datas: list, nl: int) -> None:
    """Put each active lane's loaded bytes (`datas`, lane order) in the destination VGPRs (sub-dword loads zero-
    or sign-extended, d16 forms into one half), as the lane-by-lane path does."""
    size, signed, hi, d16, dreg = plan[6], plan[7], plan[8], plan[9], plan[12][2]
    lanes = info[3]
    full = len(lanes) == nl
    if size >= 4:
        n = size // 4
        buf = bytearray(size * nl)
        for ln, d in zip(lanes, datas, strict=True):
            buf[size * ln:size * ln + size] = d
        if n == 1:
            rows = [buf]
        else:
            words = memoryview(buf).cast("I")
            rows = [words[k::n].tobytes() for k in range(n)]
        _put_rows(mv, rb, dreg, rows, info[0], full)
        return
    o = dreg * rb
    old = mv[o:o + rb].cast("I").tolist()
    for ln, d in zip(lanes, datas, strict=True):
        val = int.from_bytes(d, "little", signed=signed)
        if d16:
            val &= 0xFFFF
            old[ln] = ((old[ln] & 0xFFFF) | (val << 16)) if hi else ((old[ln] & 0xFFFF0000) | val)
        else:
            old[ln] = val & M32
    mv[o:o + rb] = struct.pack(f"<{nl}I", *old)


def _quick_lanes(ctx, w, kind, plan, mv, rb, info, addrs: list) -> bool:
    """Per-lane addresses of no simple pattern, worked lane by lane in Python on the pages (or the LDS) directly:
    every lane in one aperture, no access crossing a page, every page mapped (so nothing can fault), and for
    global loads the lines filled in lane order as `VectorCaches._read` fills them."""
    space, size = plan[0], plan[6]
    lanes = info[3]
    lo, hi = min(addrs), max(addrs)
    if hi + size > (M32 if space == "private" else _M64) + 1:
        return False
    sp = space
    if space == "flat":
        top = lo & APERTURE_MASK
        if hi & APERTURE_MASK != top:
            return False
        sp = "private" if top == PRIVATE_APERTURE else "local" if top == SHARED_APERTURE else "global"
    if sp == "local":
        return _quick_lds(ctx, w, kind, plan, mv, rb, info, [a & M32 for a in addrs], addrs)
    if sp == "private":
        return _quick_private_lanes(ctx, w, kind, plan, mv, rb, info, [a & M32 for a in addrs], addrs)
    pages = ctx.mem.pages
    spots = []
    for a in addrs:
        o = a & (PAGE - 1)
        page = pages.get(a >> 12) if o + size <= PAGE else None
        if page is None:
            return False
        spots.append((page, o))
    caches = ctx.machine.caches
    mem = ctx.mem
    if kind == "load":
        levels = None
        if caches is not None:
            if caches.pending:
                return False
            levels = caches.levels(w, dict(plan[10]))
        _record(ctx, kind, plan, lanes, addrs)
        if levels is None:
            datas = [page[o:o + size] for page, o in spots]
        else:
            cache, below = levels
            datas = []
            for ln, a in zip(lanes, addrs, strict=True):
                b = a - a % LINE
                got = b""
                while b < a + size:
                    line = cache.get(b)
                    if line is None:
                        src = below.get(b) if below is not None else None
                        if src is None:
                            src = bytearray(mem.read(b, LINE, [ln]))
                            if below is not None:
                                below[b] = src
                        line = cache[b] = bytearray(src)
                    got += line[max(a - b, 0):min(a + size - b, LINE)]
                    b += LINE
                datas.append(got)
        _load_rows(mv, rb, plan, info, datas, w.lanes)
        return True
    if caches is not None and caches.delayed and not caches.through:
        return False
    _record(ctx, kind, plan, lanes, addrs)
    changed = 0
    dirty = mem.dirty
    for (page, o), a, d in zip(spots, addrs, _lane_data(mv, rb, plan, lanes), strict=True):
        if page[o:o + size] != d:  # `GlobalMemory.write`: a write that changes bytes counts
            page[o:o + size] = d
            changed += 1
            dirty.add(a >> 12)
    mem.version += changed
    if caches is not None:
        touched = {b for a in addrs for b in range(a - a % LINE, a + size, LINE)}
        for cache in (caches.lines.get(caches.cu_of(w)), caches.gl1.get(caches.array_of(w))):
            if cache:
                for b in touched:
                    if b in cache:
                        cache[b] = bytearray(mem.read(b, LINE))
    return True


def _quick_private_lanes(ctx, w, kind, plan, mv, rb, info, addrs: list, shown) -> bool:
    """Dword-aligned private addresses that differ between lanes (a private array indexed per lane): dword k of
    lane L is at scratch_base + (a / 4 + k) * lanes * 4 + 4 * L; a store counts a `version` per changed dword
    (`write_private` writes dword by dword)."""
    size = plan[6]
    if size & 3 or any(a & 3 for a in addrs) or max(addrs) + size > w.private_size:
        return False
    pages = ctx.mem.pages
    base = w.scratch_base
    spots = []
    for ln, a in zip(info[3], addrs, strict=True):
        for k in range(0, size, 4):
            g = base + ((a + k) >> 2) * rb + 4 * ln
            page = pages.get(g >> 12)
            if page is None:  # a dword never crosses a page: 4 | PAGE
                return False
            spots.append((page, g & (PAGE - 1), g))
    _record(ctx, kind, plan, info[3], shown)
    n = size // 4
    if kind == "load":
        datas = [b"".join(page[o:o + 4] for page, o, _ in spots[i:i + n]) for i in range(0, len(spots), n)]
        _load_rows(mv, rb, plan, info, datas, w.lanes)
        return True
    mem = ctx.mem
    changed = 0
    for (page, o, g), d in zip(spots, [d[k:k + 4] for d in _lane_data(mv, rb, plan, info[3])
                                       for k in range(0, size, 4)], strict=True):
        if page[o:o + 4] != d:
            page[o:o + 4] = d
            changed += 1
            mem.dirty.add(g >> 12)
    mem.version += changed
    return True


def _quick_lds(ctx, w, kind, plan, mv, rb, info, addrs: list, shown) -> bool:
    """A flat access whose every lane is in the LDS aperture, inside the allocation: what `_vmem_fast` does with
    `LDS.gather`/`LDS.scatter` (a byte written twice keeps the last lane's value; `writes` counts the
    instruction once when it changed bytes)."""
    size = plan[6]
    lds = ctx.machine.lds_of(w)
    data = lds.data
    top = max(addrs) + size
    if top > lds.size or min(addrs) < 0:  # (past the requested size: the per-lane path notes and bounds it)
        return False
    _record(ctx, kind, plan, info[3], shown)
    if kind == "load":
        _load_rows(mv, rb, plan, info, [data[a:a + size] for a in addrs], w.lanes)
        return True
    lo = min(addrs)
    before = data[lo:top]
    for a, d in zip(addrs, _lane_data(mv, rb, plan, info[3]), strict=True):
        data[a:a + size] = d
    if data[lo:top] != before:
        lds.writes += 1
    return True


def _quick_private_narrow(ctx, w, kind, a0, plan, mv, rb, info, full, shown) -> bool:
    """Every lane at one private address, a byte or short inside one dword: lane L's bytes are at
    scratch_base + (a0 / 4) * lanes * 4 + 4 * L + a0 % 4, within one run of the wave's dwords. A store counts one
    `version` per changed byte (`write_private` writes such data byte by byte)."""
    size = plan[6]
    k = a0 & 3
    if k + size > 4 or a0 + size > w.private_size:
        return False
    addr = w.scratch_base + (a0 >> 2) * rb
    o = addr & (PAGE - 1)
    page = ctx.mem.pages.get(addr >> 12) if o + rb <= PAGE else None
    if page is None:
        return False
    nl = w.lanes
    lanes = info[3]
    if kind == "load":
        _record(ctx, kind, plan, lanes, shown)
        row = page[o:o + rb]
        _load_rows(mv, rb, plan, info, [row[4 * ln + k:4 * ln + k + size] for ln in lanes], nl)
        return True
    _record(ctx, kind, plan, lanes, shown)
    sregs = plan[12][3]
    ones = _ONES[nl]
    keep = (1 << (8 * size)) - 1
    val = int.from_bytes(mv[sregs[0] * rb:(sregs[0] + 1) * rb], "little") >> (16 if plan[8] else 0)
    new = (val & keep * ones) << (8 * k)
    old = int.from_bytes(page[o:o + rb], "little")
    x = (old ^ new) & (keep << (8 * k)) * ones & info[0]
    if x:
        page[o:o + rb] = (old ^ x).to_bytes(rb, "little")
        ctx.mem.note_written(addr, _changed(x, 8))
    return True


def _record(ctx, kind: str, plan: tuple, lanes, addrs) -> dict:
    """Record the instruction's MemOp (as the general path records it); its cache policy."""
    space = plan[0]
    policy = dict(plan[10])
    ctx.record(MemOp(kind, space if space != "flat" else "generic", None, plan[6], policy, lanes=lanes, addrs=addrs))
    return policy


def _quick_private(ctx, w, kind, a0, plan, mv, rb, info, full, shown) -> bool:
    """Every lane at one dword-aligned private address (`_private_uniform` on bytes): dword k of lane L is at
    scratch_base + ((a0 / 4 + k) * lanes + L) * 4, one run of the wave's lanes per dword."""
    size, n = plan[6], plan[12][4]
    if a0 & 3 or size & 3 or a0 + size > w.private_size:
        return False
    pages = ctx.mem.pages
    first = w.scratch_base + (a0 >> 2) * rb
    runs = []
    for k in range(n):
        addr = first + k * rb
        o = addr & (PAGE - 1)
        page = pages.get(addr >> 12) if o + rb <= PAGE else None
        if page is None:
            return False
        runs.append((page, o, addr))
    m = info[0]
    _record(ctx, kind, plan, info[3], shown)
    if kind == "load":
        _put_rows(mv, rb, plan[12][2], [page[o:o + rb] for page, o, _ in runs], m, full)
        return True
    mem = ctx.mem
    for (page, o, addr), r in zip(runs, plan[12][3], strict=True):
        new = mv[r * rb:(r + 1) * rb]
        old = page[o:o + rb]
        if full:
            if old == new:
                continue
            x = int.from_bytes(old, "little") ^ int.from_bytes(new, "little")
        else:
            x = (int.from_bytes(old, "little") ^ int.from_bytes(new, "little")) & m
            if not x:
                continue
            new = (int.from_bytes(old, "little") ^ x).to_bytes(rb, "little")
        page[o:o + rb] = new
        mem.note_written(addr, _changed(x, 32))
    return True


def _quick_uniform(ctx, w, kind, a0, plan, mv, rb, info, full) -> bool:
    """Every active lane at one global address: a load is one access whose bytes every lane receives (the later
    lanes of the lane-by-lane path only hit what the first one filled); a store is one access when one lane
    stores or every lane stores the same bytes (the later lane-by-lane writes change nothing), unless stores
    wait in a write path (one entry per lane there)."""
    size, signed, hi, d16 = plan[6], plan[7], plan[8], plan[9]
    m, first, lanes = info[0], info[1], info[3]
    nl = w.lanes
    if kind == "load":
        policy = _record(ctx, kind, plan, lanes, a0)
        data = _access(ctx, "global", a0, first, size, policy=policy)
        reg = plan[12][2]
        if size >= 4:
            _put_rows(mv, rb, reg, [data[4 * k:4 * k + 4] * nl for k in range(size // 4)], m, full)
            return True
        val = int.from_bytes(data, "little", signed=signed)
        if d16:
            o = reg * rb
            old = int.from_bytes(mv[o:o + rb], "little")
            ones = _ONES[nl]
            val &= 0xFFFF
            new = (old & 0xFFFF * ones) | (val << 16) * ones if hi else (old & 0xFFFF0000 * ones) | val * ones
            mv[o:o + rb] = (old ^ ((old ^ new) & m)).to_bytes(rb, "little")
            return True
        _put_rows(mv, rb, reg, [struct.pack("<I", val & M32) * nl], m, full)
        return True
    sregs = plan[12][3]
    sh = 32 * first
    vals = []
    for r in sregs:
        row = int.from_bytes(mv[r * rb:(r + 1) * rb], "little")
        val = row >> sh & M32
        if len(lanes) > 1 and (row ^ val * _ONES[nl]) & m:
            return False
        vals.append(val)
    caches = ctx.machine.caches
    if len(lanes) > 1 and caches is not None and caches.delayed and not caches.through:
        return False
    if size >= 4:
        data = struct.pack(f"<{len(vals)}I", *vals)[:size]
    else:
        data = ((vals[0] >> (16 if hi else 0)) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    _record(ctx, kind, plan, lanes, a0)
    _access(ctx, "global", a0, first, size, data)
    return True


def _quick_run(ctx, w, kind, a, span, plan, mv, rb, info, full) -> bool:
    """Lane L at a + size * (L - first), every byte on one mapped page: a load reads the lines its lanes touch in
    ascending order (the lane-by-lane fill order), a store writes the active lanes' bytes at once, counts a
    `version` per lane whose bytes changed and refreshes the writer's lines its lanes touched."""
    size, n = plan[6], plan[12][4]
    m, first, last, lanes = info[0], info[1], info[2], info[3]
    if a >> 12 != (a + span - 1) >> 12:
        return False
    mem = ctx.mem
    page = mem.pages.get(a >> 12)
    if page is None:
        return False
    caches = ctx.machine.caches
    levels = None
    if caches is not None:
        if kind == "load":
            if caches.pending:
                return False
            levels = caches.levels(w, dict(plan[10]))
        elif caches.delayed and not caches.through:
            return False
    dense = full or last - first + 1 == len(lanes)
    end = a + span
    lines = []  # the 64-byte lines an active lane touches, ascending
    for b in range(a - a % LINE, end, LINE):
        if not dense:
            lo = max(0, (b - a) // size)
            hi = min(last - first, (b + LINE - 1 - a) // size)
            if not (w.exec >> (first + lo)) & ((1 << (hi - lo + 1)) - 1):
                continue
        lines.append(b)
    o = a & (PAGE - 1)
    _record(ctx, kind, plan, lanes, _Affine(a, size, first, lanes))
    nl = w.lanes
    if kind == "load":
        if levels is None:
            buf = page[o:o + span]
        else:
            cache, below = levels
            buf = bytearray(span)
            for b in lines:
                line = cache.get(b)
                if line is None:
                    src = below.get(b) if below is not None else None
                    if src is None:
                        src = bytearray(mem.read(b, LINE, [first]))
                        if below is not None:
                            below[b] = src
                    line = cache[b] = bytearray(src)
                lo, hi = max(b, a), min(b + LINE, end)
                buf[lo - a:hi - a] = line[lo - b:hi - b]
        pad = bytes(4 * first), bytes(4 * (nl - 1 - last))
        if n == 1:
            rows = [pad[0] + buf + pad[1]]
        else:
            words = memoryview(buf).cast("I")
            rows = [pad[0] + words[k::n].tobytes() + pad[1] for k in range(n)]
        _put_rows(mv, rb, plan[12][2], rows, m, full)
        return True
    sregs = plan[12][3]
    if n == 1:
        new = mv[sregs[0] * rb + 4 * first:sregs[0] * rb + 4 * (last + 1)]
    else:
        out = bytearray(span)
        words = memoryview(out).cast("I")
        for k, r in enumerate(sregs):
            words[k::n] = mv[r * rb + 4 * first:r * rb + 4 * (last + 1)].cast("I")
        new = out
    old = page[o:o + span]
    if dense:
        if old == new:
            return True
        x = int.from_bytes(old, "little") ^ int.from_bytes(new, "little")
    else:
        x = (int.from_bytes(old, "little") ^ int.from_bytes(new, "little")) & _fields(info, size)
        if not x:
            return True
        new = (int.from_bytes(old, "little") ^ x).to_bytes(span, "little")
    page[o:o + span] = new
    mem.note_written(a, _changed(x, 8 * size))
    if caches is not None:
        for cache in (caches.lines.get(caches.cu_of(w)), caches.gl1.get(caches.array_of(w))):
            if cache:
                for b in lines:
                    if b in cache:
                        cache[b] = bytearray(mem.read(b, LINE))
    return True


def _private_bytes(w, lanes: np.ndarray, a: np.ndarray, size: int) -> np.ndarray:
    """Global addresses (lanes, bytes) of `size` bytes at private address `a` of each lane: the dword swizzle
    of `private_address` applied to every byte."""
    pa = a[:, None] + _BYTE[size][None, :]
    return (np.uint64(w.scratch_base) + (pa >> np.uint64(2)) * np.uint64(w.lanes * 4)
            + (lanes.astype(np.uint64) * np.uint64(4))[:, None] + (pa & np.uint64(3)))


def _vmem_uniform(ctx, w, kind, space, lanes, lane_list, a0, vdst, size, signed, hi, d16, policy, data_regs) -> bool:
    """Every lane at one address (a stack slot, a polled flag, a uniform load): scratch as one run of lanes, a
    global load as one access whose bytes every lane receives (the later lanes of the lane-by-lane path only hit
    what the first one filled, so the caches end the same). False: the general paths decide."""
    if space == "flat":
        sub, a0 = classify_flat(a0)
        space = {"global": "global", "private": "private"}.get(sub)
        if space is None:
            return False
    if space == "private":
        if a0 & 3 or size & 3 or a0 + size > w.private_size:
            return False
        return _private_uniform(ctx, w, kind, lanes, a0, size, vdst, data_regs)
    if kind != "load" or vdst is None or (size < 4 and d16) or a0 + size > _M64:
        return False
    data = _access(ctx, "global", a0, lane_list[0], size, policy=policy)
    n = max(1, size // 4)
    w.ensure_vgprs(vdst.register + n)
    outs = [w.v[vdst.register + i].copy() for i in range(n)]
    if size >= 4:
        for i in range(n):
            outs[i][lanes] = struct.unpack_from("<I", data, 4 * i)[0]
    else:
        outs[0][lanes] = int.from_bytes(data, "little", signed=signed) & M32
    write_vector_multi(w, vdst, outs)
    return True


def _private_uniform(ctx, w, kind, lanes, a0, size, vdst, data_regs) -> bool:
    """Scratch at one dword-aligned private address in every lane (a stack slot): dword k of lane L is at
    scratch_base + ((a0 / 4 + k) * lanes + L) * 4, so each dword is one run of the wave's lanes."""
    mem = ctx.mem
    n = size // 4
    nl = w.lanes
    stride = nl * 4
    first = w.scratch_base + (a0 >> 2) * stride
    views = []
    for k in range(n):
        view = mem.dword_view(first + k * stride, nl)
        if view is None:
            return False
        views.append(view)
    full = len(lanes) == nl  # every lane active: whole rows, no lane selection
    if kind == "load":
        if vdst is None:
            return False
        if vdst.kind is not OperandKind.VGPR:  # AccVGPRs (gfx90a loads into them)
            outs = [read_vector(w, _reg(vdst, i)) for i in range(n)]
            for k in range(n):
                outs[k][lanes] = views[k][lanes]
            write_vector_multi(w, vdst, outs)
            return True
        r = vdst.register
        if r + n > w.v.shape[0]:
            w.ensure_vgprs(r + n)
        v = w.v
        for k in range(n):
            if full:
                v[r + k] = views[k]
            else:
                v[r + k, lanes] = views[k][lanes]
        return True
    if len(data_regs) < n:
        return False
    for k in range(n):  # `write_private`: one 4-byte write per lane and dword, counted when it changes bytes
        view = views[k]
        if full:
            new = read_vector(w, data_regs[k])
            changed = int(np.count_nonzero(view != new))
            if changed:
                view[:] = new
        else:
            new = read_vector(w, data_regs[k])[lanes]
            changed = int(np.count_nonzero(view[lanes] != new))
            if changed:
                view[lanes] = new
        mem.note_written(first + k * stride, changed)
    return True


def _vmem_fast(ctx, w, kind, space, lanes, lane_list, a, vdst, size, signed, hi, d16, policy, data_regs) -> bool:
    """The whole instruction as array operations; False when the lane-by-lane path must run instead (anything
    unusual: a fault, an address in the LDS or private aperture of a flat access, an access wrapping the
    address space, overlapping stores). Nothing is changed before it decides."""
    caches = ctx.machine.caches
    mem = ctx.mem
    if space == "flat":  # every lane in one aperture (`classify_flat`), else lane by lane
        top = a & _APERTURES
        if not top.any():
            space = "global"
        elif (top == np.uint64(PRIVATE_APERTURE)).all():
            space, a = "private", a & np.uint64(M32)
        elif (top == np.uint64(SHARED_APERTURE)).all():
            space, a = "local", a & np.uint64(M32)
        elif ((top == np.uint64(PRIVATE_APERTURE)) | (top == np.uint64(SHARED_APERTURE))).any():
            return False
        else:
            space = "global"
    if space == "local":
        b = (a[:, None] + _BYTE[size][None, :]).astype(np.int64)
    elif space == "private":
        if int(a.max()) + size > w.private_size:
            return False
        a0 = int(a[0])
        if not (a0 & 3 or size & 3) and (a == a[0]).all():  # every lane at one aligned private address
            return _private_uniform(ctx, w, kind, lanes, a0, size, vdst, data_regs)
        b = _private_bytes(w, lanes, a, size)
        aligned = not (a & np.uint64(3)).any()
    else:
        if int(a.max()) > _M64 - size:
            return False
        b = a[:, None] + _BYTE[size][None, :]
    if kind == "load":
        if vdst is None:
            return False
        if space == "local":
            data = ctx.machine.lds_of(w).gather(b)
        elif space == "private":
            data = mem.gather(b)
        elif caches is None:
            data = mem.gather(b)
        else:
            data = caches.gather(w, b, lane_list, policy)
        if data is None:
            return False
        n = max(1, size // 4)
        w.ensure_vgprs(vdst.register + n)
        outs = [w.v[vdst.register + i].copy() for i in range(n)]
        if size >= 4:
            dw = np.ascontiguousarray(data).view("<u4")
            for i in range(n):
                outs[i][lanes] = dw[:, i]
        else:
            val = data[:, 0].astype(np.uint32)
            if size == 2:
                val |= data[:, 1].astype(np.uint32) << np.uint32(8)
            if signed:
                sign = np.uint32(1 << (8 * size - 1))
                val = np.where(val & sign, val | np.uint32(M32 ^ ((1 << (8 * size)) - 1)), val)
            if d16:
                old = outs[0][lanes]
                val &= np.uint32(0xFFFF)
                val = (old & np.uint32(0xFFFF)) | (val << np.uint32(16)) if hi else (
                    old & np.uint32(0xFFFF0000)) | val
            outs[0][lanes] = val
        write_vector_multi(w, vdst, outs)
        return True
    if not data_regs:
        return False
    if size >= 4:
        vals = np.stack([read_vector(w, r) for r in data_regs], axis=1)[lanes]  # (lanes, dwords)
        data = np.ascontiguousarray(vals.astype("<u4")).view(np.uint8)[:, :size]
    else:
        val = read_vector(w, data_regs[0])[lanes] >> np.uint32(16 if hi else 0)
        data = np.stack([(val >> np.uint32(8 * k)).astype(np.uint8) for k in range(size)], axis=1)
    if space == "local":
        return ctx.machine.lds_of(w).scatter(b, data)
    if space == "private":  # `write_private` writes dword by dword when aligned, else byte by byte
        if size % 4:
            chunk = 1
        elif aligned:
            chunk = 4
        elif (a & np.uint64(3)).all():
            chunk = 1
        else:
            return False  # some lanes aligned, some not
        return mem.scatter(b, data, chunk)
    if caches is None:
        return mem.scatter(b, data, size)
    return caches.scatter(w, b, data)


def _reg(op, i: int):
    from amddbg.isa.model import Operand

    return Operand(op.kind, op.text, op.register + i, 1, None, False, ())


for _pfx in ("global", "flat", "scratch"):
    for _sfx in ("dword", "dwordx2", "dwordx3", "dwordx4", "ubyte", "sbyte", "ushort", "sshort", "b32", "b64", "b96",
                 "b128", "u8", "i8", "u16", "i16", "short_d16", "short_d16_hi", "ubyte_d16", "ubyte_d16_hi",
                 "sbyte_d16", "sbyte_d16_hi", "d16_b16", "d16_hi_b16", "d16_u8", "d16_i8", "d16_hi_u8", "d16_hi_i8"):
        semantic(f"{_pfx}_load_{_sfx}")(_vmem("load"))
    for _sfx in ("dword", "dwordx2", "dwordx3", "dwordx4", "byte", "short", "b8", "b16", "b32", "b64", "b96", "b128",
                 "byte_d16_hi", "short_d16_hi", "d16_hi_b8", "d16_hi_b16"):
        semantic(f"{_pfx}_store_{_sfx}")(_vmem("store"))


# ---------------------------------------------------------------------------------------------- atomics

_ATOM = {
    "add": lambda o, s, b: o + s, "sub": lambda o, s, b: o - s, "swap": lambda o, s, b: s,
    "and": lambda o, s, b: o & s, "or": lambda o, s, b: o | s, "xor": lambda o, s, b: o ^ s,
    "umin": lambda o, s, b: min(o, s), "umax": lambda o, s, b: max(o, s),
    "smin": lambda o, s, b: _tw(min(_sg(o, b), _sg(s, b)), b),
    "smax": lambda o, s, b: _tw(max(_sg(o, b), _sg(s, b)), b),
    "min_u32": lambda o, s, b: min(o, s), "max_u32": lambda o, s, b: max(o, s),
    "min_i32": lambda o, s, b: _tw(min(_sg(o, b), _sg(s, b)), b),
    "max_i32": lambda o, s, b: _tw(max(_sg(o, b), _sg(s, b)), b),
    "inc": lambda o, s, b: 0 if o >= s else o + 1, "dec": lambda o, s, b: s if (o == 0 or o > s) else o - 1,
    "add_u32": lambda o, s, b: o + s, "sub_u32": lambda o, s, b: o - s, "swap_b32": lambda o, s, b: s,
    "and_b32": lambda o, s, b: o & s, "or_b32": lambda o, s, b: o | s, "xor_b32": lambda o, s, b: o ^ s,
    "inc_u32": lambda o, s, b: 0 if o >= s else o + 1, "dec_u32": lambda o, s, b: s if (o == 0 or o > s) else o - 1,
}


def _sg(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) & 1 else v


def _tw(v: int, bits: int) -> int:
    return v & ((1 << bits) - 1)


def _fval(v: int, bits: int) -> float:
    return struct.unpack("<d" if bits == 64 else "<f", v.to_bytes(bits // 8, "little"))[0]


def _fminmax(is_min: bool):
    """Float atomic min/max as the ISA pseudocode writes it: MEM = (DATA < MEM) ? DATA : MEM (max with >), so a NaN
    on either side and a zero of the other sign leave memory as it was."""

    def fn(o: int, s: int, bits: int) -> int:
        a, b = _fval(s, bits), _fval(o, bits)
        return s if (a < b if is_min else a > b) else o

    return fn


def _fminmax_num(is_min: bool):
    """GFX12+ `*_min_num_*`/`*_max_num_*` atomics (global, flat, LDS; f32 and, on GFX12.5, f64): IEEE 754-2019
    minimumNumber/maximumNumber, what LLVM lowers `atomicrmw fmin/fmax` (llvm.minnum semantics) to on these
    targets, and what the VALU's v_min_num/v_max_num do here (vfloat._minmax): a NaN loses to a number, two NaNs
    give DATA quieted, and -0 < +0. The older spellings (min_f32, min_f64, fmin) keep `_fminmax`'s raw compare."""

    def fn(o: int, s: int, bits: int) -> int:
        a, b = _fval(s, bits), _fval(o, bits)
        quiet = 1 << (22 if bits == 32 else 51)
        if a != a:
            return (s | quiet) if b != b else o
        if b != b:
            return s
        if a == 0 and b == 0:  # signed zeros: the sign bit decides
            sa, sb = s >> (bits - 1) & 1, o >> (bits - 1) & 1
            return s if (sa and not sb) == is_min and sa != sb else o
        return s if (a < b if is_min else a > b) else o

    return fn


def _fadd(o: int, s: int, bits: int) -> int:
    if bits == 64:
        return struct.unpack("<Q", struct.pack("<d", struct.unpack("<d", o.to_bytes(8, "little"))[0]
                                               + struct.unpack("<d", s.to_bytes(8, "little"))[0]))[0]
    f = np.float32(struct.unpack("<f", o.to_bytes(4, "little"))[0]) + np.float32(
        struct.unpack("<f", s.to_bytes(4, "little"))[0])
    return int(np.float32(f).view(np.uint32))


def _atomic_plan(insn) -> tuple:
    """What a GLOBAL/FLAT atomic's execution needs that its text and operands fix (once per instruction): the
    operation, width, registers and offset, and the per-lane update `(old, src, cmp) -> new` (None: unknown)."""
    mn = insn.mnemonic
    op = mn.split("atomic_", 1)[1]
    bits = 64 if op.endswith(("x2", "_u64", "_i64", "_b64", "f64")) else 32
    base = op[:-3] if op.endswith("_x2") else op
    base = re.sub(r"_(u|i|b|f)(32|64)$", lambda m: "" if base.startswith(("add", "sub", "swap", "and", "or", "xor",
                                                                             "inc", "dec", "cmpswap")) else m.group(0),
                  base)
    ops = [o for o in insn.operands if o.kind is not OperandKind.OFFSET]
    returns = bool(insn.memory and insn.memory.returns) or any(o.is_dest for o in ops)
    vdst = next((o for o in ops if o.is_dest), None)
    rest = [o for o in ops if not o.is_dest]
    saddr = next((o for o in rest if o.kind is OperandKind.SGPR), None)
    vregs = [o for o in rest if o.kind is OperandKind.VGPR]
    vaddr, vdata = vregs[0], vregs[1:]
    data_op = vdata[0] if vdata else None
    cmp_op = vdata[1] if len(vdata) > 1 else None
    if "cmpswap" in op and vdata and vdata[0].count >= (2 if bits == 32 else 4):  # the data is a pair: [src, cmp]
        d = vdata[0]
        data_op, cmp_op = (_reg(d, 0), _reg(d, 1)) if bits == 32 else (_pair(d, 0), _pair(d, 2))
    mask = (1 << bits) - 1
    if "cmpswap" in op:
        def update(old, s, c):
            return s if old == c else old
    elif op.startswith(("add_f", "fadd")):
        def update(old, s, c):
            return _fadd(old, s, bits)
    else:
        fn = _ATOM.get(base) or _ATOM.get(op)
        update = None if fn is None else (lambda old, s, c: fn(old, s, bits) & mask)
    policy = dict(insn.memory.cache_policy) if insn.memory else {}
    return (bits, bits // 8, returns, vdst, saddr, vaddr, data_op, cmp_op, _offset(insn.text), update, policy, op)


_ATOMIC_PLANS: dict = {}


def _atomic(ctx, insn, space: str):
    """Each active lane in lane order reads, updates and writes its address (lanes at one address see each other's
    results, as the hardware serialises them); the old values go to the destination of a returning form."""
    w = ctx.wave
    bits, nb, returns, vdst, saddr, vaddr, data_op, cmp_op, off, update, policy, op = per_insn_cache(
        _ATOMIC_PLANS, insn, _atomic_plan)
    if saddr is not None:
        addrs = read_vector(w, vaddr).astype(np.uint64) * np.uint64(nb if _scaled(insn) else 1) + np.uint64(
            read_scalar(w, saddr, 64))
    else:
        addrs = read_vector(w, vaddr, 64)
    lanes = w.active_lanes()
    alist = [(a + off) & _M64 for a in addrs[lanes].tolist()] if lanes else []
    foreign = {}
    if space == "flat" and alist and w.processor.startswith("gfx125"):  # (another lane's scratch: its own slot)
        fa, foreign = foreign_scratch_lanes(ctx.machine, w, np.asarray(lanes), np.asarray(alist, dtype=np.uint64))
        alist = fa.tolist()
    srcs = read_vector(w, data_op, bits)[lanes].tolist() if data_op is not None else [0] * len(lanes)
    cmps = read_vector(w, cmp_op, bits)[lanes].tolist() if cmp_op is not None else [0] * len(lanes)
    old_vals = np.zeros(w.lanes, dtype=np.uint64)
    if foreign or update is None or not _atomic_quick(ctx, w, space, nb, lanes, alist, srcs, cmps, update,
                                                       old_vals):
        for ln, a, s, c in zip(lanes, alist, srcs, cmps, strict=True):  # lane by lane: faults, LDS/private, delays
            f = foreign.get(ln)
            if update is None:
                raise Unsupported(insn.text, insn.address)
            if f is not None:  # the owner's private memory, read-modify-write in lane order like the others
                owner, o_lane, o_off = f
                old = int.from_bytes(read_private(ctx.mem, owner, o_off, nb, o_lane), "little")
                write_private(ctx.mem, owner, o_off, update(old, s, c).to_bytes(nb, "little"), o_lane)
                old_vals[ln] = old
                continue
            old = int.from_bytes(_access(ctx, space, a, ln, nb, atomic=True), "little")
            _access(ctx, space, a, ln, nb, update(old, s, c).to_bytes(nb, "little"))
            old_vals[ln] = old
    ctx.record(MemOp("atomic", "generic" if space == "flat" else space, dict(zip(lanes, alist, strict=True)), nb,
                     dict(policy), op))
    if returns and vdst is not None:
        from amddbg.emu.operands import write_vector

        write_vector(w, vdst, old_vals if bits == 64 else old_vals.astype(np.uint32), bits)


def _atomic_quick(ctx, w, space, nb, lanes, alist, srcs, cmps, update, old_vals) -> bool:
    """The lane-by-lane atomic on the pages directly, when every address is global memory on a mapped page with
    no access crossing one and no store waits in a write path: the same bytes, `version`/`dirty` counts and
    old values, and the writer's cached lines refreshed from memory once at the end (what refreshing after each
    lane leaves, since atomics read memory, not the caches). False, with nothing done, otherwise."""
    caches = ctx.machine.caches
    if caches is not None and caches.delayed and not caches.through:
        return False
    mem = ctx.mem
    pages = mem.pages
    spots = []
    for a in alist:
        if space == "flat" and a & APERTURE_MASK in (SHARED_APERTURE, PRIVATE_APERTURE):
            return False
        o = a & (PAGE - 1)
        page = pages.get(a >> 12) if o + nb <= PAGE else None
        if page is None:
            return False
        spots.append((page, o))
    changed = 0
    for ln, (page, o), a, s, c in zip(lanes, spots, alist, srcs, cmps, strict=True):
        old = int.from_bytes(page[o:o + nb], "little")
        new = update(old, s, c)
        if new != old:
            page[o:o + nb] = new.to_bytes(nb, "little")
            changed += 1
            mem.dirty.add(a >> 12)
        old_vals[ln] = old
    mem.version += changed
    if caches is not None:  # (every lane's store refreshed, changed or not: a stale line gets memory's bytes)
        lines = {b for a in alist for b in range(a - a % LINE, a + nb, LINE)}
        for cache in (caches.lines.get(caches.cu_of(w)), caches.gl1.get(caches.array_of(w))):
            for b in lines & cache.keys() if cache else ():
                cache[b] = bytearray(mem.read(b, LINE))
    return True


def _pair(op, i):
    from amddbg.isa.model import Operand

    return Operand(op.kind, op.text, op.register + i, 2, None, False, ())


def _atomic_sem(space):
    def run(ctx, insn):
        _atomic(ctx, insn, space)

    return run


_ATOMIC_NAMES = ["add", "sub", "swap", "cmpswap", "and", "or", "xor", "umin", "umax", "smin", "smax", "inc", "dec",
                 "add_f32", "add_f64", "fadd", "add_u32", "sub_u32", "swap_b32", "cmpswap_b32", "and_b32", "or_b32",
                 "xor_b32", "min_u32", "max_u32", "min_i32", "max_i32", "inc_u32", "dec_u32", "add_u64", "cmpswap_b64",
                 "swap_b64"]
# GFX11+ spell the 64-bit forms with a type suffix instead of _x2
_ATOMIC_NAMES += ["sub_u64", "and_b64", "or_b64", "xor_b64", "min_i64", "max_i64", "min_u64", "max_u64", "inc_u64",
                  "dec_u64"]
_ATOM.update({"min_u64": _ATOM["umin"], "max_u64": _ATOM["umax"], "min_i64": _ATOM["smin"], "max_i64": _ATOM["smax"]})
# float min/max: GFX10 fmin/fmax(_x2), gfx90a/gfx94x/GFX11 min/max_f32/_f64, GFX12 min/max_num_f32
# (the _num forms, GFX12's f32 and GFX12.5's f64, are minimumNumber/maximumNumber: _fminmax_num)
_FMINMAX = {"fmin": True, "fmax": False, "min_f32": True, "max_f32": False, "min_f64": True, "max_f64": False,
            "min_num_f32": True, "max_num_f32": False, "min_num_f64": True, "max_num_f64": False}
_ATOM.update({_n: (_fminmax_num if "_num_" in _n else _fminmax)(_m) for _n, _m in _FMINMAX.items()})
_ATOMIC_NAMES += list(_FMINMAX)
for _n in _ATOMIC_NAMES:
    for _pfx, _sp in (("global", "global"), ("flat", "flat")):
        semantic(f"{_pfx}_atomic_{_n}", f"{_pfx}_atomic_{_n}_x2")(_atomic_sem(_sp))


# ---------------------------------------------------------------------------------------------- MUBUF (buffer)


def _buffer_plan(insn, kind: str) -> tuple | None:
    """What `_buffer_quick` needs that the instruction fixes: (resource SGPR, soffset operand, immediate offset,
    size, data/destination VGPR, cache policy); None when the quick path never applies (an address VGPR, a
    sub-dword or multi-dword access, AccVGPR data)."""
    ops = [o for o in insn.operands if o.kind is not OperandKind.OFFSET and not (
        o.kind is OperandKind.SPECIAL and o.text == "off")]
    vd = next((o for o in ops if o.is_dest), None)
    if vd is None and kind == "load":
        vd = next((o for o in ops if o.kind is OperandKind.VGPR), None)
    rest = [o for o in ops if not o.is_dest and o is not vd]
    srsrc = next((o for o in rest if o.kind is OperandKind.SGPR and o.count == 4), None)
    if srsrc is None or " offen" in insn.text or " idxen" in insn.text:
        return None
    i = rest.index(srsrc)
    vregs_before = [o for o in rest[:i] if o.kind is OperandKind.VGPR]
    reg = vd if kind == "load" else (vregs_before[0] if vregs_before else None)
    size = _width(insn.mnemonic)[0]
    if reg is None or reg.kind is not OperandKind.VGPR or size != 4:
        return None
    return (srsrc.register, rest[i + 1] if i + 1 < len(rest) else None, _offset(insn.text), reg.register,
            tuple(insn.memory.cache_policy.items()) if insn.memory else ())


_BUF_PLANS: dict = {}


def _buffer_quick(ctx, w, kind: str, bp: tuple) -> bool:
    """A dword MUBUF access with no address VGPR through a V# with ADD_TID (the private segment buffer: lane L at
    base + soffset + offset-part + L * 4, one run of the wave's dwords): the lane-by-lane reads and writes of
    `_buffer` as one slice of a page. False, nothing done, for anything else."""
    sreg, soff_op, inst_off, reg, policy_items = bp
    s = w.s
    if sreg + 4 > len(s):
        return False
    d0, d1, d2, d3 = s[sreg], s[sreg + 1], s[sreg + 2], s[sreg + 3]
    if not (d3 >> 23) & 1:  # no ADD_TID: ranges, strides (the general path)
        return False
    ex = w.exec & w.mask
    nl = w.lanes
    if not ex or not _LITTLE or nl not in _ONES or reg >= w.v.shape[0]:
        return False
    base = (d0 | d1 << 32) & ((1 << 48) - 1)
    stride = (d1 >> 16) & 0x3FFF
    soff = read_scalar(w, soff_op) if soff_op is not None else 0
    if d1 >> 31:  # swizzled: index = lane, element size from dword 3
        elem = [2, 4, 8, 16][(d3 >> 19) & 3]
        if elem != 4:
            return False
        index_stride = [8, 16, 32, 64][(d3 >> 21) & 3]
        k0 = base + soff + (inst_off // elem) * elem * index_stride + inst_off % elem
        if index_stride == nl and d2 == M32 and w.private_size:  # `_check_private`: the same byte in every lane
            p = (base + soff - w.scratch_base) // nl + inst_off
            if p < 0 or p + 4 > w.private_size:
                return False
    else:
        if stride != 4:
            return False
        k0 = base + soff + inst_off
    info = _XINFO.get(ex | nl << 64) or _exec_info(ex, nl)
    m, first, last = info[0], info[1], info[2]
    a = k0 + 4 * first
    span = 4 * (last - first + 1)
    if a < 0 or a >> 12 != (a + span - 1) >> 12:
        return False
    mem = ctx.mem
    page = mem.pages.get(a >> 12)
    if page is None:
        return False
    try:
        mv = memoryview(w.v).cast("B")
    except TypeError:
        return False
    rb = 4 * nl
    lanes = info[3]
    ctx.record(MemOp(kind, "private", None, 4, dict(policy_items), lanes=lanes, addrs=_Affine(a, 4, first, lanes)))
    o = a & (PAGE - 1)
    if kind == "load":
        _put_rows(mv, rb, reg, [bytes(4 * first) + page[o:o + span] + bytes(4 * (nl - 1 - last))], m, ex == w.mask)
        return True
    new = mv[reg * rb + 4 * first:reg * rb + 4 * (last + 1)]
    old = page[o:o + span]
    if last - first + 1 == len(lanes):
        if old == new:
            return True
        x = int.from_bytes(old, "little") ^ int.from_bytes(new, "little")
    else:
        x = (int.from_bytes(old, "little") ^ int.from_bytes(new, "little")) & _fields(info, 4)
        if not x:
            return True
        new = (int.from_bytes(old, "little") ^ x).to_bytes(span, "little")
    page[o:o + span] = new
    mem.note_written(a, _changed(x, 32))
    return True


def _buffer(kind: str):
    def run(ctx, insn):
        w = ctx.wave
        hit = _BUF_PLANS.get(id(insn))
        bp = hit[1] if hit is not None and hit[0] is insn else per_insn_cache(_BUF_PLANS, insn,
                                                                            lambda i: _buffer_plan(i, kind))
        if bp is not None and _buffer_quick(ctx, w, kind, bp):
            return
        mn = insn.mnemonic
        ops = [o for o in insn.operands if o.kind is not OperandKind.OFFSET and not (
            o.kind is OperandKind.SPECIAL and o.text == "off")]
        vd = next((o for o in ops if o.is_dest), None)
        if vd is None and kind == "load":  # some GFX10 MUBUF loads carry no destination flag
            vd = next(o for o in ops if o.kind is OperandKind.VGPR)
        rest = [o for o in ops if not o.is_dest and o is not vd]
        srsrc = next(o for o in rest if o.kind is OperandKind.SGPR and o.count == 4)
        i = rest.index(srsrc)
        vregs_before = [o for o in rest[:i] if o.kind is OperandKind.VGPR]
        soff_op = rest[i + 1] if i + 1 < len(rest) else None
        text = insn.text
        offen, idxen = " offen" in text, " idxen" in text
        vdata = vregs_before[0] if kind == "store" and vregs_before else None
        addr_regs = vregs_before[1:] if kind == "store" else vregs_before
        vaddr = addr_regs[0] if (offen or idxen) and addr_regs else None
        desc = read_scalar(w, srsrc, 64) | (read_scalar(w, _sreg(srsrc, 2), 64) << 64)
        base = desc & ((1 << 48) - 1)
        stride = (desc >> 48) & 0x3FFF
        swizzle = (desc >> 63) & 1
        num_records = (desc >> 64) & M32
        dword3 = desc >> 96
        add_tid = (dword3 >> 23) & 1
        index_stride = [8, 16, 32, 64][(dword3 >> 21) & 3]
        elem = [2, 4, 8, 16][(dword3 >> 19) & 3]
        soff = read_scalar(w, soff_op) if soff_op is not None else 0
        inst_off = _offset(text)
        size, signed, hi = _width(mn)
        vaddr_vals = read_vector(w, vaddr) if vaddr is not None else np.zeros(w.lanes, dtype=np.uint32)
        addrs = {}
        for ln in w.active_lanes():
            index = (int(vaddr_vals[ln]) if idxen else 0) + (ln if add_tid else 0)
            offset = (int(vaddr_vals[ln]) if offen and not idxen else 0) + inst_off
            if swizzle:
                a = base + soff + (offset // elem) * elem * index_stride + index * elem + offset % elem
                if add_tid and elem == 4 and index_stride == w.lanes and num_records == M32 and w.private_size:
                    # the runtime's private segment buffer (machine._initial_state) or a copy of it
                    _check_private(w, kind, (base + soff - w.scratch_base) // w.lanes + offset, size, ln)
            else:
                a = base + soff + index * stride + offset
                if not add_tid and stride == 0 and offset + size > num_records:
                    continue  # out of range: loads read 0, stores are dropped
            addrs[ln] = a
        ctx.record(MemOp(kind, "private" if add_tid else "global", addrs, size,
                         dict(insn.memory.cache_policy) if insn.memory else {}))
        n = max(1, size // 4)
        d16 = "d16" in mn
        if kind == "load" and d16:  # one half of the VGPR (d16_hi: the high one), the other half kept; an
            w.ensure_vgprs(vd.register + 1)  # out-of-range lane's half reads 0
            old = w.v[vd.register].copy()
            out = old.copy()
            for ln in w.active_lanes():
                val = int.from_bytes(ctx.mem.read(addrs[ln], size, [ln]), "little", signed=signed) & 0xFFFF \
                    if ln in addrs else 0
                o = int(old[ln])
                out[ln] = ((o & 0xFFFF) | (val << 16)) if hi else ((o & 0xFFFF0000) | val)
            write_vector_multi(w, vd, [out])
        elif kind == "load":
            w.ensure_vgprs(vd.register + n)
            outs = [np.where(w.exec_mask(), U32(0), w.v[vd.register + k]).astype(U32) for k in range(n)]
            for ln, a in addrs.items():
                _put_lane(outs, ln, ctx.mem.read(a, size, [ln]), size, signed)
            write_vector_multi(w, vd, outs)
        else:
            regs = [read_vector(w, _reg(vdata, k)) for k in range(n)]
            for ln, a in addrs.items():
                if size >= 4:
                    data = b"".join(struct.pack("<I", int(r[ln])) for r in regs)
                else:  # (d16_hi: the byte or short held in bits 31:16)
                    data = ((int(regs[0][ln]) >> (16 if hi else 0)) & ((1 << (8 * size)) - 1)).to_bytes(size,
                                                                                                       "little")
                ctx.mem.write(a, data, [ln])

    return run


def _check_private(w, kind: str, p: int, size: int, lane: int) -> None:
    """A scratch-SRD (swizzled, per-lane) access reaches byte `p` of `lane`'s private memory: outside the wave's
    private segment it faults as a flat or scratch access there does (memory.read_private / write_private), rather
    than landing in the next wave's scratch."""
    if p < 0 or p + size > w.private_size:
        from amddbg.emu.errors import MemoryViolation

        what = "read" if kind == "load" else "write"
        raise MemoryViolation(p & M32, [lane], f"private {what} outside the {w.private_size}-byte private segment")


def _sreg(op, i):
    from amddbg.isa.model import Operand

    return Operand(op.kind, op.text, op.register + i, 2, None, False, ())


for _sfx in ("dword", "dwordx2", "dwordx3", "dwordx4", "ubyte", "sbyte", "ushort", "sshort", "b32", "b64", "b96",
             "b128", "u8", "i8", "u16", "i16", "ubyte_d16", "ubyte_d16_hi", "sbyte_d16", "sbyte_d16_hi", "short_d16",
             "short_d16_hi", "d16_u8", "d16_hi_u8", "d16_i8", "d16_hi_i8", "d16_b16", "d16_hi_b16"):
    semantic(f"buffer_load_{_sfx}")(_buffer("load"))
for _sfx in ("dword", "dwordx2", "dwordx3", "dwordx4", "byte", "short", "b8", "b16", "b32", "b64", "b96", "b128",
             "byte_d16_hi", "short_d16_hi", "d16_hi_b8", "d16_hi_b16"):
    semantic(f"buffer_store_{_sfx}")(_buffer("store"))


@semantic("s_dcache_inv", "s_dcache_inv_vol")
def s_dcache_inv(ctx, insn):
    """Drop every line of the wave's scalar data cache (amddbg.emu.scalarcache); the vector caches keep theirs."""
    if ctx.machine.caches is not None:
        ctx.machine.caches.scalar_invalidate(ctx.wave)
    ctx.record(MemOp("cache", "scalar", {}, 0, {}, insn.mnemonic))


@semantic("buffer_wbinvl1_vol", "buffer_wbinvl1", "buffer_inv", "buffer_wbl2", "buffer_invl2", "buffer_gl0_inv",
          "buffer_gl1_inv", "global_inv", "global_wb", "global_wbinv")
def cache_control(ctx, insn):
    """Invalidate the wave's vector L1 as the instruction's scope says (amddbg.emu.caches)."""
    if ctx.machine.caches is not None:
        ctx.machine.caches.invalidate(ctx.wave, insn.mnemonic, dict(insn.memory.cache_policy) if insn.memory else {})
    ctx.record(MemOp("cache", "global", {}, 0, dict(insn.memory.cache_policy) if insn.memory else {},
                     insn.mnemonic))


# ---------------------------------------------------------------------------------------------- DS (LDS)


def _ds_addr(ctx, insn):
    ops = [o for o in insn.operands if o.kind is OperandKind.VGPR and not o.is_dest]
    return read_vector(ctx.wave, ops[0]) if ops else np.zeros(ctx.wave.lanes, dtype=np.uint32), ops


_DS_SIZE = {"b32": 4, "b64": 8, "b96": 12, "b128": 16, "u8": 1, "i8": 1, "u16": 2, "i16": 2, "b8": 1, "b16": 2,
            "u8_d16": 1, "u16_d16": 2}


def _ds_plan(insn, kind: str, two: bool, st64: bool) -> tuple:
    """What a DS load/store's execution needs that the instruction fixes (computed once per instruction)."""
    mn = insn.mnemonic
    m = re.match(r"ds_(read|write|load|store)2?(st64)?_(\w+)$", mn)
    suffix = m.group(3) if m else "b32"
    if two:
        suffix = mn.rsplit("_", 1)[1]
    size = _DS_SIZE.get(suffix, 4)
    ops = [o for o in insn.operands if o.kind is OperandKind.VGPR and not o.is_dest]
    n = max(1, size // 4)
    if two:
        scale = size * (64 if st64 else 1)
        offs = (_offset(insn.text, "offset0") * scale, _offset(insn.text, "offset1") * scale)
    else:
        offs = (_offset(insn.text),)
    vd = next((o for o in insn.operands if o.is_dest), None) if kind == "load" else None
    data = []
    if kind == "store":
        for d in (ops[1:3] if two else ops[1:2]):
            data += [_reg(d, k) for k in range(n)]
    return size, suffix.startswith("i"), ops[0] if ops else None, offs, vd, tuple(data), len(ops)


_DS_PLANS: dict = {}


def _ds_fast(ctx, insn, kind: str, two: bool, st64: bool) -> bool:
    """A DS load/store as array operations over the lanes; False (nothing changed) when the lane-by-lane path
    must run: an address outside the LDS (it reports the violation), or a form the plan does not cover."""
    w = ctx.wave
    size, signed, aop, offs, vd, data_regs, nops = per_insn_cache(_DS_PLANS, insn,
                                                                  lambda i: _ds_plan(i, kind, two, st64))
    lanes = lane_index(w.exec, w.lanes)
    if not len(lanes) or (kind == "load" and vd is None) or (kind == "store" and nops < (3 if two else 2)):
        return False
    n = max(1, size // 4)
    if two and size % 4:
        return False
    a = (read_vector(w, aop)[lanes].astype(np.int64) if aop is not None else np.zeros(len(lanes), dtype=np.int64))
    b = np.concatenate([((a + o) & M32)[:, None] + _BYTE64[size][None, :] for o in offs], axis=1)
    lds = ctx.machine.lds_of(w)
    if kind == "load":
        got = lds.gather(b)
        if got is None:
            return False
        w.ensure_vgprs(vd.register + n * len(offs))
        outs = [w.v[vd.register + k].copy() for k in range(n * len(offs))]
        if size >= 4:
            dw = np.ascontiguousarray(got).view("<u4")
            for k in range(len(outs)):
                outs[k][lanes] = dw[:, k]
        else:
            val = got[:, 0].astype(np.uint32)
            if size == 2:
                val |= got[:, 1].astype(np.uint32) << np.uint32(8)
            if signed:
                val = np.where(val & np.uint32(1 << (8 * size - 1)), val | np.uint32(M32 ^ ((1 << (8 * size)) - 1)),
                               val)
            outs[0][lanes] = val
        write_vector_multi(w, vd, outs)
    else:
        if size >= 4:
            vals = np.stack([read_vector(w, r) for r in data_regs], axis=1)[lanes]
            data = np.ascontiguousarray(vals.astype("<u4")).view(np.uint8)
            if not two:
                data = data[:, :size]
        else:
            val = read_vector(w, data_regs[0])[lanes]
            data = np.stack([(val >> np.uint32(8 * k)).astype(np.uint8) for k in range(size)], axis=1)
        if data.shape != b.shape or not lds.scatter(b, data):
            return False
    ctx.record(MemOp(kind, "local", None, 2 * size if two else size, lanes=lanes, addrs=a + offs[0]))  # (the
    # lane -> address dict is built when someone reads it)
    return True


def _ds_rw(kind: str, two: bool = False, st64: bool = False):
    def run(ctx, insn):
        if _ds_fast(ctx, insn, kind, two, st64):
            return
        w = ctx.wave
        mn = insn.mnemonic
        m = re.match(r"ds_(read|write|load|store)2?(st64)?_(\w+)$", mn)
        suffix = m.group(3) if m else "b32"
        if two:  # GFX11+ ds_load_2addr[_stride64]_b64: the element type is the last part of the name
            suffix = mn.rsplit("_", 1)[1]
        size = _DS_SIZE.get(suffix, 4)
        signed = suffix.startswith("i")
        addr, vops = _ds_addr(ctx, insn)
        lds = ctx.machine.lds_of(w)
        lanes = w.active_lanes()
        rec = {}
        if two:
            scale = size * (64 if st64 else 1)
            o0, o1 = _offset(insn.text, "offset0") * scale, _offset(insn.text, "offset1") * scale
            if kind == "load":
                vd = next(o for o in insn.operands if o.is_dest)
                n = size // 4
                w.ensure_vgprs(vd.register + 2 * n)
                outs = [w.v[vd.register + k].copy() for k in range(2 * n)]
                for ln in lanes:
                    a = int(addr[ln])
                    rec[ln] = (a + o0) & M32
                    for j, o in enumerate((o0, o1)):
                        data = lds.read((a + o) & M32, size, ln)  # the address adds in 32 bits
                        for k in range(n):
                            outs[j * n + k][ln] = struct.unpack_from("<I", data, 4 * k)[0]
                write_vector_multi(w, vd, outs)
            else:
                d0, d1 = vops[1], vops[2]
                n = size // 4
                r0 = [read_vector(w, _reg(d0, k)) for k in range(n)]
                r1 = [read_vector(w, _reg(d1, k)) for k in range(n)]
                for ln in lanes:
                    a = int(addr[ln])
                    rec[ln] = (a + o0) & M32
                    lds.write((a + o0) & M32, b"".join(struct.pack("<I", int(r[ln])) for r in r0), ln)
                    lds.write((a + o1) & M32, b"".join(struct.pack("<I", int(r[ln])) for r in r1), ln)
            ctx.record(MemOp(kind, "local", rec, 2 * size))
            return
        off = _offset(insn.text)
        if kind == "load":
            vd = next(o for o in insn.operands if o.is_dest)
            n = max(1, size // 4)
            w.ensure_vgprs(vd.register + n)
            outs = [w.v[vd.register + k].copy() for k in range(n)]
            for ln in lanes:
                a = (int(addr[ln]) + off) & M32
                rec[ln] = a
                _put_lane(outs, ln, lds.read(a, size, ln), size, signed)
            write_vector_multi(w, vd, outs)
        else:
            d = vops[1]
            n = max(1, size // 4)
            regs = [read_vector(w, _reg(d, k)) for k in range(n)]
            for ln in lanes:
                a = (int(addr[ln]) + off) & M32
                rec[ln] = a
                if size >= 4:
                    data = b"".join(struct.pack("<I", int(r[ln])) for r in regs)
                else:
                    data = (int(regs[0][ln]) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
                lds.write(a, data, ln)
        ctx.record(MemOp(kind, "local", rec, size))

    return run


for _sfx in _DS_SIZE:
    semantic(f"ds_read_{_sfx}", f"ds_load_{_sfx}")(_ds_rw("load"))
    semantic(f"ds_write_{_sfx}", f"ds_store_{_sfx}")(_ds_rw("store"))


def _ds_d16(kind: str, size: int, signed: bool, hi: bool):
    """D16 forms: a load puts a (zero- or sign-extended) 16-bit value in one half of the VGPR and keeps the other
    half; a store writes the byte or short held in bits [31:16] (_d16_hi)."""
    def run(ctx, insn):
        w = ctx.wave
        addr, vops = _ds_addr(ctx, insn)
        off = _offset(insn.text)
        lds = ctx.machine.lds_of(w)
        rec = {}
        if kind == "load":
            vd = next(o for o in insn.operands if o.is_dest)
            w.ensure_vgprs(vd.register + 1)
            out = w.v[vd.register].copy()
            for ln in w.active_lanes():
                a = (int(addr[ln]) + off) & M32
                rec[ln] = a
                v = int.from_bytes(lds.read(a, size, ln), "little")
                if signed and v >> (8 * size - 1):
                    v |= 0xFFFF ^ ((1 << (8 * size)) - 1)
                old = int(out[ln])
                out[ln] = (old & 0xFFFF) | (v << 16) if hi else (old & 0xFFFF0000) | v
            write_vector_multi(w, vd, [out])
        else:
            data = read_vector(w, vops[1])
            for ln in w.active_lanes():
                a = (int(addr[ln]) + off) & M32
                rec[ln] = a
                lds.write(a, ((int(data[ln]) >> 16) & ((1 << (8 * size)) - 1)).to_bytes(size, "little"), ln)
        ctx.record(MemOp(kind, "local", rec, size))

    return run


for _t, _size, _signed in (("u8", 1, False), ("i8", 1, True), ("u16", 2, False)):
    semantic(f"ds_read_{_t}_d16", f"ds_load_{_t}_d16")(_ds_d16("load", _size, _signed, False))
    semantic(f"ds_read_{_t}_d16_hi", f"ds_load_{_t}_d16_hi")(_ds_d16("load", _size, _signed, True))
semantic("ds_write_b8_d16_hi", "ds_store_b8_d16_hi")(_ds_d16("store", 1, False, True))
semantic("ds_write_b16_d16_hi", "ds_store_b16_d16_hi")(_ds_d16("store", 2, False, True))
for _sfx in ("b32", "b64"):
    semantic(f"ds_read2_{_sfx}", f"ds_load_2addr_{_sfx}")(_ds_rw("load", True))
    semantic(f"ds_write2_{_sfx}", f"ds_store_2addr_{_sfx}")(_ds_rw("store", True))
    semantic(f"ds_read2st64_{_sfx}", f"ds_load_2addr_stride64_{_sfx}")(_ds_rw("load", True, True))
    semantic(f"ds_write2st64_{_sfx}", f"ds_store_2addr_stride64_{_sfx}")(_ds_rw("store", True, True))


def _ds_atomic(ctx, insn):
    w = ctx.wave
    mn = insn.mnemonic
    op = mn[3:].replace("_rtn", "")
    bits = 64 if op.endswith("64") else 32
    base = re.sub(r"_(u|i|b|f)(32|64)$", "", op)
    addr, vops = _ds_addr(ctx, insn)
    data = read_vector(w, vops[1], bits) if len(vops) > 1 else None
    data2 = read_vector(w, vops[2], bits) if len(vops) > 2 else None
    off = _offset(insn.text)
    lds = ctx.machine.lds_of(w)
    nb = bits // 8
    old_vals = np.zeros(w.lanes, dtype=np.uint64)
    rec = {}
    names = {"min": "smin", "max": "smax", "min_u": "umin", "max_u": "umax"}
    for ln in w.active_lanes():
        a = int(addr[ln]) + off
        rec[ln] = a
        old = int.from_bytes(lds.read(a, nb, ln), "little")
        s = int(data[ln]) if data is not None else 0
        if base == "cmpst":  # GFX6-10: DATA0 is the value compared, DATA1 the one stored
            new = int(data2[ln]) if old == s else old
        elif base in ("cmpswap", "cmpstore"):  # GFX11+ renamed it cmpstore and swapped them (store DATA0 if DATA1)
            new = s if old == int(data2[ln]) else old
        elif op.startswith("add_f"):  # `base` lost the _f32 (an integer add of float bits was wrong)
            new = _fadd(old, s, bits)
        elif op in _FMINMAX:  # ds_min_f32, ds_max_f64, GFX12 ds_min_num_f32, ...
            new = _ATOM[op](old, s, bits)
        elif base in ("wrxchg", "storexchg"):  # GFX11+ calls ds_wrxchg ds_storexchg
            new = s
        else:
            key = base
            if op.endswith(("_u32", "_u64")) and base in ("min", "max"):
                key = "u" + base
            elif base in ("min", "max"):
                key = "s" + base
            key = names.get(key, key)
            fn = _ATOM.get(key)
            if fn is None:
                raise Unsupported(insn.text, insn.address)
            new = fn(old, s, bits) & ((1 << bits) - 1)
        lds.write(a, new.to_bytes(nb, "little"), ln)
        old_vals[ln] = old
    ctx.record(MemOp("atomic", "local", rec, nb, {}, op))
    vd = next((o for o in insn.operands if o.is_dest), None)
    if vd is not None:
        from amddbg.emu.operands import write_vector

        write_vector(w, vd, old_vals if bits == 64 else old_vals.astype(np.uint32), bits)


for _n in ("add", "sub", "rsub", "inc", "dec", "min_i32", "max_i32", "min_u32", "max_u32", "and", "or", "xor",
           "wrxchg", "cmpst", "cmpstore", "cmpswap", "add_f32", "min", "max"):
    for _t in ("", "_u32", "_b32", "_u64", "_b64", "_i32"):
        semantic(f"ds_{_n}{_t}", f"ds_{_n}_rtn{_t}", f"ds_{_n}{_t}".replace("__", "_"))(_ds_atomic)
        semantic(f"ds_{_n}_rtn{_t}")(_ds_atomic)
_ATOM["rsub"] = lambda o, s, b: s - o
for _n in ("min_i64", "max_i64", "min_u64", "max_u64"):  # 64-bit LDS min/max (ds_min_i64, ds_max_rtn_u64, ...)
    semantic(f"ds_{_n}", f"ds_{_n[:3]}_rtn{_n[3:]}")(_ds_atomic)
semantic("ds_storexchg_rtn_b32", "ds_storexchg_rtn_b64")(_ds_atomic)
for _n in ("min_f32", "max_f32", "min_f64", "max_f64", "min_num_f32", "max_num_f32", "min_num_f64", "max_num_f64"):
    semantic(f"ds_{_n}", f"ds_{_n[:3]}_rtn{_n[3:]}")(_ds_atomic)


@semantic("ds_bpermute_b32", "ds_permute_b32")
def ds_permute(ctx, insn):
    w = ctx.wave
    addr, vops = _ds_addr(ctx, insn)
    data = read_vector(w, vops[1])
    off = _offset(insn.text)
    active = w.exec_mask()
    out = np.zeros(w.lanes, dtype=np.uint32)
    # GFX10 and GFX11 permute within 32 lanes: a wave64 permute works on each half separately, the lane index
    # taken modulo 32 inside the issuing lane's half. GFX8/9 and GFX12 permute across the whole wave: LLVM's
    # GCNSubtarget::supportsWaveWideBPermute() (generation <= GFX9 or == GFX12, or wave32), Mesa ACO's
    # emit_bpermute ("GFX10-11.5 wave64 mode: emulate full-wave bpermute"); docs/emulator.md has the sources.
    span = 32 if ctx.machine.family in ("gfx10", "gfx11") else w.lanes
    if insn.mnemonic == "ds_bpermute_b32":
        for ln in range(w.lanes):
            if active[ln]:
                src = (ln - ln % span) + ((int(addr[ln]) + off) >> 2) % span
                out[ln] = data[src] if active[src] else 0
    else:
        for ln in range(w.lanes):
            if active[ln]:
                dst = (ln - ln % span) + ((int(addr[ln]) + off) >> 2) % span
                out[dst] = data[ln]
    vd = next(o for o in insn.operands if o.is_dest)
    from amddbg.emu.operands import write_vector

    write_vector(w, vd, out)


@semantic("ds_swizzle_b32")
def ds_swizzle(ctx, insn):
    w = ctx.wave
    _, vops = _ds_addr(ctx, insn)
    data = read_vector(w, vops[0])
    off = _offset(insn.text)
    m = re.search(r"swizzle\((\w+)((?:,\s*\w+)*)\)", insn.text)
    out = data.copy()
    if m:
        args = [int(x, 0) for x in re.findall(r"\w+", m.group(2))]
        mode = m.group(1)
        for ln in range(w.lanes):
            grp = ln & ~31
            i = ln & 31
            if mode == "SWAP":
                src = i ^ args[0]
            elif mode == "REVERSE":
                g = args[0]
                src = (i & ~(g - 1)) | (g - 1 - (i & (g - 1)))
            elif mode == "BROADCAST":
                g = args[0]
                src = (i & ~(g - 1)) | args[1]
            elif mode == "BITMASK_PERM":
                raise Unsupported(insn.text, insn.address)
            elif mode == "QDMODE_PERM":
                src = (i & ~3) | args[i & 3]
            else:
                raise Unsupported(insn.text, insn.address)
            out[ln] = data[grp + (src & 31)]
    elif off & 0x8000:
        for ln in range(w.lanes):
            out[ln] = data[(ln & ~3) | ((off >> (2 * (ln & 3))) & 3)]
    else:
        and_m, or_m, xor_m = off & 31, (off >> 5) & 31, (off >> 10) & 31
        for ln in range(w.lanes):
            i = ln & 31
            out[ln] = data[(ln & ~31) | ((((i & and_m) | or_m) ^ xor_m) & 31)]
    vd = next(o for o in insn.operands if o.is_dest)
    from amddbg.emu.operands import write_vector

    write_vector(w, vd, out)
