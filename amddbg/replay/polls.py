"""What replay saw of a polled flag's writers: evidence that narrows the code scan's candidates.

The code scan (`analysis._writers`) lists every store of the spinner's function that may alias the flag; at -O0
that includes the prologue's spills of the kernel arguments (flat stores into the stack) and every `out[i] = ...`,
and it cannot see an atomic in a called helper (`atomicAdd` at -O0). Replay records, per store PC, the addresses
its lanes wrote (`ReplayResult.store_targets`): a store replay ran that never wrote the flag is not its writer,
and a store replay saw write the flag is one, wherever it is.
"""

from __future__ import annotations

from amddbg.errors import AmddbgError
from amddbg.isa.model import OperandKind
from amddbg.replay.lift import NotSupported, lift_at
from amddbg.replay.scopes import consistent_scope


def seen_writers(program, load, writers: list, r, address: int, value: int | None = None) -> list:
    """`writers` ([(insn, scope in words, narrowest scope, pointer shown)], as `analysis._writers` gives them) and
    the stores and atomics of the functions the polling `load`'s function calls, without the stores into its own
    stack and those replay ran that never wrote `address`, plus the stores replay saw write it (their scope from
    the lifted code sequence, "unknown" if it does not lift), ranked (below).

    `value`: what memory holds at `address` now. When replay saw no store write the flag, the stores of the
    constant `value` at the polling load's width, in the function or its callees, are the writers: at -O0 a helper
    that publishes (`s->data = v; s->ready = 1;`, not inlined) is a call, and the function's own plain stores
    (`out[t] = acc`) would otherwise outrank the helper's flag store although they store no such constant."""
    targets = getattr(r, "store_targets", None) or {}
    try:
        insns = program.disassemble(load.address)
    except AmddbgError:
        insns = []
    private = private_stores(insns)
    have = {w[0].address for w in writers}
    called = [(i, *_writer_words(program, i.address), False) for i, _sc in callee_writers(program, insns)
              if i.address not in have]

    def missed(i) -> bool:  # replay ran it and it never wrote the flag
        return i.address in targets and targets[i.address] is not None and address not in targets[i.address]

    own = [w for w in writers if w[0].address not in private and not missed(w[0])]
    called = [w for w in called if not missed(w[0])]
    keep = own + called
    have = {w[0].address for w in keep}
    hits = set()
    for pc, hit in sorted(targets.items()):
        if hit is None or address not in hit:
            continue
        hits.add(pc)
        insn = program.instruction_at(pc) if pc not in have else None
        if insn is not None:
            keep.append((insn, *_writer_words(program, pc), True))

    # a store replay saw write the flag comes first; an atomic (an RMW, or a store whose cache bits say a scope)
    # outranks a plain store that merely may alias it; the spinner's own function's stores outrank its callees'
    # (-O0's atomicAdd helper may well be the writer, but only when the function itself has none)
    def strong(ws):
        return [w for w in ws if w[0].memory.is_atomic or w[2] not in ("wavefront", "unknown")]

    seen = [(w[0], w[1], w[2], True) for w in keep if w[0].address in hits]
    if not seen and value is not None:
        width = access_width(load)
        const = [w for w in own + called if access_width(w[0]) == width and function_constant(program, w[0]) == value]
        if const:
            return const
    own = [w for w in own if w[0].address not in hits]
    called = [w for w in called if w[0].address not in hits]
    return seen + (strong(own) or own or strong(called) or called)


def access_width(insn) -> int:
    """Bytes a load or store accesses, from its mnemonic."""
    m = insn.mnemonic
    if any(x in m for x in ("byte", "_u8", "_i8", "_b8")):
        return 1
    if any(x in m for x in ("short", "_u16", "_i16", "_b16", "d16")):
        return 2
    if any(x in m for x in ("dwordx2", "_b64", "x2")):
        return 8
    return 4


def stored_constant(insns, store) -> int | None:
    """The constant a store writes, when its data register was last set (in `insns`, before it, in address order)
    by a move of an immediate."""
    data = [o for o in store.operands if not o.is_dest and o.kind is OperandKind.VGPR]
    if len(data) < 2:
        return None
    return vgpr_constant(insns, store, data[-1])


def vgpr_constant(insns, at, reg) -> int | None:
    """The immediate VGPR `reg` holds at instruction `at`, when the last write before it (in address order) is a
    move of an immediate."""
    for i in reversed([x for x in insns if x.address < at.address]):
        for o in i.operands:
            if o.is_dest and o.kind is OperandKind.VGPR and o.register is not None and \
                    o.register <= reg.register < o.register + o.count:
                if i.mnemonic.startswith("v_mov_b32"):
                    src = [x for x in i.operands if not x.is_dest]
                    if src and src[0].kind in (OperandKind.INLINE, OperandKind.LITERAL) and \
                            isinstance(src[0].value, int):
                        return src[0].value & 0xFFFFFFFF
                return None
    return None


def function_constant(program, store) -> int | None:
    """`stored_constant` within the function that holds `store` (a callee's store is read in the callee)."""
    try:
        return stored_constant(program.disassemble(store.address), store)
    except AmddbgError:
        return None


def _writer_words(program, pc: int) -> tuple[str, str]:
    """(the store's release scope in words, its narrowest scope), as `analysis._writers` words the function's own
    stores: "non-atomic" for a plain or volatile store's code, "a release at agent scope or narrower" otherwise."""
    lco = program.code_object_at(pc)
    try:
        op = lift_at(program.disassemble(pc), lco.processor.split(":")[0], pc) if lco is not None else None
    except (AmddbgError, NotSupported):
        op = None
    if op is None or op.scope == "unknown":
        return "unknown scope", "unknown"
    if op.order == "non_atomic":
        return "non-atomic", "wavefront"
    return consistent_scope(op, "release")[1], op.scope


def _scope_at(program, pc: int) -> str:
    """The scope of the memory-model operation the instruction at `pc` belongs to."""
    lco = program.code_object_at(pc)
    if lco is None:
        return "unknown"
    try:
        op = lift_at(program.disassemble(pc), lco.processor.split(":")[0], pc)
    except (AmddbgError, NotSupported):
        return "unknown"
    return op.scope if op is not None else "unknown"


def private_stores(insns) -> set[int]:
    """PCs of the FLAT stores whose address is built from the private aperture (`src_private_base`), as -O0 code
    spills a kernel's arguments into its stack: they write the wave's own scratch, never a flag in global memory.
    A forward scan in address order: a register is derived from the aperture when the last instruction that wrote it
    read the aperture or a register derived from it; -O0 spills such SGPRs into lanes of a VGPR (v_writelane, then
    v_accvgpr_write of the whole VGPR) and reads them back (v_readlane), which the scan follows lane by lane."""
    from amddbg.isa.model import OperandKind

    GPRS = (OperandKind.SGPR, OperandKind.VGPR, OperandKind.AGPR)  # noqa: N806
    tainted: set[tuple] = set()
    lanes: dict[tuple, set] = {}  # VGPR/AccVGPR -> the lanes holding a spilled aperture-derived SGPR
    out: set[int] = set()

    def regs(o):
        if o.register is None:
            return []
        return [(o.kind, o.register + k) for k in range(max(o.count, 1))]

    for i in insns:
        srcs = [o for o in i.operands if not o.is_dest]
        dests = [o for o in i.operands if o.is_dest and o.register is not None]
        m = i.mnemonic
        if i.is_call:  # the callee's results (v0 = tid() at -O0) and what it clobbers are not the caller's
            tainted = {r for r in tainted if r[0] is OperandKind.AGPR or
                       r[1] >= (32 if r[0] is OperandKind.VGPR else 30)}  # (the callee-saved registers stay)
            continue
        lane = next((_const(o) for o in srcs if o.kind is OperandKind.INLINE and _const(o) is not None), None)
        if m.startswith("v_writelane") and dests and lane is not None:
            slot = lanes.setdefault((dests[0].kind, dests[0].register), set())
            sreg = next((o for o in srcs if o.kind is OperandKind.SGPR), None)
            (slot.add if sreg is not None and any(r in tainted for r in regs(sreg)) else slot.discard)(lane)
            continue
        if m.startswith("v_readlane") and dests and lane is not None:
            v = next((o for o in srcs if o.kind is OperandKind.VGPR), None)
            hit = v is not None and lane in lanes.get((v.kind, v.register), ())
            for r in regs(dests[0]):
                (tainted.add if hit else tainted.discard)(r)
            continue
        if m.startswith(("v_accvgpr_write", "v_accvgpr_read", "v_accvgpr_mov")) and dests and srcs and \
                srcs[0].register is not None:
            lanes[(dests[0].kind, dests[0].register)] = set(lanes.get((srcs[0].kind, srcs[0].register), ()))
        from_aperture = "src_private_base" in i.text or any(
            r in tainted for o in srcs if o.kind in GPRS for r in regs(o))
        mem = i.memory
        if mem is not None and (mem.is_store or mem.is_atomic) and mem.space.value == "flat":
            addr = next((o for o in srcs if o.kind in (OperandKind.VGPR, OperandKind.AGPR)), None)
            if addr is not None and any(r in tainted for r in regs(addr)):
                out.add(i.address)
            continue
        if m.startswith("s_load") or mem is not None:
            from_aperture = False
        for o in i.operands:
            if o.is_dest and o.kind in GPRS:
                for r in regs(o):
                    (tainted.add if from_aperture else tainted.discard)(r)
    return out


def callees(insns) -> list[int]:
    """Entry addresses of the functions `insns` call directly: `s_getpc_b64 s[N:N+1]` (GFX12: then
    `s_sext_i32_i16 sN+1, sN+1`) then `s_add_u32`/`s_add_co_u32 sN, sN, lo` and `s_addc_u32`/`s_add_co_ci_u32
    sN+1, sN+1, hi`, then `s_swappc_b64 ..., s[N:N+1]`, as -O0 code calls its helpers: the target is the PC after
    the s_getpc plus the 64-bit offset."""
    from amddbg.isa.model import OperandKind

    out: list[int] = []
    base: dict[int, int] = {}  # SGPR pair -> the address it holds, while only the pattern's adds wrote it
    for i in insns:
        m = i.mnemonic
        dst = next((o for o in i.operands if o.is_dest and o.kind is OperandKind.SGPR), None)
        imm = [_const(o) for o in i.operands if not o.is_dest and o.kind in (OperandKind.INLINE, OperandKind.LITERAL)
               and _const(o) is not None]
        if m == "s_getpc_b64" and dst is not None:
            base[dst.register] = i.address + i.size
            continue
        if dst is not None and m == "s_sext_i32_i16" and dst.register - 1 in base:  # GFX12: a 48-bit PC
            v = base[dst.register - 1]
            hi = (v >> 32) & 0xFFFF
            hi = (hi - 0x10000 if hi & 0x8000 else hi) & 0xFFFFFFFF
            base[dst.register - 1] = (v & 0xFFFFFFFF) | hi << 32
            continue
        if dst is not None and m in ("s_add_u32", "s_add_co_u32") and dst.register in base and imm:
            base[dst.register] = (base[dst.register] + (imm[0] & 0xFFFFFFFF)) & ((1 << 64) - 1)
            continue
        if dst is not None and m in ("s_addc_u32", "s_add_co_ci_u32") and dst.register - 1 in base and imm:
            base[dst.register - 1] = (base[dst.register - 1] + ((imm[0] & 0xFFFFFFFF) << 32)) & ((1 << 64) - 1)
            continue
        if m == "s_swappc_b64":
            src = next((o for o in i.operands if not o.is_dest and o.kind is OperandKind.SGPR), None)
            if src is not None and src.register in base and base[src.register] not in out:
                out.append(base[src.register])
            continue
        if dst is not None:
            for k in range(max(dst.count, 1)):
                base.pop(dst.register + k, None)
                base.pop(dst.register + k - 1, None)
    return out


def callee_writers(program, insns, depth: int = 2) -> list:
    """Global/flat stores and atomics in the functions `insns` call (and theirs, `depth` levels), but not those
    into the callee's own stack: [(insn, scope)] -- at -O0 HIP's atomicAdd is such a call."""
    out, seen, todo = [], set(), [(insns, depth)]
    while todo:
        code, d = todo.pop()
        for entry in callees(code):
            if entry in seen:
                continue
            seen.add(entry)
            try:
                body = program.disassemble(entry)
            except AmddbgError:
                continue
            private = private_stores(body)
            for i in body:
                mem = i.memory
                if mem is not None and (mem.is_store or mem.is_atomic) and mem.space.value in ("global", "flat") \
                        and i.address not in private:
                    out.append((i, _scope_at(program, i.address)))
            if d > 1:
                todo.append((body, d - 1))
    return out


def _const(o) -> int | None:
    """An integer constant operand's value (the decoder leaves some inline constants to their text)."""
    if isinstance(o.value, int):
        return o.value
    try:
        return int(o.text.removeprefix("lit(").removesuffix(")"), 0)
    except ValueError:
        return None
