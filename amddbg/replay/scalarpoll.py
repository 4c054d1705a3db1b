"""Polls that read through the scalar data cache: a plain flag read that clang -O2 compiled to `s_load`.

clang selects a scalar load for a uniform, non-atomic, non-volatile load it proves no store of the function clobbers
(a workgroup-scope fence in the loop does not count, nor an RMW on another `__restrict__` pointer), and LLVM's
memory model lets it: "Scalar memory operations are only used to access memory that is proven to not change during
the execution of the kernel dispatch" (AMDGPUUsage). A flag another workgroup writes does change, and the scalar
cache is "not coherent" with the vector stores that write it, so once the poll has filled its line it reads the old
value until an `s_dcache_inv` the compiler never emits (amddbg.emu.scalarcache). The fix is an atomic load at the
scope of the writer (agent), which clang emits as a vector load with the agent-scope cache bits.

What `analysis` needs of such a poll, kept here: whether a load is one, its address and last value from the saved
SGPRs, and the words of the finding.
"""

from __future__ import annotations

import re

from amddbg.errors import AmddbgError
from amddbg.isa.model import OperandKind

SCALAR_LOADS = ("s_load_", "s_buffer_load_")


def is_scalar_load(insn) -> bool:
    """A scalar memory read of memory (not s_memtime, s_dcache_*, a scalar store or atomic)."""
    return insn is not None and insn.memory is not None and insn.mnemonic.startswith(SCALAR_LOADS)


def bypasses(processor: str, insn) -> bool:
    """The load's SMEM cache-policy bits send it past the scalar cache to L2 (amddbg.emu.scalarcache)."""
    p = insn.memory.cache_policy
    if processor.startswith("gfx12"):
        return int(p.get("scope", 0) or 0) >= 2
    if processor.startswith(("gfx10",)):
        return bool(p.get("glc")) and bool(p.get("dlc"))
    return bool(p.get("glc"))


def address(t, insn) -> int | None:
    """The address an `s_load` reads, from the wave's saved SGPRs (base pair + immediate and SGPR offsets)."""
    if not insn.mnemonic.startswith("s_load_"):
        return None  # (s_buffer_load: a descriptor's base and range; not a poll clang emits for a flag)
    regs = t.registers
    srcs = [o for o in insn.operands if not o.is_dest]
    base = next((o for o in srcs if o.kind is OperandKind.SGPR and o.count == 2), None)
    if base is None:
        return None
    try:
        a = regs.read_named(f"s{base.register}") | (regs.read_named(f"s{base.register + 1}") & 0xFFFF) << 32
        for o in srcs:
            if o is base:
                continue
            if o.kind in (OperandKind.OFFSET, OperandKind.IMMEDIATE, OperandKind.LITERAL, OperandKind.INLINE):
                a += int(o.value or 0)
            elif o.kind is OperandKind.SGPR and o.count == 1:
                a += regs.read_named(f"s{o.register}")
    except (AmddbgError, KeyError, IndexError, TypeError):
        return None
    if "offset:" in insn.text and not any(o.kind is OperandKind.OFFSET for o in srcs):
        m = re.search(r"\boffset:(-?0x[0-9a-fA-F]+|-?\d+)", insn.text)
        a += int(m.group(1), 0) if m else 0
    return a & ((1 << 64) - 1)


def lane_addresses(t, insn) -> dict | None:
    """{lane: address} for every active lane (a scalar load reads one address for the whole wave)."""
    a = address(t, insn)
    if a is None:
        return None
    return {ln: a for ln in (t.active_lanes or [0])}


def kept_dest(load, body, kind: OperandKind):
    """The destination operand (of register kind `kind`) of the loop's polling load, when no other instruction of
    the loop body writes it: the register still holds what the load last returned. None otherwise."""
    dest = next((o for o in load.operands if o.is_dest and o.kind is kind), None)
    if dest is None:
        return None
    for i in body:
        if i.address == load.address:
            continue
        for o in i.operands:
            if o.is_dest and o.kind is kind and o.register is not None and \
                    o.register <= dest.register < o.register + o.count:
                return None
    return dest


def last_read(t, load, body) -> int | None:
    """The value the scalar poll last returned, when its destination SGPR still holds it (no other instruction of
    the loop writes it)."""
    dest = kept_dest(load, body, OperandKind.SGPR)
    if dest is None:
        return None
    try:
        return t.registers.read_named(f"s{dest.register}") & 0xFFFFFFFF
    except AmddbgError:
        return None


def scope(processor: str, load) -> tuple[str, str]:
    """(scope, in words) for `analysis._not_visible`: "wavefront" for a poll through the scalar cache (a scalar
    load is never an atomic, and the cache it reads is not coherent with any vector store, not even its own
    workgroup's: no scope wider than the wave's own is consistent with it; details say `load_kind: scalar`), or
    "agent" when its policy bits bypass the cache (then it sees the write)."""
    if bypasses(processor, load):
        return "agent", f"a scalar load that bypasses the scalar data cache ({load.text})"
    where = "shared by two CUs" if processor.startswith("gfx9") else "of the WGP"
    return "wavefront", (f"a plain (non-atomic) read that the compiler turned into a scalar load ({load.text}): it "
                          f"reads through the scalar data cache ({where}), which vector stores never update and only "
                          "s_dcache_inv invalidates, so a line it filled before the write keeps the old value")


FIX = ("make the poll an atomic load at agent scope (__hip_atomic_load(p, __ATOMIC_ACQUIRE or __ATOMIC_RELAXED, "
       "__HIP_MEMORY_SCOPE_AGENT)): clang then emits a vector load with the agent-scope cache bits instead of the "
       "scalar load (a volatile read is a vector load too, but without those bits it can stay stale in the L1)")
