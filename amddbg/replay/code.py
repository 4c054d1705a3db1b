"""Reading a kernel's code and a wave's saved registers for what explain needs to know, without running anything.

Every analysis of a stuck dispatch asks the same few questions of the code around a PC: the loop it is in
(`loop_of`), whether a stretch of instructions redefines a register (`reg_written`), which global addresses an
access touches per lane from the saved registers (`lane_addresses`), which stores a wave can still execute
(`stores_ahead`), which kernel argument an address points into (`variable_at`, `argument_at`,
`pointer_arguments`) and which argument pointer an access is based on (`pointer_origin`, `argument_pointer`).
They sit here, below every analysis (amddbg.replay.where, .origin, .static, .causes, .analysis), so the
analyses share them without importing each other; nothing here imports from the rest of amddbg.replay.

Scans are linear over the function's disassembly and cached on the program per PC: thousands of waves share a
handful of PCs.
"""

from __future__ import annotations

import re

from amddbg.errors import AmddbgError
from amddbg.isa.model import OperandKind


def loop_of(program, pc: int):
    """(first, last) address of the innermost backward-branch loop containing `pc`, and its instructions."""
    try:
        insns = program.disassemble(pc)
    except AmddbgError:
        return None, []
    best = None
    for br in insns:
        t = br.branch_target
        if br.is_branch and t is not None and t <= pc <= br.address:
            if best is None or (br.address - t) < (best[1] - best[0]):
                best = (t, br.address)
    if best is None:
        return None, []
    return best, [i for i in insns if best[0] <= i.address <= best[1]]


def reg_written(insns, op) -> bool:
    """Does any of `insns` write a register of operand `op`?"""
    lo = op.register
    hi = lo + op.count
    for i in insns:
        for o in i.operands:
            if o.is_dest and o.kind is op.kind and o.register is not None and o.register < hi and \
                    lo < o.register + o.count:
                return True
        if i.is_call:
            return True
    return False


def lane_addresses(t, insn) -> dict | None:
    """Per-lane addresses of a GLOBAL/FLAT access from the wave's saved registers (None if not computable)."""
    regs = t.registers
    ops = [o for o in insn.operands if o.kind is not OperandKind.OFFSET]
    m = re.search(r"\boffset:(-?0x[0-9a-fA-F]+|-?\d+)", insn.text)
    off = int(m.group(1), 0) if m else 0
    saddr = next((o for o in ops if o.kind is OperandKind.SGPR and not o.is_dest and o.count == 2), None)
    vregs = [o for o in ops if o.kind is OperandKind.VGPR and not o.is_dest]
    mem = insn.memory
    try:
        if saddr is not None:
            base = regs.read_named(f"s{saddr.register}") | regs.read_named(f"s{saddr.register + 1}") << 32
            vaddr = None
            if mem.is_load or mem.is_atomic:
                vaddr = vregs[0] if vregs else None
            else:
                vaddr = vregs[0] if len(vregs) >= 2 else None
            if vaddr is None:
                return {ln: base + off for ln in t.active_lanes}
            row = _vgpr_row(regs, vaddr.register)
            return {ln: base + row[ln] + off for ln in t.active_lanes}
        if vregs and vregs[0].count == 2:
            v = vregs[0]
            lo, hi = _vgpr_row(regs, v.register), _vgpr_row(regs, v.register + 1)
            return {ln: (lo[ln] | hi[ln] << 32) + off for ln in t.active_lanes}
    except (AmddbgError, KeyError, IndexError):
        return None
    return None


def _vgpr_row(regs, i: int) -> list[int]:
    """VGPR `i`'s lane values (that row alone, unless the wave's whole block was read already)."""
    return regs.vgpr_row(i)


def stores_ahead(t, *, lds: bool = False):
    """Stores/atomics the wave can still execute (linear scan to its function's end, then in each caller from the
    return address: at -O0 a barrier sits in a called function), with their addresses when the address registers
    are not redefined on the way (innermost frame only); (insn, addresses | None)."""
    out = _stores_ahead_from(t, t.pc, True, lds)
    if _in_kernel(t.program, t.pc):
        return out  # a kernel has no caller: no need to unwind (thousands of waves share the answer)
    try:
        frames = t.frames()
    except AmddbgError:
        frames = []
    seen = {t.pc}
    for f in frames[1:]:
        pc = getattr(f, "pc", None)
        if pc is None or pc in seen or getattr(f, "inline_depth", 0):
            continue
        seen.add(pc)
        out += _stores_ahead_from(t, pc, False, lds)
    return out


def _in_kernel(program, pc: int) -> bool:
    """Is `pc` in a kernel's own code (an entry point nothing calls)? Cached per PC on the program."""
    cache = program.__dict__.setdefault("_explain_in_kernel", {})
    if pc not in cache:
        ok = False
        try:
            lco = program.code_object_at(pc)
            f = lco.function_at(pc) if lco is not None else None
            ok = f is not None and f.name in {k.name for k in lco.codeobj.kernels}
        except (AmddbgError, AttributeError):
            ok = False
        cache[pc] = ok
    return cache[pc]


def _store_scan(program, pc: int, innermost: bool, lds: bool) -> list:
    """The stores a wave at `pc` can still execute in its function: [(insn, address computable from the saved
    registers)]; depends on the PC only, so it is cached per (pc, innermost, lds) on the program."""
    cache = program.__dict__.setdefault("_explain_store_scan", {})
    key = (pc, innermost, lds)
    if key in cache:
        return cache[key]
    try:
        insns = program.disassemble(pc)
    except AmddbgError:
        insns = []
    ahead = [i for i in insns if i.address >= pc]
    reach = reachable_from(insns, pc)
    out = []
    for k, i in enumerate(ahead):
        if reach is not None and i.address not in reach:
            continue  # a store on a branch the wave already passed (the other arm of an `if` laid out after it)
        mem = i.memory
        if mem is None or not (mem.is_store or mem.is_atomic) or mem.space.value == "scratch" or \
                (mem.space.value == "lds") != lds:
            continue  # LDS stores for an LDS flag (their addresses are not computed), global/flat ones otherwise
        if lds:
            out.append((i, False))
            continue
        addr_ops = [o for o in i.operands if not o.is_dest and o.kind in (OperandKind.SGPR, OperandKind.VGPR)]
        if mem.is_store and not mem.is_atomic:
            addr_ops = addr_ops[:1] + addr_ops[2:] if len(addr_ops) > 2 else [o for o in addr_ops if o.count == 2]
        between = ahead[:k]
        out.append((i, innermost and not any(reg_written(between, o) for o in addr_ops)))
    cache[key] = out
    return out


def reachable_from(insns, pc: int) -> set[int] | None:
    """Addresses of the instructions of `insns` (one function's) that control can reach from `pc`, following
    branches both ways where conditional, stopping at `s_endpgm` and returns (a call returns to the next
    instruction). None when some jump's target is not known (`s_setpc_b64` to a computed address): the caller
    then keeps its linear scan. Why: clang lays out the arms of an `if` in any order, so a store after the wave's
    PC in the listing may sit on the arm it did not take (the flip of a sense-reversing barrier beside the loop of
    the waves that wait for it; a producer's push laid out after the consumers' poll): such a wave can never
    execute it, and must not count as a (blocked) writer of what it polls."""
    at = {i.address: k for k, i in enumerate(insns)}
    if pc not in at:
        return None
    seen: set[int] = set()
    todo = [pc]
    while todo:
        a = todo.pop()
        if a in seen or a not in at:
            continue
        seen.add(a)
        i = insns[at[a]]
        nxt = a + i.size
        if i.is_endpgm or i.is_return:
            continue
        if i.is_call:
            todo.append(nxt)
            continue
        if i.is_branch:
            if i.branch_target is None:
                return None
            todo.append(i.branch_target)
            if i.is_conditional:
                todo.append(nxt)
            continue
        if i.mnemonic.startswith("s_setpc"):
            return None
        todo.append(nxt)
    return seen


def _stores_ahead_from(t, pc: int, innermost: bool, lds: bool = False):
    """`_store_scan` at `pc` with each computable store's per-lane addresses read from this wave's registers."""
    return [(i, lane_addresses(t, i) if computable else None)
            for i, computable in _store_scan(t.program, pc, innermost, lds)]



def variable_at(program, t, address: int, *, window: int = 1 << 24) -> str | None:
    """The kernel argument a global address points into, in source terms (`flag`, `out[5]`), from the kernarg
    segment in the core, the metadata's argument offsets and the kernel's DWARF parameter names."""
    hit = argument_at(program, t, address, window=window)
    if hit is None:
        return global_variable_at(program, address)
    name, base, size = hit
    off = address - base
    if off == 0:
        return name
    return f"{name}[{off // size}]" if off % size == 0 else f"{name}+{off:#x}"


def global_variable_at(program, address: int) -> str | None:
    """The `__device__` global (a data symbol of a loaded code object: `g_go`, `table+0x8`) covering `address`."""
    from amddbg.dwarf.demangle import demangle

    for lco in program.code_objects:
        off = address - lco.load_address
        if off < 0:
            continue
        try:
            syms = lco.codeobj.symbols()
        except AmddbgError:
            continue
        for sym in syms:
            if sym.kind == "object" and sym.size and sym.address <= off < sym.address + sym.size:
                name = demangle(sym.name) or sym.name
                return name if off == sym.address else f"{name}+{off - sym.address:#x}"
    return None


def argument_at(program, t, address: int, *, window: int = 1 << 24) -> tuple[str, int, int] | None:
    """(parameter name, buffer base, element size) of the pointer argument nearest below `address` (within
    `window` bytes)."""
    best = None
    for param, base in pointer_arguments(program, t):
        if base <= address < base + window and (best is None or base > best[1]):
            best = (param, base)
    if best is None:
        return None
    param, base = best
    size = 4
    try:
        size = param.type.target.size or 4  # the pointee's size
    except AttributeError:
        pass
    return param.name, base, size


def pointer_arguments(program, t) -> list:
    """(DWARF parameter, value) of the kernel's pointer arguments (global buffers), read from the kernarg segment
    in the core; [] when the dispatch, its kernarg segment or the parameters are unknown."""
    d = t.dispatch
    if d is None or d.kernarg_address is None:
        return []
    kernel = program.dispatch_kernel(d, t.pc)
    # the same for every wave of a dispatch running one kernel: found once (10,000 waves each unwound for it cost
    # seconds), kept only when found (a wave whose frames cannot be read does not decide for the others)
    cache = program.__dict__.setdefault("_pointer_arguments", {})
    key = (d.kernarg_address, id(kernel)) if kernel is not None else None
    if key is not None and key in cache:
        return list(cache[key][1])
    try:
        frames = t.frames()
        params = [a for a in frames[-1].arguments()] if frames else []
    except AmddbgError:
        return []
    args = [a for a in (getattr(kernel.metadata, "args", ()) if kernel is not None else ())
            if not str(a.value_kind).startswith("hidden")]
    out = []
    for i, a in enumerate(args):
        if a.value_kind not in ("global_buffer", "dynamic_shared_pointer") or i >= len(params):
            continue
        try:
            out.append((params[i], int.from_bytes(program.read("global", d.kernarg_address + a.offset, 8),
                                                  "little")))
        except AmddbgError:
            continue
    if key is not None and out:
        cache[key] = (kernel, out)  # (the kernel held: its id stays its own)
    return out


def argument_pointer(program, t, insn) -> int | None:
    """The value of the kernel-argument pointer a global access is based on (read from the kernarg segment in the
    core), or None when the code does not show one or the segment is not in the core."""
    try:
        origin = pointer_origin(program.disassemble(insn.address), insn)
    except AmddbgError:
        return None
    d = t.dispatch
    if origin is None or d is None or d.kernarg_address is None or origin[0] != _kernarg_sgpr(program, d, t.pc):
        return None
    try:
        return int.from_bytes(program.read("global", d.kernarg_address + origin[1], 8), "little")
    except AmddbgError:
        return None


def _kernarg_sgpr(program, dispatch, pc: int) -> int | None:
    """The first user SGPR holding the kernarg segment pointer (the manual's user SGPR order)."""
    k = program.dispatch_kernel(dispatch, pc)
    if k is None:
        return None
    props = k.descriptor.kernel_code_properties
    if not props.get("enable_sgpr_kernarg_segment_ptr"):
        return None
    return (4 * bool(props.get("enable_sgpr_private_segment_buffer")) + 2 * bool(
        props.get("enable_sgpr_dispatch_ptr")) + 2 * bool(props.get("enable_sgpr_queue_ptr")))


def pc_relative_base(insns, insn) -> int | None:
    """The absolute address in the base SGPR pair of a global or scalar access (or a call's target) when the code
    built it from the PC: `s_getpc_b64 s[0:1]; s_add_u32 s0, s0, lo; s_addc_u32 s1, s1, hi` (how clang addresses a
    `__device__` global or a called function: the symbol relative to the instruction after the s_getpc; GFX12
    spells the adds s_add_co_u32/s_add_co_ci_u32 and sign-extends s1 first), else None."""
    base = next((o for o in insn.operands if not o.is_dest and o.kind is OperandKind.SGPR and o.count == 2), None)
    if base is None:
        return None
    lo_reg, hi_reg = base.register, base.register + 1
    add = {lo_reg: None, hi_reg: None}
    for i in reversed([i for i in insns if i.address < insn.address][-16:]):
        dests = [o for o in i.operands if o.is_dest and o.kind is OperandKind.SGPR and o.register is not None]
        hit = [r for r in (lo_reg, hi_reg) if any(o.register <= r < o.register + o.count for o in dests)]
        if not hit:
            continue
        if i.mnemonic == "s_getpc_b64" and dests and dests[0].register == lo_reg and dests[0].count == 2:
            delta = ((add[hi_reg] or 0) << 32) | (add[lo_reg] or 0)
            return (i.address + i.size + delta) & ((1 << 64) - 1)
        if i.mnemonic == "s_sext_i32_i16" and hit == [hi_reg] and any(
                o.kind is OperandKind.SGPR and o.register == hi_reg for o in i.operands if not o.is_dest):
            continue  # GFX12 sign-extends the PC's high half (48-bit addresses): no change for a code address
        if i.mnemonic not in ("s_add_u32", "s_addc_u32", "s_add_co_u32", "s_add_co_ci_u32") or len(hit) != 1 \
                or add[hit[0]] is not None:
            return None
        srcs = [o for o in i.operands if not o.is_dest]
        lit = next((o.value for o in srcs if o.kind in (OperandKind.LITERAL, OperandKind.INLINE)
                    and isinstance(o.value, int)), None)
        if lit is None or not any(o.kind is OperandKind.SGPR and o.register == hit[0] for o in srcs):
            return None
        add[hit[0]] = lit & 0xFFFFFFFF
    return None


def pointer_origin(insns, insn):
    """Where the base SGPR pair of a global access was loaded from: (base SGPR of the s_load, offset), or None."""
    base = next((o for o in insn.operands if not o.is_dest and o.kind is OperandKind.SGPR and o.count == 2), None)
    if base is None:
        return None
    before = [i for i in insns if i.address < insn.address]
    for i in reversed(before):
        for o in i.operands:
            if o.is_dest and o.kind is OperandKind.SGPR and o.register is not None and \
                    o.register <= base.register < o.register + o.count:
                if not i.mnemonic.startswith("s_load"):
                    return None
                src = next((x for x in i.operands if not x.is_dest and x.kind is OperandKind.SGPR), None)
                if src is None or any(reg_written([j], src) for j in before if j.address < i.address):
                    return None  # based on a loaded pointer, not on an entry SGPR
                m = re.search(r",\s*(0x[0-9a-fA-F]+|\d+)\s*$", i.text)
                off = int(m.group(1), 0) if m else 0
                return (src.register if src else None, off + 4 * (base.register - o.register))
    return None

