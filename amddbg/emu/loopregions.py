"""Branches inside a spin loop that cannot leave it: the static half of the loop proof (docs/emulator.md "Hangs").

A poll with a back-off that branches on its counter (`while (load(&q->head) == 0) { if ((++polls & 15) == 0)
s_sleep(2); }`) executes a conditional branch whose condition changes every iteration. The dynamic slice of
amddbg/emu/loopproof.py takes every conditional branch as a root, so the counter lands in the slice and the proof
fails: `amddbg run` ends at the instruction limit instead of `hang`. Such a branch decides only which
instructions run *between it and the point where its two paths meet again*; if no path in between leaves the loop,
and nothing in between can change what the rest of the iteration reads, the branch cannot decide whether the loop
ends. This module finds those branches from the code alone (the recorded iterations show one path; the other may
never run while the probe watches, e.g. a timeout that logs after a million polls):

- the loop body is the strongly connected part of the control-flow graph through the loop's head (the
  instructions reachable from the head that reach it again); an edge to anything else leaves the loop;
- for a conditional branch whose two successors stay in the body, its join is its immediate post-dominator in the
  body, where leaving the loop goes to one virtual exit; a branch whose paths meet only at the exit is no candidate;
- its *region* is what runs between the branch and the join: the instructions reachable from its successors
  without passing the join. The branch is *internal* when its region has no edge leaving the loop, is entered only
  through the branch, and holds no call, return, indirect jump, barrier, message, trap, cache invalidate (it could
  refresh a stale copy the exit condition reads), clock read, store or atomic (memory another wave, or this one,
  might read), load that might fault (global, buffer and scalar loads: a fault would end the loop; private
  `scratch_` and LDS loads are kept), or instruction without a known shape. A `flat_load`/`flat_store` (-O0's
  locals through a generic pointer) is kept when its address is a chain of copies back to registers the loop never
  writes (`_flat_sources`): loopproof.py computes it from the wave's registers, requires private memory in the
  wave's segment, and adds the words a store writes to the region's writes.

What the region's instructions write is returned with it: loopproof.py checks that none of it is live where the
paths meet, so the region can only have changed values the rest of the iteration never reads. A divergent `if`
(`s_cbranch_execz` over a narrowed EXEC) joins at the structurizer's `s_or exec, exec, sN` that restores the EXEC
saved before the branch; the join's EXEC is then that saved mask, whatever the region did (`restore`).
"""

from __future__ import annotations

from dataclasses import dataclass

from amddbg.isa.model import OperandKind

_REFUSE = ("s_swappc", "s_setpc", "s_call", "s_getpc", "s_trap", "s_endpgm", "s_barrier", "s_sendmsg", "s_sethalt",
           "s_setkill", "s_rfe", "s_icache", "s_dcache", "s_memtime", "s_memrealtime", "s_getreg", "s_setreg",
           "s_cbranch_cdbg", "s_cbranch_g_fork", "s_cbranch_join", "buffer_wbinvl1", "buffer_inv", "buffer_gl0_inv",
           "buffer_gl1_inv", "global_inv", "buffer_invl2", "global_wbinv", "buffer_wbl2", "global_wb", "movrel",
           "s_set_gpr_idx", "s_get_barrier_state", "s_wakeup", "s_ttrace", "exp", "s_wait_event")
# scalar instructions that leave SCC alone (loopproof.shape takes any unlisted SALU as a possible SCC writer)
_NO_SCC = ("s_sleep", "s_nop", "s_branch", "s_cbranch", "s_waitcnt", "s_wait_", "s_setprio", "s_delay_alu",
           "s_clause", "s_inst_prefetch", "s_code_end")
LIMIT = 20_000  # instructions a loop body may span; beyond it no branch is taken as internal


@dataclass(frozen=True)
class Region:
    """An internal branch's join, the PCs between the branch and the join, what they may write, and for a
    divergent `if` the PC of the `s_or exec, exec, sN` that restores EXEC at the join and the SGPRs sN (else
    None)."""

    branch: int
    join: int
    pcs: frozenset
    writes: tuple
    restore: tuple | None = None
    flat: tuple = ()  # (PC, is a store, bytes, offset, (lo source, hi source)) of each flat load/store (_flat_sources)


def _successors(insn) -> list | None:
    """The addresses control can go to after `insn`; None where it can leave the code we can follow."""
    mn = insn.mnemonic
    nxt = insn.address + insn.size
    if insn.is_endpgm or insn.is_return or mn.startswith(("s_setpc", "s_trap", "s_rfe", "s_endpgm")):
        return None
    if insn.is_call:
        return [nxt]  # the callee returns here (a region holding the call is refused)
    if insn.is_branch:
        if insn.branch_target is None:
            return None
        return [insn.branch_target, nxt] if insn.is_conditional else [insn.branch_target]
    return [nxt]


def loop_body(code, head: int) -> tuple[set, dict]:
    """(the body of the loop through `head`, successors of each PC in it: None for 'leaves the code')."""
    succ: dict = {}
    preds: dict = {}
    todo = [head]
    while todo:
        pc = todo.pop()
        if pc in succ:
            continue
        insn = dict.get(code, pc)
        s = _successors(insn) if insn is not None else None
        succ[pc] = s
        if len(succ) > LIMIT:
            return set(), {}
        for t in s or ():
            preds.setdefault(t, []).append(pc)
            if t not in succ:
                todo.append(t)
    body = {head}
    todo = [head]
    while todo:
        pc = todo.pop()
        for p in preds.get(pc, ()):
            if p not in body:
                body.add(p)
                todo.append(p)
    return body, {pc: succ[pc] for pc in body}


def _exec_restore(insn) -> tuple | None:
    """The SGPRs of the structurizer's join `s_or_b{32,64} exec, exec, sN` (None if `insn` is not one)."""
    if insn.mnemonic not in ("s_or_b32", "s_or_b64"):
        return None
    ops = insn.operands
    if len(ops) != 3 or not all(o.kind is OperandKind.SPECIAL and o.text.startswith("exec") for o in ops[:2]):
        return None
    src = ops[2]
    if src.kind is not OperandKind.SGPR:
        return None
    return tuple(("s", src.register + i) for i in range(src.count))


def _restore_after(code, join: int, succ: dict) -> tuple | None:
    """(PC, SGPRs) of the first `s_or exec, exec, sN` in the straight-line code from `join` (-O0 puts spill
    reloads of the saved mask between the join and it), or None."""
    pc = join
    for _ in range(64):
        insn = dict.get(code, pc)
        if insn is None:
            return None
        got = _exec_restore(insn)
        if got is not None:
            return pc, got
        s = succ.get(pc)
        if insn.is_branch or s is None or len(s) != 1:
            return None
        pc = s[0]
    return None


def internal_branches(code, head: int, shape_of) -> dict:
    """{branch PC: Region} for the loop through `head`: the conditional branches that cannot decide whether it
    ends (see the module docstring). `shape_of(insn)` is loopproof's Shape (raises for instructions it refuses)."""
    body, succ = loop_body(code, head)
    if not body:
        return {}
    order = sorted(body)
    index = {pc: i for i, pc in enumerate(order)}
    exit_bit = 1 << len(order)
    full = (exit_bit << 1) - 1
    outs = {}
    for pc in order:
        s = succ[pc]
        outs[pc] = [exit_bit] if s is None else [1 << index[t] if t in body else exit_bit for t in s]
    pdom = {pc: full for pc in order}  # post-dominator sets as bitmasks (the virtual exit is the top bit)
    changed = True
    while changed:
        changed = False
        for pc in reversed(order):
            new = full
            for bit in outs[pc]:
                new &= exit_bit if bit == exit_bit else pdom[order[bit.bit_length() - 1]]
            new |= 1 << index[pc]
            if new != pdom[pc]:
                pdom[pc] = new
                changed = True
    preds: dict = {}
    for pc in order:
        for t in succ[pc] or ():
            preds.setdefault(t, []).append(pc)
    out = {}
    for b in order:
        insn = dict.get(code, b)
        s = succ[b]
        if not insn.is_conditional or s is None or len(s) != 2 or not all(t in body for t in s):
            continue
        strict = pdom[b] & ~(1 << index[b])
        n = strict.bit_count()  # (the virtual exit post-dominates every instruction of the body)
        join = next((pc for pc in order if strict >> index[pc] & 1 and pdom[pc].bit_count() == n), None)
        if join is None:
            continue  # the paths meet only where the loop ends
        region = _region(s, join, succ, body)
        if region is None or any(p != b and p not in region for pc in region for p in preds.get(pc, ())):
            continue  # leaves the loop, or is entered other than through the branch
        writes = _writes(code, region, shape_of)
        if writes is None:
            continue
        restore = None
        if insn.mnemonic.startswith("s_cbranch_execz") and all(p == b or p in region for p in preds.get(join, ())):
            restore = _restore_after(code, join, succ)
        flat = []
        for pc in sorted(region):
            acc = dict.get(code, pc)
            if acc.mnemonic.startswith(("flat_load", "flat_store")):
                got = _flat_sources(code, pc, b, region, preds, body, shape_of)
                if got is None:
                    break
                flat.append(got)
        else:
            out[b] = Region(b, join, frozenset(region), tuple(writes), restore, tuple(flat))
    return out


def _region(starts: list, join: int, succ: dict, body: set) -> set | None:
    region: set = set()
    todo = [t for t in starts if t != join]
    while todo:
        pc = todo.pop()
        if pc in region:
            continue
        region.add(pc)
        s = succ.get(pc)
        if s is None or pc not in body:
            return None
        for t in s:
            if t not in body:
                return None
            if t != join and t not in region:
                todo.append(t)
    return region


def _writes(code, region: set, shape_of) -> list | None:
    """Every location the region's instructions may write; None when one of them is refused."""
    out: list = []
    for pc in region:
        insn = dict.get(code, pc)
        mn = insn.mnemonic
        if (getattr(insn, "unknown_reason", None) or insn.is_barrier or insn.is_call or insn.is_return
                or mn.startswith(_REFUSE)):
            return None
        if mn.startswith(("flat_load", "flat_store")) and not insn.memory.is_atomic and "d16" not in mn:
            pass  # -O0's locals through a generic pointer: loopproof evaluates the address (`Region.flat`)
        elif insn.memory is not None and (insn.memory.is_store or insn.memory.is_atomic
                                          or not mn.startswith(("scratch_load", "ds_read", "ds_load"))):
            return None  # a store, or a load that might fault (a fault would end the loop)
        try:
            sh = shape_of(insn)
        except Exception:  # noqa: BLE001  (loopproof.NotProvable: an instruction the slice cannot follow)
            return None
        if sh.volatile:
            return None
        locs = list(sh.must) + list(sh.may) + list(sh.vdst)
        if mn.startswith(_NO_SCC) and insn.memory is None:
            locs = [x for x in locs if x != "scc"]
        out += locs
    return out


_COPIES = ("v_mov_b32", "v_accvgpr_read_b32", "v_accvgpr_write_b32", "v_accvgpr_mov_b32", "s_mov_b32",
           "v_readlane_b32", "v_readfirstlane_b32")


def _flat_sources(code, pc: int, branch: int, region: set, preds: dict, body: set, shape_of) -> tuple | None:
    """Where the 64-bit address of the flat access at `pc` comes from, when it is a copy of registers the loop
    never writes (-O0 keeps a local's generic pointer in a spilled VGPR lane or an AGPR and copies it out before
    each access): (pc, is a store, bytes, offset, (lo, hi)), each source ('s'|'v'|'a', register, lane or None for
    the access's own lane). Walks back over the straight-line code of the region to the branch; None otherwise."""
    from amddbg.emu.semantics.mem import _immediate_offset, _width

    insn = dict.get(code, pc)
    vaddr = next((o for o in insn.operands if not o.is_dest and o.kind is OperandKind.VGPR), None)
    if vaddr is None or vaddr.count != 2:
        return None
    track = {("v", vaddr.register): ("v", vaddr.register, None), ("v", vaddr.register + 1): ("v", vaddr.register + 1,
                                                                                           None)}
    cur = pc
    while True:
        ps = preds.get(cur, ())
        if len(ps) != 1:
            return None
        cur = ps[0]
        if cur == branch:
            break
        if cur not in region:
            return None
        i = dict.get(code, cur)
        try:
            sh = shape_of(i)
        except Exception:  # noqa: BLE001
            return None
        written = {(x[0], x[1]) for x in list(sh.must) + list(sh.may) + list(sh.vdst) if isinstance(x, tuple)}
        for key, src in list(track.items()):
            if (src[0], src[1]) not in written:
                continue
            if i.mnemonic not in _COPIES or len(i.operands) < 2:
                return None
            d, a = i.operands[0], i.operands[1]
            if d.count != 1 or a.count != 1 or a.kind not in (OperandKind.VGPR, OperandKind.AGPR, OperandKind.SGPR):
                return None
            lane = src[2]
            if i.mnemonic == "v_readlane_b32":
                k = i.operands[2] if len(i.operands) > 2 else None
                if k is None or k.kind is not OperandKind.INLINE and k.kind is not OperandKind.LITERAL:
                    return None
                lane = int(k.value)
            elif i.mnemonic == "v_readfirstlane_b32":
                return None
            kind = {OperandKind.VGPR: "v", OperandKind.AGPR: "a", OperandKind.SGPR: "s"}[a.kind]
            track[key] = (kind, a.register, lane if kind != "s" else None)
    # the sources must hold the same value all the loop long: nothing in the loop body writes them
    for q in body:
        i = dict.get(code, q)
        try:
            sh = shape_of(i)
        except Exception:  # noqa: BLE001
            return None
        written = {(x[0], x[1]) for x in list(sh.must) + list(sh.may) + list(sh.vdst) if isinstance(x, tuple)}
        if any((src[0], src[1]) in written for src in track.values()):
            return None
    mn = insn.mnemonic
    lo, hi = track[("v", vaddr.register)], track[("v", vaddr.register + 1)]
    return pc, mn.startswith("flat_store"), _width(mn)[0], _immediate_offset(insn), (lo, hi)
