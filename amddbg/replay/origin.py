"""Where a faulting address came from, in source terms: `table[3]` is NULL, `offsets[1024]` is past the end.

A fault's address alone names little: 0x14 is "a NULL pointer plus 20", 0x100007000 is "something past a
buffer". The user wants the pointer: which element of which argument held it, or which argument the index ran
past. Two facts give it:

- **the pointer was loaded from memory**: walking back from the faulting access through the instructions that
  wrote its address registers (adds of an offset, moves), the first 64-bit load that wrote one of them loaded
  the pointer. When that load's own address registers still hold what they held (nothing wrote them since),
  the saved registers give where the pointer was read, `variable_at` names it (`table[3]`) and the core's memory
  its value (0: NULL). Otherwise the pointer value (still in the load's destination) names the slot when exactly
  one slot of a pointer-to-pointer argument holds it, or, when the load's SGPR base is still an argument, the
  array alone: "the pointer (NULL) was loaded from an element of table" (the element is not claimed);
- **the index ran past an argument's buffer**: the address lies in the first unmapped page after the mapped
  extent of the argument buffer below it (the emulator puts a guard page after each buffer; the runtime's
  allocations are page-granular too): `offsets[1024], the first element past the end of the memory of
  offsets`. The core does not hold the buffer's size, only what is mapped, and the text says so.

The load's own address registers are usually reused by the time the access faults (-O2 reuses them at once;
-O0 reloads the pointer from the stack, then the element's address). `replay/slicing.py` recomputes that address
from what survives (the registers not written since, the kernel's entry values, the stack slots and the kernarg
segment in the core), per faulting lane: `table[t % 4]` with t = 3 names `table[3]` whatever the registers hold
now. A field of a struct a pointer argument points to is named by its member (`p->data`), a kernel argument
read from the kernarg segment by its parameter (`prm.data` for a field of a by-value struct). Where the slice
stops (a join whose paths disagree, a call, an unknown instruction) the older evidence below is used, and where
none holds nothing is claimed.
"""

from __future__ import annotations

from amddbg.errors import AmddbgError
from amddbg.isa.model import OperandKind
from amddbg.replay.code import argument_at, lane_addresses, pointer_arguments, reg_written, variable_at
from amddbg.replay.stackvars import stack_variable

NULL_PAGE = 1 << 16  # addresses below it come from a NULL pointer plus an offset
_POINTER_LOADS = ("global_load_dwordx2", "flat_load_dwordx2", "global_load_b64", "flat_load_b64",
                  "s_load_dwordx2", "s_load_b64", "buffer_load_dwordx2", "buffer_load_b64")


def _regs(op) -> set[tuple]:
    return {(op.kind, op.register + k) for k in range(op.count)} if op.register is not None else set()


def _address_operands(insn) -> list:
    """The register operands that form a global/flat access's address (VGPR pair, or SGPR base + VGPR offset)."""
    ops = [o for o in insn.operands if not o.is_dest and o.kind in (OperandKind.VGPR, OperandKind.SGPR)]
    mem = insn.memory
    if mem is not None and mem.is_store and not mem.is_atomic:
        # stores: address, data[, saddr]
        return [o for i, o in enumerate(ops) if i != 1]
    return ops[:1] + [o for o in ops[1:] if o.kind is OperandKind.SGPR and o.count == 2]


def pointer_load(program, pc: int):
    """(load instruction, instructions between it and `pc`) of the 64-bit load whose result the access at `pc`
    uses as its address, or None."""
    try:
        insns = [i for i in program.disassemble(pc) if i.address <= pc]
    except AmddbgError:
        return None
    if not insns or insns[-1].address != pc:
        return None
    access = insns[-1]
    want: set = set()
    for o in _address_operands(access):
        want |= _regs(o)
    for k in range(len(insns) - 2, -1, -1):
        i = insns[k]
        if i.is_branch or i.is_call:
            return None  # a join or a call: the straight-line walk stops
        written = set()
        for o in i.operands:
            if o.is_dest and o.kind in (OperandKind.VGPR, OperandKind.SGPR):
                written |= _regs(o)
        hit = written & want
        if not hit:
            continue
        if i.mnemonic.split("_e")[0] in _POINTER_LOADS or i.mnemonic in _POINTER_LOADS:
            return i, insns[k + 1:-1]
        if i.memory is not None and i.memory.is_load and not i.memory.is_atomic and \
                i.mnemonic.rsplit("_", 1)[-1] in ("dword", "b32"):
            want -= hit  # a 32-bit load: the index or offset added to the pointer (-O0 reloads it from the stack)
            continue
        if i.memory is not None:
            return None  # anything else from memory: not a pointer we can name
        want -= hit
        for o in i.operands:
            if not o.is_dest and o.kind in (OperandKind.VGPR, OperandKind.SGPR):
                want |= _regs(o)  # an add of an offset, a move: the pointer is among its sources
    return None


def describe(program, t, pc: int, address: int, lane: int | None = None, lanes: list[int] | None = None
             ) -> str | None:
    """`the pointer comes from table[3], which is NULL` / `offsets[1024], the first element past the end of the
    memory of offsets (...)` / `a NULL pointer plus 0x14`, or None when no fact holds. `lanes`: the faulting
    lanes (the first `lane` alone when not given)."""
    found = pointer_load(program, pc)
    if found is not None:
        named = sliced_pointer(program, t, found[0], lanes or ([lane] if lane is not None else []))
        if named is None:
            named = _loaded_pointer(program, t, lane, *found, address)
        elif named is _FROM_STACK:
            named = None  # the pointer is a variable the code reloads from its stack slot: the address facts below
        if named is not None:
            return named
    if address < NULL_PAGE:
        return selected_null(program, t, pc, lanes or ([lane] if lane is not None else [])) or \
            f"a NULL pointer plus {address:#x}"
    return _past_the_end(program, t, address)


def selected_null(program, t, pc: int, lanes: list[int]) -> str | None:
    """`the pointer comes from a select at k.hip:68 between valid and NULL, which chose NULL`: the access's address
    is built (adds, shifts, moves: a straight-line walk back from it) from a per-lane select (`v_cndmask_b32`) of
    each half of a pointer and the constant 0 -- a ternary `c ? NULL : valid` that -O2 keeps in registers, where
    DWARF has no variable left to name (`src` is optimized out). The other operand is named by the pointer argument
    whose buffer it is (its value recomputed by the backward slice), else by its value."""
    from amddbg.replay.slicing import Slicer, _keys
    from amddbg.replay.where import place

    try:
        insns = [i for i in program.disassemble(pc) if i.address <= pc]
    except AmddbgError:
        return None
    if not insns or insns[-1].address != pc:
        return None
    # each address register's half of the pointer (0: low dword, 1: high), carried back through the sources
    want: dict = {}
    for o in _address_operands(insns[-1]):
        if o.count == 2:
            want.update({(o.kind, o.register + j): j for j in range(2)})
    selects = []  # (select, half)
    for k in range(len(insns) - 2, -1, -1):
        i = insns[k]
        if i.is_branch or i.is_call:
            break
        dests = [o for o in i.operands if o.is_dest and o.kind in (OperandKind.VGPR, OperandKind.SGPR)]
        hit = {r: want.pop(r) for d in dests for r in _regs(d) if r in want}
        if not hit:
            continue
        if i.memory is not None:
            break
        if i.mnemonic.startswith("v_cndmask_b32"):
            selects.append((i, next(iter(hit.values()))))
            continue
        pair = next((d for d in dests if d.count == 2), None)
        for o in i.operands:
            if o.is_dest or o.kind not in (OperandKind.VGPR, OperandKind.SGPR) or o.register is None:
                continue
            for j in range(o.count):
                if pair is not None and o.count == 2:
                    half = hit.get((pair.kind, pair.register + j))
                else:
                    half = next(iter(hit.values()))
                if half is not None:
                    want.setdefault((o.kind, o.register + j), half)
    if len(selects) != 2 or {h for _, h in selects} != {0, 1} or not lanes:
        return None
    s = Slicer(program, t)
    halves = {}
    for i, half in selects:
        k = s.index.get(i.address)
        srcs = [o for o in i.operands if not o.is_dest][:2]
        if k is None or len(srcs) != 2:
            return None
        const = [o for o in srcs if o.kind in (OperandKind.INLINE, OperandKind.LITERAL)]
        regs = [o for o in srcs if o.kind in (OperandKind.VGPR, OperandKind.SGPR) and o.count == 1]
        if len(const) != 1 or const[0].value != 0 or len(regs) != 1:
            return None
        v = s.value(_keys(regs[0])[0], k, lanes[0])
        if v is None:
            return None
        halves[half] = v
    selects = [i for i, _ in selects]
    other = halves[0] | halves[1] << 32
    name = next((param.name for param, base in pointer_arguments(program, t) if base == other), None)
    where = place(program, min(selects, key=lambda x: x.address).address).text()
    return (f"the pointer comes from a select at {where} between {name or _value_text(other)} and NULL, which chose "
            "NULL")


_FROM_STACK = "stack"  # sliced_pointer: the pointer is a variable itself (a stack slot at -O0, a kernel argument)


def sliced_pointer(program, t, load, lanes: list[int], *, limit: int = 16) -> str | None:
    """Name the memory the pointer `load` read, per faulting lane, from its address recomputed by the backward
    slice (`replay/slicing.py`), with the pointer's value (its destination registers, or the memory the slice
    reads): `the pointer comes from table[3], which is NULL`; lanes that read different slots are listed
    (`the pointers come from table[3] (lanes 3,7) and table[1] (lane 9), which are NULL`)."""
    from amddbg.replay.slicing import Slicer, _keys

    s = Slicer(program, t)
    k = s.index.get(load.address)
    dest = next((o for o in load.operands if o.is_dest), None)
    if k is None or dest is None or s.stop is None:
        return None
    named: dict[str, list] = {}
    values = set()
    for ln in (lanes or t.active_lanes[:1])[:limit]:
        at = s.address(k, ln)
        if at is None:
            return None
        local = None
        if at[0] == "private":  # -O0 reloads the pointer from its variable's stack slot: which variable?
            local = stack_variable(t, ln, at[1])
            if local is None or local.is_parameter:
                return _FROM_STACK  # a kernel argument's spill: the address facts below say more
            name = f"{local.name} (a local variable)"
        elif at[0] == "local":
            return _FROM_STACK
        else:
            name = slot_name(program, t, *at)
        if name is None:
            return None
        keys = _keys(dest)[:2]
        vals = [s.value(key, k + 1, ln) for key in keys]
        value = None if None in vals else vals[0] | (vals[1] << 32 if len(vals) > 1 else 0)
        if value is None and local is not None:
            value = _private64(program, t, ln, at[1])
        named.setdefault(name, []).append(ln)
        values.add(value)
    if not named:
        return None
    args = [n for n in named if n.startswith("the kernel argument ")]
    if args:  # the pointer is an argument itself: the address facts say more, unless it is NULL
        if len(named) == 1 and values == {0}:
            return f"the pointer is {args[0]}, which is NULL"
        return _FROM_STACK
    value = _value_text(values.pop()) if len(values) == 1 else None
    if len(named) == 1:
        return f"the pointer comes from {next(iter(named))}" + (f", which is {value}" if value else "")
    parts = [f"{n} (lane{'s' if len(ls) > 1 else ''} {','.join(map(str, ls))})" for n, ls in list(named.items())[:3]]
    more = "" if len(named) <= 3 else f" and {len(named) - 3} more"
    return f"the pointers come from {', '.join(parts)}{more}" + (f", which are {value}" if value else "")


def slot_name(program, t, space: str, address: int) -> str | None:
    """Source name of the memory at `address`: a kernel argument in the kernarg segment (`prm.data`), an element
    or member of the memory a pointer argument points to (`table[3]`, `p->data`, `p[2].data`)."""
    if space == "private":
        return None
    name = _kernarg_name(program, t, address)
    if name is not None:
        return f"the kernel argument {name}"
    best = None
    for param, base in pointer_arguments(program, t):
        if base <= address < base + (1 << 24) and (best is None or base > best[1]):
            best = (param, base)
    if best is None:
        return None
    param, base = best
    try:
        pointee = param.type.strip().target.strip()
        size = pointee.size or 4
    except AttributeError:
        return None
    off = address - base
    index, within = divmod(off, size)
    if pointee.kind in ("struct", "class", "union"):
        member = _member_path(pointee, within)
        if member is None:
            return None
        return f"{param.name}->{member}" if index == 0 else f"{param.name}[{index}].{member}"
    return f"{param.name}[{index}]" if within == 0 else f"{param.name}+{off:#x}"


def _member_path(ty, off: int) -> str | None:
    """`data` / `inner.ptr`: the member path covering byte `off` of a struct (starting exactly there)."""
    for _ in range(8):
        for m in ty.members:
            mt = m.type.strip()
            if m.offset is None or m.name is None or not m.offset <= off < m.offset + (mt.size or 1):
                continue
            if off == m.offset and mt.kind not in ("struct", "class", "union"):
                return m.name
            if mt.kind in ("struct", "class", "union"):
                rest = _member_path(mt, off - m.offset)
                return None if rest is None else f"{m.name}.{rest}"
            return None
        return None
    return None


def _kernarg_name(program, t, address: int) -> str | None:
    """The kernel parameter (and member, for a by-value struct) the kernarg segment holds at `address`."""
    d = t.dispatch
    if d is None or d.kernarg_address is None or not d.kernarg_address <= address < d.kernarg_address + 4096:
        return None
    kernel = program.dispatch_kernel(d, t.pc)
    if kernel is None:
        return None
    try:
        frames = t.frames()
        params = list(frames[-1].arguments()) if frames else []
    except AmddbgError:
        return None
    args = [a for a in getattr(kernel.metadata, "args", ()) if not str(a.value_kind).startswith("hidden")]
    off = address - d.kernarg_address
    for i, a in enumerate(args):
        size = getattr(a, "size", None) or 8
        if i < len(params) and a.offset <= off < a.offset + size:
            param = params[i]
            if off == a.offset and param.type.strip().kind not in ("struct", "class", "union"):
                return param.name
            member = _member_path(param.type.strip(), off - a.offset)
            return f"{param.name}.{member}" if member else None
    return None


def _loaded_pointer(program, t, lane, load, between, address: int) -> str | None:
    """Name the memory the access's pointer was loaded from: by the load's own address when its registers still
    hold it; else by the pointer value (the load's destination registers, or NULL for an address in the NULL
    page) found in exactly one slot of the pointer-to-pointer arguments' memory; else the array alone."""
    if load.mnemonic.startswith("s_"):
        return None  # a scalar load of a pointer reads a kernel argument (or a uniform one): the argument itself
    if not any(reg_written([load, *between], o) for o in _address_operands(load)):  # (the load may reuse them)
        addrs = lane_addresses(t, load)
        if addrs:
            where = addrs.get(lane) if lane in addrs else next(iter(addrs.values()))
            name = variable_at(program, t, where)
            if name is not None:
                return f"the pointer comes from {name}, which is {_value_text(_read64(program, where))}"
    value = 0 if address < NULL_PAGE else None
    dest = next((o for o in load.operands if o.is_dest), None)
    if dest is not None and dest.count == 2 and dest.kind is OperandKind.VGPR and not reg_written(between, dest):
        try:
            regs = t.registers
            ln = lane if lane is not None else (t.active_lanes or [0])[0]
            value = regs.read_named(f"v{dest.register}", lane=ln) | regs.read_named(f"v{dest.register + 1}",
                                                                                   lane=ln) << 32
        except (AmddbgError, KeyError):
            pass
    slots = _pointer_slots(program, t, value) if value is not None else []
    if len(slots) == 1:
        return f"the pointer comes from {slots[0]}, which is {_value_text(value)}"
    base = _argument_base(program, t, load, between)
    if base is not None:  # the element is not known, the array is: "an element of table"
        shown = f" ({_value_text(value)})" if value is not None else ""
        return f"the pointer{shown} was loaded from an element of {base}"
    return None


def _argument_base(program, t, load, between) -> str | None:
    """The pointer argument a load's SGPR base (`global_load ... vN, s[0:1]`) still holds, by name."""
    sbase = next((o for o in load.operands if not o.is_dest and o.kind is OperandKind.SGPR and o.count == 2), None)
    if sbase is None or reg_written([load, *between], sbase):
        return None  # the base register no longer holds what the load read from (the load itself may reuse it)
    try:
        regs = t.registers
        value = regs.read_named(f"s{sbase.register}") | regs.read_named(f"s{sbase.register + 1}") << 32
    except (AmddbgError, KeyError):
        return None
    return next((param.name for param, base in pointer_arguments(program, t) if base == value), None)


def _pointer_slots(program, t, value: int, *, limit: int = 1 << 16) -> list[str]:
    """`table[3]`-style names of the 8-byte slots holding `value` in the memory of the arguments that point to
    pointers (at most `limit` bytes each, up to the first unmapped page)."""
    out = []
    for param, base in pointer_arguments(program, t):
        pointee = getattr(getattr(param, "type", None), "target", None)
        while pointee is not None and pointee.kind in ("typedef", "const", "volatile", "restrict", "atomic"):
            pointee = pointee.target
        if pointee is None or pointee.kind != "pointer":
            continue
        off = 0
        while off < limit:
            try:
                chunk = program.read("global", base + off, 4096 - (base + off) % 4096)
            except AmddbgError:
                break
            for k in range(0, len(chunk) - 7, 8):
                if int.from_bytes(chunk[k:k + 8], "little") == value:
                    out.append(f"{param.name}[{(off + k) // 8}]")
            off += len(chunk)
    return out


def _private64(program, t, lane: int, offset: int) -> int | None:
    """The 8 bytes at `offset` of the lane's private memory (a -O0 stack slot), or None."""
    try:
        return int.from_bytes(program.read("private_lane", offset, 8, lane=lane, thread=t), "little")
    except AmddbgError:
        return None


def _read64(program, address: int) -> int | None:
    try:
        return int.from_bytes(program.read("global", address, 8), "little")
    except AmddbgError:
        return None


def _value_text(value: int | None) -> str:
    return "NULL" if value == 0 else (f"{value:#x}" if value is not None else "<unavailable>")


def _past_the_end(program, t, address: int, *, window: int = 1 << 20) -> str | None:
    """`offsets[1024], the first element past the end of the memory of offsets` when `address` is in the first
    unmapped page after the mapped extent of the argument buffer below it."""
    hit = argument_at(program, t, address, window=window)
    if hit is None:
        return None
    name, base, size = hit
    page = 4096
    end = base
    while end < address:  # the mapped extent from the buffer's start, page by page (bounded by `window`)
        try:
            program.read("global", end, 1)
        except AmddbgError:
            break
        end = (end // page + 1) * page
    if end > address or address - end >= page or (address - base) % size:
        return None
    index, first_out = (address - base) // size, (end - base) // size
    mapped = f"({end - base} bytes from its start are mapped)"
    if index == first_out:
        bound = _length_arguments(program, t, index)
        if len(bound) == 1:  # the index is the length the launch passed: the mapped extent agrees with it
            n = bound[0]
            return (f"{name}[{n}] with {n} == {index}, one past the end of the {index}-element buffer {name} "
                    f"{mapped}")
        return f"{name}[{index}], the first element past the end of the memory of {name} {mapped}"
    return f"{name}[{index}], past the end of the memory of {name} {mapped}"


def _length_arguments(program, t, value: int) -> list[str]:
    """The integer kernel arguments (by value, at most 8 bytes) whose value in the kernarg segment is `value`: the
    length an index ran up to (`i <= n`, `vals[n]`). Named by the kernel's DWARF parameter, else its metadata."""
    d = t.dispatch
    if d is None or d.kernarg_address is None:
        return []
    kernel = program.dispatch_kernel(d, t.pc)
    if kernel is None:
        return []
    try:
        frames = t.frames()
        params = list(frames[-1].arguments()) if frames else []
    except AmddbgError:
        params = []
    args = [a for a in getattr(kernel.metadata, "args", ()) if not str(a.value_kind).startswith("hidden")]
    out = []
    for i, a in enumerate(args):
        if a.value_kind != "by_value" or not a.size or a.size > 8 or a.offset is None:
            continue
        param = params[i] if i < len(params) else None
        if param is not None:
            try:
                ty = param.type.strip()
            except AttributeError:
                ty = None
            if ty is None or ty.kind not in ("base", "enum"):
                continue
        try:
            raw = program.read("global", d.kernarg_address + a.offset, a.size)
        except AmddbgError:
            continue
        if int.from_bytes(raw, "little", signed=True) == value or int.from_bytes(raw, "little") == value:
            name = (param.name if param is not None else None) or a.name
            if name:
                out.append(name)
    return out
