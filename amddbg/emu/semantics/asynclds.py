"""GFX12.5 asynchronous global -> LDS loads (`global_load_async_to_lds_b{8,32,64,128}`) and their counter, ASYNCcnt.

What they do (the GFX12.5 ISA's pseudocode as LLVM's tests quote it: `dsaddr = LDS_BASE + VGPR[lane][VDST] +
INST_OFFSET; memaddr = ADDR`, addressed like every GLOBAL instruction, `scale_offset` included): each active lane
copies 1, 4, 8 or 16 bytes from global memory to its workgroup's LDS without a VGPR in between, and the copy is
tracked by ASYNCcnt (`s_wait_asynccnt N`), not LOADcnt (clang-22 waits for them with `s_wait_asynccnt`).

When the bytes reach LDS (amdgpu-async-operations.rst, "Memory Consistency Model"): an async operation A program
ordered before an overlapping access X happens-before X only if A is *completed* before X, and completion is only
observable through the wait. The emulator therefore reads the global bytes at issue and writes them to LDS when
the issuing wave learns they completed: when its `s_wait_asynccnt N` (or `s_wait_idle`) lets it go on, the copies
older than the N it still allows to be outstanding land, in issue order; the rest land when the wave ends. A
kernel that reads the LDS destination before that (no wait, or another wave that did not synchronise with the
waiter) reads what was there before: the race the model allows, made visible every time rather than sometimes.

The stores from LDS (`global_store_async_from_lds_b*`) are the mirror image: LDS read at issue, global memory
written when the copy lands.

Not emulated, each stopping the wave with the capability it lacks named (never run as something else): the
cluster multicast loads (`cluster_load_async_to_lds_*`: the payload of a global async load broadcast into the LDS
of the cluster's workgroups that M0's mask selects; which workgroup each mask bit names, and whether the issuing
one is included when its bit is clear, is in no public source), the tensor data mover (`tensor_load_to_lds`,
`tensor_store_from_lds`: a whole tile per instruction, addressed by a descriptor in four SGPR groups whose field
layout is not public; TENSORcnt counts them) and `ds_atomic_async_barrier_arrive_b64` (an arrive on a 64-bit LDS
barrier object once the wave's earlier async copies complete; the object's layout is not public).
`s_wait_tensorcnt` waits on a counter nothing here increments, so it never blocks.
"""

from __future__ import annotations

import numpy as np

from amddbg.emu.errors import Unsupported
from amddbg.emu.operands import read_scalar, read_vector
from amddbg.emu.semantics import semantic
from amddbg.emu.semantics.mem import MemOp, _access, _immediate_offset, _scaled
from amddbg.isa.model import OperandKind

_SIZES = {"b8": 1, "b32": 4, "b64": 8, "b128": 16}
M64 = (1 << 64) - 1


def _layout(insn):
    vregs = [o for o in insn.operands if o.kind is OperandKind.VGPR]
    saddr = next((o for o in insn.operands if o.kind in (OperandKind.SGPR, OperandKind.TTMP)
                  or (o.kind is OperandKind.SPECIAL and o.text not in ("off", "null"))), None)
    if len(vregs) != 2:
        raise Unsupported(f"{insn.text} (operands not understood)", insn.address)
    return vregs[0], vregs[1], saddr


def _global_addresses(w, insn, vaddr, saddr, size: int):
    """Each lane's global address before the immediate offset, as GLOBAL addressing forms it: a 64-bit VGPR pair,
    or a 32-bit VGPR offset (times the access size under scale_offset) plus a 64-bit SGPR base."""
    if saddr is None:
        return read_vector(w, vaddr, 64)
    return read_vector(w, vaddr, 32).astype(np.uint64) * np.uint64(size if _scaled(insn) else 1) + np.uint64(
        read_scalar(w, saddr, 64))


def global_load_async_to_lds(ctx, insn):
    w = ctx.wave
    size = _SIZES[insn.mnemonic.rsplit("_", 1)[1]]
    lds_op, vaddr, saddr = _layout(insn)
    off = _immediate_offset(insn)
    a = _global_addresses(w, insn, vaddr, saddr, size)
    dsaddr = read_vector(w, lds_op, 32)
    policy = dict(insn.memory.cache_policy) if insn.memory else {}
    copies, srcs = [], {}
    for ln in w.active_lanes():
        src = (int(a[ln]) + off) & M64
        srcs[ln] = src
        copies.append(((int(dsaddr[ln]) + off) & 0xFFFFFFFF, bytes(_access(ctx, "global", src, ln, size, None, policy)),
                       ln))
    ctx.record(MemOp("load", "global", srcs, size, policy, "async_to_lds"))
    pending = getattr(w, "async_lds", None)
    if pending is None:
        pending = w.async_lds = []
    pending.append((insn.address, "lds", copies))


def global_store_async_from_lds(ctx, insn):
    """The other direction (`global_store_async_from_lds_b*  vaddr, vLDS, saddr offset:N`, clang-22's
    __builtin_amdgcn_global_store_async_from_lds_b*): LDS bytes at VGPR[vLDS] + offset are read at issue and
    written to global memory (addressed as GLOBAL, scale_offset included) when the copy lands (`land`)."""
    w = ctx.wave
    size = _SIZES[insn.mnemonic.rsplit("_", 1)[1]]
    vaddr, lds_op, saddr = _layout(insn)
    off = _immediate_offset(insn)
    a = _global_addresses(w, insn, vaddr, saddr, size)
    dsaddr = read_vector(w, lds_op, 32)
    lds = ctx.machine.lds_of(w)
    copies, dsts = [], {}
    for ln in w.active_lanes():
        dst = (int(a[ln]) + off) & M64
        dsts[ln] = dst
        ctx.mem.read(dst, size, [ln])  # an unmapped destination faults here, at the store, not when it lands
        copies.append((dst, bytes(lds.read((int(dsaddr[ln]) + off) & 0xFFFFFFFF, size, ln)), ln))
    ctx.record(MemOp("store", "global", dsts, size, dict(insn.memory.cache_policy) if insn.memory else {},
                     "async_from_lds"))
    pending = getattr(w, "async_lds", None)
    if pending is None:
        pending = w.async_lds = []
    pending.append((insn.address, "global", copies))


for _b in _SIZES:
    semantic(f"global_load_async_to_lds_{_b}")(global_load_async_to_lds)
    semantic(f"global_store_async_from_lds_{_b}")(global_store_async_from_lds)


def land(machine, w, keep: int = 0) -> None:
    """Write the wave's oldest async copies to LDS, leaving the newest `keep` outstanding (issue order)."""
    pending = getattr(w, "async_lds", None)
    if not pending or len(pending) <= keep:
        return
    lds = machine.lds_of(w)
    caches = machine.caches
    n = len(pending) - keep
    for _pc, kind, copies in pending[:n]:
        for addr, data, ln in copies:
            if kind == "lds":
                lds.write(addr, data, ln)
            elif caches is not None:
                caches.store(w, addr, data, ln)
            else:
                machine.memory.write(addr, data, [ln])
    del pending[:n]


def pending_state(w) -> bytes:
    """The wave's copies not yet in LDS, for hang detection's fingerprint (copies that will still land are
    progress a spinning reader may be waiting for)."""
    pending = getattr(w, "async_lds", None)
    return repr([(pc, kind, len(c)) for pc, kind, c in pending]).encode() if pending else b""


_NOT_PUBLIC = {
    "cluster_load_async_to_lds": "cluster multicast async loads to LDS (gfx1250): which workgroups of the cluster M0's "
                                 "mask selects is not in a public source, so the broadcast cannot be emulated",
    "tensor_load_to_lds": "the tensor data mover (gfx1250 TDM): the SGPR descriptor's field layout is not in a "
                          "public source, so the tile copy to LDS cannot be emulated",
    "tensor_store_from_lds": "the tensor data mover (gfx1250 TDM): the SGPR descriptor's field layout is not in a "
                             "public source, so the tile copy from LDS cannot be emulated",
    "ds_atomic_async_barrier_arrive_b64": "async LDS barrier objects (gfx1250): the 64-bit barrier object's layout is "
                                          "not in a public source, so the arrive cannot be emulated",
}


def not_public(ctx, insn):
    """Stop the wave naming the capability: the instruction's effect is not pinned down by public sources."""
    key = next(k for k in _NOT_PUBLIC if insn.mnemonic.startswith(k))
    raise Unsupported(f"{insn.text} ({_NOT_PUBLIC[key]})", insn.address)


for _b in _SIZES:
    semantic(f"cluster_load_async_to_lds_{_b}")(not_public)
semantic("tensor_load_to_lds", "tensor_store_from_lds", "ds_atomic_async_barrier_arrive_b64")(not_public)
