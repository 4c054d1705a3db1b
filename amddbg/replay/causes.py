"""Hang causes beyond "nobody writes the flag", found after replay proved the hang (issue 20, section 3).

- **SIMT lock inside one wave** (``writer_blocked``, ``details.why == "same_wave"``): lanes of a wave spin on a
  lock that other lanes of the same wave took. Those lanes left the loop, but a wave runs its lanes together:
  while any lane still loops, EXEC keeps the whole wave in the loop and the holders never reach their release.
  The holders are the lanes in the loop's break mask (the `s_andn2 exec, exec, sX` operand, read as the wave runs
  alone up to its loop's backward branch: lanes an enclosing `if` turned off are not in it); the release is found
  by running that wave on from the loop's exit with EXEC = the holders, watching for the first store or atomic to
  the polled address (path-sensitive, so at -O0 it is the unlock, not the next store in program order). Waves
  of other groups that poll the same lock are blocked by the same holders.
- **A poll the compiler hoisted** (``poll_hoisted``): the loop reads no memory and its exit test reads only
  registers the loop does not change, which a load before the loop set: a plain (non-atomic) read the compiler
  moved out of the loop, since nothing in the loop may write it as far as it can tell. The wave spins on a
  register; the fix is an atomic load at the scope the writer needs.
- **A condition that can never become true** (``never_true``): the loop's exit test is constant (the compiler
  folded it, e.g. a 64-bit ballot compared to all-ones on wave32) or the polled value is final (no live wave can
  change it) and not what the loop waits for. Replay probes the values the loop's compares test against and says
  which value would end the loop, or that none does. A loop that 0 would end (a lock held from launch, a flag
  nobody clears) stays ``no_writer``, with ``details.waits_for`` 0.
- **Wave states that are true**: a wave the core calls "halted" or "running" inside a loop that polls memory is
  described as spinning there (`wave_activity`).
"""

from __future__ import annotations

import re
from collections import Counter

from amddbg.dwarf.values import lane_ranges
from amddbg.errors import AmddbgError, UsageError
from amddbg.isa.model import OperandKind
from amddbg.replay.code import (
    argument_pointer,
    lane_addresses,
    loop_of,
    pc_relative_base,
    pointer_origin,
    reg_written,
    variable_at,
)
from amddbg.replay.findings import Finding
from amddbg.replay.fromcore import ReplayUnavailable, machine_from_program
from amddbg.replay.replay import Assumption, replay
from amddbg.replay.where import (
    call_site_place,
    location,
    place,
    wave_call_place,
    wave_doc,
    wave_location,
    wave_where,
)
from amddbg.replay.wwm import program_exec
from amddbg.session.threads import WaveState

STOPPED = (WaveState.AT_BARRIER, WaveState.TRAPPED, WaveState.FAULTED)
PROBE_STEPS = 4000  # instructions a what-if runs one wave for (a critical section and its release)
# scalar instructions that do not write SCC (everything else of the SALU family may)
_NO_SCC = re.compile(r"^s_(mov|movk|cmov|cselect|sleep|wait|nop|branch|cbranch|delay_alu|setprio|getreg|setreg|load|"
                     r"buffer_load|store|barrier|endpgm|sendmsg|dcache|icache|trap|setpc|swappc|getpc|call|"
                     r"clause|version|inst_prefetch|mul_i32|mul_hi|movrel|bitreplicate|sext|pack|ttrace|"
                     r"memtime|memrealtime|wakeup|sethalt|set_gpr|round_mode|denorm_mode|singleuse)")


# ------------------------------------------------------------------------------------------- wave states


def _memory_in(body) -> list:
    return [i for i in body if i.memory is not None and (i.memory.is_load or i.memory.is_atomic)
            and i.memory.space.value != "scratch"]


def wave_activity(program, t) -> str:
    """What a wave the barrier misses is doing, in words: the core's state, except that a wave in a loop that
    polls memory is spinning there whatever the core called it (halted, running)."""
    if t.state in (WaveState.HALTED, WaveState.RUNNING):
        loop, body = _poll_loop(program, t)
        if loop is None:
            loop, body = loop_of(program, t.pc)
        if loop is not None:
            polls = _memory_in(body) or [i for i in body if i.is_call]
            if polls:
                kind = "a lock" if any(i.memory is not None and i.memory.is_atomic for i in polls) else "memory"
                return f"spinning at {wave_where(t)} (a loop that polls {kind})"
            return f"spinning at {wave_where(t)} (a loop that reads no memory)"
    return f"{t.state} at {wave_where(t)}"


# ------------------------------------------------------------------------------------------- register slices


def _names(op) -> set[str]:
    if op.kind in (OperandKind.SGPR, OperandKind.VGPR) and op.register is not None:
        p = "s" if op.kind is OperandKind.SGPR else "v"
        return {f"{p}{op.register + k}" for k in range(op.count)}
    if op.kind is OperandKind.SPECIAL:
        t = op.text.lower()
        for n in ("vcc", "exec", "scc"):
            if t.startswith(n):
                return {n}
    return set()


def _defs(i) -> set[str]:
    out = set().union(*(_names(o) for o in i.operands if o.is_dest)) if i.operands else set()
    if i.mnemonic.startswith("v_cmp_") and "_e32" in i.mnemonic:
        out.add("vcc")
    if i.mnemonic.startswith("v_cmpx"):
        out.add("exec")
    if i.mnemonic.startswith("s_") and not _NO_SCC.match(i.mnemonic):
        out.add("scc")
    return out


def _uses(i) -> set[str]:
    out = set().union(*(_names(o) for o in i.operands if not o.is_dest)) if i.operands else set()
    if i.mnemonic.startswith(("s_cselect", "s_addc", "s_subb", "s_cmov", "s_cbranch_scc")):
        out.add("scc")
    if i.mnemonic.startswith("s_cbranch_vcc"):
        out.add("vcc")
    if i.mnemonic.startswith("s_cbranch_exec"):
        out.add("exec")
    return out


def _exits(body, lo: int, hi: int) -> list:
    """The branches that can leave the loop [lo, hi]: conditional branches to outside it, and the conditional
    backward branch at its end (it falls through on exit)."""
    out = []
    for i in body:
        if not i.is_branch or i.is_call:
            continue
        t = i.branch_target
        if i.address == hi and i.is_conditional:
            out.append(i)
        elif t is not None and not lo <= t <= hi:
            out.append(i)
    return out


def _invariant_exit(body, lo: int, hi: int) -> set[str] | None:
    """The registers the loop's exit tests read when none of them is written inside the loop (the loop can never
    leave once it is in it), else None."""
    exits = _exits(body, lo, hi)
    if not exits:
        return set()  # no way out at all
    if any(i.is_call for i in body):
        return None  # a called function may write any register
    conds = set()
    for b in exits:
        if not b.is_conditional:
            return None  # an unconditional way out
        conds |= _uses(b)
    return None if conds & _variant(body) else conds


_VOLATILE = ("s_memtime", "s_memrealtime", "s_getreg", "s_sendmsg_rtn", "s_get_barrier_state")


def _variant(body) -> set[str]:
    """Registers whose value can change from one iteration of the loop to the next: the greatest set such that
    every register the loop defines stays in it unless all its definitions in the loop are computed, without
    memory or clocks, from registers outside it (a copy of a register to itself, `s_mov_b64 vcc, vcc`, changes
    nothing)."""
    defs: dict = {}
    for i in body:
        for r in _defs(i):
            defs.setdefault(r, []).append(i)
    variant = set(defs)
    changed = True
    while changed:
        changed = False
        for r in list(variant):
            ok = True
            for i in defs[r]:
                if i.memory is not None or i.mnemonic.startswith(_VOLATILE):
                    ok = False
                    break
                uses = _uses(i)
                if i.mnemonic.startswith("s_mov") and uses == _defs(i):
                    continue  # a copy to itself
                if uses & variant:
                    ok = False
                    break
            if ok:
                variant.discard(r)
                changed = True
    return variant


def _source_load(insns, lo: int, regs: set[str], limit: int = 96):
    """The load whose value the registers `regs` were computed from before the loop at `lo` (a backward slice
    over the straight-line code before it), or None when they are computed from no load (a constant)."""
    wanted = set(regs) - {"exec"}
    before = [i for i in insns if i.address < lo][-limit:]
    for i in reversed(before):
        d = _defs(i) & wanted
        if not d:
            continue
        wanted -= d
        if i.memory is not None and (i.memory.is_load or i.memory.is_atomic) and i.memory.space.value != "scratch":
            return i
        wanted |= _uses(i) - {"exec"}
        if not wanted:
            return None
    return None


def _data_load(insns, load) -> bool:
    """A load of data through a pointer (not of a kernel argument from the kernarg segment): its base SGPR pair
    was itself loaded (`pointer_origin`), or its address is in VGPRs."""
    if any(o.kind is OperandKind.VGPR and not o.is_dest and o.count == 2 for o in load.operands):
        return True
    return pointer_origin(insns, load) is not None or pc_relative_base(insns, load) is not None  # a global


def _hoisted_load(insns, lo: int, conds: set[str], branches: int = 6):
    """(load, anchor): the data load the loop's (invariant) exit test was computed from, or the load that decided
    to enter the loop (-O2 turns `while (*flag == 0) sleep;` into `if (*flag == 0) for (;;) sleep;`, whose loop
    tests a constant and whose entry branch tests the load), and the instruction whose line is the loop
    condition's (the load, or that branch). None for a condition computed from constants and kernel arguments."""
    src = _source_load(insns, lo, conds)
    if src is not None and _data_load(insns, src):
        return src, src
    before = [i for i in insns if i.address < lo][-48:]
    for b in [i for i in reversed(before) if i.is_branch and i.is_conditional][:branches]:
        src = _source_load(insns, b.address, _uses(b))
        if src is not None and _data_load(insns, src):
            return src, b  # the branch carries the loop condition's line (the load may carry the `if` before it)
    return None


# ------------------------------------------------------------------------------------------- helpers


def _threads(program, dispatch):
    return [t for t in program.waves if dispatch is None or dispatch in (t.dispatch_handle, t.dispatch_id)]


def _live_mask(t) -> int:
    """Lanes of the wave that hold a work-item (the last wave of a workgroup may be partial)."""
    d = t.dispatch
    size = getattr(d, "workgroup_size", None)
    grid = getattr(d, "grid_size", None)
    wg = t.workgroup
    if not size or not grid or wg is None or t.wave_in_group is None:
        return (1 << t.lanes) - 1
    items = 1
    for k in range(3):
        items *= max(0, min(size[k], grid[k] - wg[k] * size[k]))
    n = max(0, min(t.lanes, items - t.wave_in_group * t.lanes))
    return (1 << n) - 1


def _read_u32(program, address: int) -> int | None:
    try:
        return int.from_bytes(program.read("global", address, 4), "little")
    except AmddbgError:
        return None


def _who(docs: list) -> str:
    wgs = {tuple(w["workgroup"] or ()) for w in docs}
    waves = ", ".join(str(w["wave_in_group"]) for w in docs[:8]) + (", ..." if len(docs) > 8 else "")
    who = f"wave {docs[0]['wave_in_group']}" if len(docs) == 1 else f"waves {waves}"
    return who + (f" of workgroup {next(iter(wgs))}" if len(wgs) == 1 else f" in {len(wgs)} workgroups")


def _s(docs: list) -> str:
    """The verb ending for a `_who` subject."""
    return "s" if len(docs) == 1 else ""


def _spin_waves(findings) -> set:
    return {w.get("thread") for f in findings if f.kind == "spin_forever" for w in f.waves}


def _replace(findings: list, new: Finding) -> None:
    """Put `new` in place of the spin findings about its waves (a wave is explained once)."""
    mine = {w.get("thread") for w in new.waves}
    keep = []
    for f in findings:
        if f.kind == "spin_forever":
            f.waves = [w for w in f.waves if w.get("thread") not in mine]
            if not f.waves:
                continue
        keep.append(f)
    findings[:] = keep + [new]


# ------------------------------------------------------------------------------------------- SIMT locks


def _polled(r, t, lo: int, hi: int, body) -> tuple[int | None, int | None]:
    """(pc, address) the wave polls in its loop: the access replay saw it repeat, else the saved registers'."""
    seen = [(pc, a) for pc, a in r.loads.get(t.number, []) if lo <= pc <= hi]
    if not seen and any(i.is_call for i in body):  # -O0: the poll is in a function the loop calls
        seen = list(r.loads.get(t.number, []))
    if seen:
        # two loads of one loop iteration (`while (poll(go) == 0) { ...; if (poll(&alive[w]) == 2) break; }`) are
        # seen as often as each other, give or take the one iteration the replay's window cuts: counts within one
        # of each other rank by address, so the answer does not depend on where the window starts
        counts = Counter(seen)
        top = max(counts.values())
        ranked = sorted(counts, key=lambda x: (counts[x] < top - 1, -counts[x] if counts[x] < top - 1 else 0, x))
        # a location the wave itself writes with a plain store in the loop is its own counter (`ticks[t] += 1`
        # beside the poll of a flag), not what it waits for: rank it last
        plain = {i.address for i in body if i.memory is not None and not i.memory.is_atomic}
        own = {a for pc, a in r.stores.get(t.number, []) if lo <= pc <= hi and pc in plain}
        ranked = [x for x in ranked if x[1] not in own] + [x for x in ranked if x[1] in own]
        # -O0 loops also reload launch values (the work-group size from the dispatch packet): prefer an access to
        # a buffer a kernel argument points to, or a global variable
        return next((x for x in ranked if x[1] not in own and variable_at(t.program, t, x[1])), ranked[0])
    for i in _memory_in(body):
        if i.memory.space.value in ("global", "flat"):
            addrs = lane_addresses(t, i)
            if addrs:
                return i.address, next(iter(addrs.values()))
    return None, None


class _Found(Exception):
    """Raised from a what-if's step hook once it saw what it was looking for."""


def _alone(program, dispatch, t, *, pc: int | None = None, mask: int | None = None):
    """A fresh machine from the core in which only wave `t` runs (the others are parked as ended), optionally from
    `pc` with EXEC = `mask`: (machine, wave) or None."""
    from amddbg.emu.wave import ENDED, READY

    try:
        state = machine_from_program(program, dispatch=dispatch)
    except (ReplayUnavailable, AmddbgError):
        return None
    mine = None
    for w, th in state.threads.items():
        if th.number == t.number:
            mine = w
        elif w.state != ENDED:
            w.state = ENDED
    if mine is None:
        return None
    if pc is not None:
        mine.pc, mine.state = pc, READY
    if mask is not None:
        mine.exec = mask
    return state.machine, mine


def _run_alone(machine, hook, steps: int) -> None:
    try:
        machine.run(max_instructions=steps, hook=hook)
    except _Found:
        pass
    except AmddbgError:
        pass


def _exit_mask_insn(body):
    """The loop's `s_andn2_b64 exec, exec, sX` / `s_and_not1_b32 exec_lo, exec_lo, sX`: sX is the mask of the lanes
    that left the loop (the loop's break mask; -O0 code reloads it from a spill right before)."""
    for i in body:
        ops = list(i.operands)
        if i.mnemonic.startswith(("s_andn2_b", "s_and_not1_b")) and len(ops) == 3 and ops[0].text.startswith(
                "exec") and ops[1].text.startswith("exec") and ops[2].kind is OperandKind.SGPR:
            return i
    return None


def _enclosing_break(program, lo: int, hi: int):
    """For a uniform poll loop [lo, hi] (no break mask: its lanes leave it together, as in the read-only wait of a
    test-and-test-and-set lock, whose address is uniform) nested in a loop that has one (the CAS loop the winner
    breaks out of): ((first, last), body, the break-mask instruction) of the smallest such enclosing loop, or None.
    The break mask must outlive the inner loop (the inner loop does not write its register), so the core's value
    is the mask of the lanes that left."""
    try:
        insns = program.disassemble(lo)
    except AmddbgError:
        return None
    inner = [i for i in insns if lo <= i.address <= hi]
    loops = sorted({(b.branch_target, b.address) for b in insns
                    if b.is_branch and b.branch_target is not None and b.branch_target <= lo and hi <= b.address
                    and (b.branch_target, b.address) != (lo, hi)}, key=lambda x: x[1] - x[0])
    for olo, ohi in loops:
        body = [i for i in insns if olo <= i.address <= ohi]
        brk = _exit_mask_insn(body)
        if brk is not None and not lo <= brk.address <= hi:
            if reg_written(inner, list(brk.operands)[2]):
                return None
            return (olo, ohi), body, brk
    return None


def _release_probe(program, dispatch, t, loop: tuple[int, int], body, exit_pc: int, candidates: int,
                   target: set[int], mask_in_core: bool = False) -> tuple[int, int] | None:
    """Run wave `t` alone on to its loop's backward branch (out of a called lock helper, at -O0), reading the
    loop's break mask on the way, then from the loop's exit with EXEC = that mask, as the wave would once its
    spinning lanes were done: the code after the loop rejoins the lanes the loop's guard skipped (a rotated `while`:
    the holder of a ticket lock never entered the loop) but not those an enclosing `if` turned off (they rejoin
    after the release). The first store or atomic to `target` by lanes of `candidates` (the lanes that are not
    spinning): (those lanes, its PC), or None. `mask_in_core`: the wave spins in a uniform loop nested in `loop`
    (`_enclosing_break`), which it never comes back to; the core's register holds the break mask."""
    got = _alone(program, dispatch, t)
    if got is None:
        return None
    m, w = got
    hi = loop[1]
    brk = _exit_mask_insn(body)
    if brk is None:
        return None  # no break mask: a uniform loop, no lane left it alone
    reg = list(brk.operands)[2]
    left = [None]
    if mask_in_core:
        left[0] = sum(w.s[reg.register + k] << (32 * k) for k in range(reg.count))
        return _release_from(m, w, exit_pc, left[0], candidates, target)

    def to_branch(ev) -> None:
        if ev.wave is not w:
            return
        if ev.pc == brk.address:
            left[0] = sum(w.s[reg.register + k] << (32 * k) for k in range(reg.count))
        if ev.pc == hi:
            raise _Found  # before the branch moves the PC: the wave is in the loop's own frame

    try:
        m.run(max_instructions=PROBE_STEPS, hook=to_branch)
        return None  # it never came back to the loop's branch
    except _Found:
        pass
    except AmddbgError:
        return None
    got = _release_from(m, w, exit_pc, left[0], candidates, target)
    if got is None and not left[0]:
        # no lane left the loop: the lanes outside EXEC never entered it (an enclosing `if` turned them off, as
        # the readers of a reader-writer lock whose one lane waits to upgrade). They rejoin once the spinning lanes
        # are done: run the spinners out of the loop (a fresh wave: the probe above moved this one) and watch the
        # others' stores after the join. The first such store to the polled location is the release they cannot
        # reach.
        again = _alone(program, dispatch, t)
        if again is not None:
            m2, w2 = again
            got = _release_from(m2, w2, exit_pc, program_exec(t), candidates, target, rejoin=True)
            if got is not None:
                got = (*got[:3], "rejoin")
    return got


def _release_from(m, w, exit_pc: int, left: int | None, candidates: int, target: set[int], rejoin: bool = False):
    """Run wave `w` alone from its loop's exit with EXEC = `left` (the break mask): the first store or atomic to
    one of the `target` addresses (the words the wave's lanes poll: several locks, one per lane's bucket) by lanes
    of `candidates`, as (lanes, PC, return address), or None. Every lane of that instruction that writes one of
    them is a holder (each bucket's lock has its own).

    `rejoin`: `left` is the spinning lanes and the candidates join them later (after an enclosing `if`). Their
    release may be an atomic the compiler's atomic optimizer issues from one elected lane (the first active one,
    often a spinner: `fetch_sub(&state, 1)` of 64 lanes is one `global_atomic_sub` of 64): the first write to a
    target after the candidates rejoined counts, and its lanes are the candidates EXEC held last before it."""
    w.pc, w.exec = exit_pc, (left or 0) & ((1 << w.lanes) - 1)
    hit: list = []
    joined = [0]

    def hook(ev) -> None:
        if ev.wave is not w:
            return
        if rejoin and w.exec & candidates:
            joined[0] = w.exec & candidates
        for op in ev.memops:
            if rejoin and joined[0] and op.kind in ("store", "atomic") and op.addresses and any(
                    a <= x < a + 4 for a in op.addresses.values() for x in target):
                hit.append((joined[0], ev.pc, w.s[30] | (w.s[31] << 32)))
                raise _Found
            if op.kind in ("store", "atomic") and op.addresses:
                lanes = sum(1 << ln for ln, a in op.addresses.items()
                            if any(a <= x < a + 4 for x in target)) & candidates
                if lanes:  # lanes that are not spinning release the lock
                    # s[30:31]: the return address while in a called function (AMDGPU's calling convention; a
                    # leaf `unlock()` keeps it there), for the call site's line
                    hit.append((lanes, ev.pc, w.s[30] | (w.s[31] << 32)))
                    raise _Found

    _run_alone(m, hook, PROBE_STEPS)
    return hit[0] if hit else None


def _loop_exit(body, lo: int, hi: int) -> int | None:
    """Where a loop [lo, hi] goes when it ends: past its conditional backward branch, else the target of its exit
    branch out of [lo, hi]."""
    back = next((i for i in body if i.address == hi), None)
    if back is None:
        return None
    if back.is_conditional:
        return hi + back.size
    return next((b.branch_target for b in _exits(body, lo, hi)
                 if b.branch_target is not None and not lo <= b.branch_target <= hi), None)


def _lane_words(program, dispatch, t, pc: int | None) -> dict:
    """{lane: address} the wave's access at `pc` (its poll) reads: from running the wave alone from the core until
    it executes `pc` (-O0 reloads the pointer from the stack and reuses its registers, so the saved ones may hold
    something else by then), else from the saved registers; {} when neither tells."""
    if pc is None:
        return {}
    try:
        insn = next((i for i in program.disassemble(pc) if i.address == pc), None)
    except AmddbgError:
        return {}
    if insn is None or insn.memory is None:
        return {}
    got = _alone(program, dispatch, t)
    if got is not None:
        m, w = got
        seen: list = []

        def hook(ev) -> None:
            if ev.wave is w and ev.pc == pc:
                for op in ev.memops:
                    if op.addresses:
                        seen.append(dict(op.addresses))
                        raise _Found

        _run_alone(m, hook, PROBE_STEPS)
        if seen:
            return seen[0]
    return lane_addresses(t, insn) or {}


def _polled_words(program, dispatch, t, pc: int | None, address: int) -> set[int]:
    """The words the spinning lanes of wave `t` poll at `pc`: `address` (the one replay saw), plus each active
    lane's own (per-lane locks: `locks[key & 3]`)."""
    return {address} | set(_lane_words(program, dispatch, t, pc).values())


def _poll_loop(program, t):
    """The loop a wave polls in: the innermost loop at its PC that reads memory or calls a function (at -O0 a
    lock helper is a call), else the loop in a caller around the call the wave is in."""
    loop, body = loop_of(program, t.pc)
    if loop is not None and (_memory_in(body) or any(i.is_call for i in body)):
        return loop, body
    try:
        frames = t.frames()
    except AmddbgError:
        return None, []
    for f in frames[1:3]:
        if getattr(f, "inline_depth", 0):
            continue
        loop, body = loop_of(program, f.pc)
        if loop is not None and any(i.is_call for i in body):
            return loop, body
    return None, []


def simt_locks(program, r, findings: list, dispatch) -> None:
    """Spinning waves whose lock is held by lanes of a wave that cannot leave the loop (see the module doc)."""
    groups: dict = {}
    for t in _threads(program, dispatch):
        if t.state in STOPPED:
            continue
        loop, body = _poll_loop(program, t)
        if loop is None:
            continue
        pc, address = _polled(r, t, loop[0], loop[1], body)
        if address is None:
            continue
        groups.setdefault(address, []).append((t, loop, body, pc))
    for address, members in groups.items():
        holders = []
        rejoin = False
        for t, (lo, hi), body, _pc in members:
            active = program_exec(t)  # not the all-lanes EXEC of an -O0 whole-wave spill sequence
            mask = _live_mask(t) & ~active
            if not mask:
                continue
            nested = False
            if _exit_mask_insn(body) is None:  # a uniform wait inside the loop the holder left (a TTAS lock)
                outer = _enclosing_break(program, lo, hi)
                if outer is None:
                    continue
                (lo, hi), body, _brk = outer
                nested = True
            exit_pc = _loop_exit(body, lo, hi)
            if exit_pc is None:
                continue
            words = _polled_words(program, dispatch, t, _pc, address)
            got = _release_probe(program, dispatch, t, (lo, hi), body, exit_pc, mask, words, mask_in_core=nested)
            if got is not None:
                holders.append((t, *got[:3]))
                rejoin = rejoin or len(got) > 3
        if not holders:
            continue
        t0, _loop0, _body0, poll_pc = members[0]
        docs = [wave_doc(t) for t, *_ in members]
        locs = [wave_location(t0, "polling load", poll_pc)]
        for h, _m, pc, ret in holders:
            called = call_site_place(program, pc, ret)
            loc = location(program, "write that never lands", pc, called) if called else \
                wave_location(h, "write that never lands", pc)
            if not any(x["role"] == loc["role"] and x["line"] == loc["line"] for x in locs):
                locs.append(loc)
        value = _read_u32(program, address)
        var = variable_at(program, t0, address)
        shown = f"{var} at {address:#x}" if var else f"{address:#x}"
        h, hmask, rpc, ret = holders[0]
        rel = locs[-1]
        where = (call_site_place(program, rpc, ret) or place(program, rpc)).text()
        polled_at = (locs[0].get("_place") or place(program, poll_pc)).text()
        lanes = lane_ranges(hmask, h.lanes)
        summary = (f"{_who(docs)} spin{_s(docs)} on {shown} at {polled_at}"
                   + (f" (value {value} in the core)" if value is not None else "")
                   + f": it is held by lane{'s' if '-' in lanes or ',' in lanes else ''} {lanes} of wave "
                   f"{h.wave_in_group} of workgroup {tuple(h.workgroup or ())}, which "
                   + ("wait outside the loop (an enclosing branch turned them off)" if rejoin else "left the loop")
                   + f" but cannot reach "
                   f"the release at {where}: the lanes of a wave run together, and EXEC keeps that wave in the loop "
                   "while any of its lanes still spins (a SIMT lock inside one wave; take the lock once per wave, or "
                   "release it inside the loop)")
        details = {"address": f"{address:#x}", "value": value, "variable": var, "why": "same_wave",
                   "holders": [{"workgroup": list(x.workgroup or ()), "wave_in_group": x.wave_in_group,
                                "lanes": lane_ranges(m, x.lanes), "thread": x.number} for x, m, _, _r in holders],
                   "release": f"{rel.get('file')}:{rel.get('line')}", "found_by": "replay"}
        _replace(findings, Finding("spin_forever", "writer_blocked", summary, docs, locs, details))


# ------------------------------------------------------------------------------------------- loops that cannot exit


def unexitable_loops(program, r, findings: list, dispatch, *, stayed_only: bool = False) -> None:
    """Waves in a loop whose exit test reads only registers the loop never changes: a hoisted poll (the registers
    came from a load before the loop, and the loop reads no memory) or a folded, never-true condition."""
    done = {w.get("thread") for f in findings if f.kind == "spin_forever" and f.cause != "no_writer"
            for w in f.waves}  # a no_writer spin may be one of these, which say more
    ended = {t.number for w, t in r.state.threads.items() if w.state in ("ended", "faulted", "trapped")}
    groups: dict = {}
    for t in _threads(program, dispatch):
        if t.state in STOPPED or t.number in ended or t.number in done:
            continue
        loop, body = loop_of(program, t.pc)
        if loop is None:
            continue
        if stayed_only and not _stayed(r, t, loop):
            continue
        conds = _invariant_exit(body, *loop)
        if conds is None:
            continue
        try:
            insns = program.disassemble(t.pc)
        except AmddbgError:
            continue
        found = _hoisted_load(insns, loop[0], conds) if conds else None
        src, anchor = found if found else (None, None)
        reads = _memory_in(body)
        if src is not None and any(i.address == src.address for i in reads):
            continue  # the loop reloads it after all
        cause = "poll_hoisted" if src is not None else "never_true"
        groups.setdefault((cause, loop, src.address if src is not None else None), []).append(
            (t, body, (src, anchor), reads))
    for (cause, (lo, hi), _src_pc), members in groups.items():
        t, body, src, reads = members[0]
        docs = [wave_doc(m[0]) for m in members]
        loop_loc = wave_location(t, "loop that cannot exit", hi)
        at = place(program, hi).text()
        if cause == "poll_hoisted":
            f = _hoisted(program, t, src, docs, loop_loc, at, members)  # src: (load, anchor)
        else:
            f = _folded(program, r, t, reads, docs, loop_loc, at, lo, hi)
        _replace(findings, f)


def _stayed(r, t, loop) -> bool:
    """Replay ran wave `t` on and it is still inside `loop` (it never ended)."""
    w = next((w for w, th in r.state.threads.items() if th.number == t.number), None)
    return w is not None and w.state not in ("ended", "faulted", "trapped") and loop[0] <= w.pc <= loop[1] and \
        w.instructions > 0


def limit_findings(program, r, dispatch) -> list:
    """When replay ran out of budget: the waves that are in a loop whose exit test reads only registers the loop
    never changes, and that replay left inside it, can never leave (a loop that counts its spins changes a
    register every iteration, so the machine state never repeats, but its exit does not depend on that register)."""
    found: list = []
    unexitable_loops(program, r, found, dispatch, stayed_only=True)
    for f in found:
        f.details["found_by"] = "code and replay"
    return found


def _load_address(program, t, load) -> int | None:
    """A load's address from the kernel-argument pointer it is based on and its immediate offset (the index
    register, if any, is taken as 0: a hoisted flag read is uniform)."""
    base = argument_pointer(program, t, load)
    if base is None:
        try:
            base = pc_relative_base(program.disassemble(load.address), load)  # a `__device__` global
        except AmddbgError:
            base = None
    if base is None:
        return None
    m = re.search(r"offset:(-?0x[0-9a-fA-F]+|-?\d+)", load.text) or re.search(r",\s*(0x[0-9a-fA-F]+|\d+)\s*$",
                                                                              load.text)
    return base + (int(m.group(1), 0) if m else 0)


def _hoisted(program, t, found, docs, loop_loc, at, members) -> Finding:
    src, anchor = found
    load_loc = wave_location(t, "polling load", anchor.address)
    address = _load_address(program, t, src)
    var = variable_at(program, t, address) if address is not None else None
    value = _read_u32(program, address) if address is not None else None
    name = var or (f"{address:#x}" if address is not None else "the flag")
    ld = place(program, anchor.address).text()
    wgs = {tuple(x.workgroup or ()) for x in (m[0] for m in members)}
    other_groups = any(tuple(o.workgroup or ()) not in wgs for o in program.waves) or len(
        {tuple(o.workgroup or ()) for o in program.waves}) > 1 or (t.dispatch is not None and t.dispatch.grid_size and
                                                               t.dispatch.workgroup_size and
                                                               t.dispatch.grid_size[0] > t.dispatch.workgroup_size[0])
    scope = "agent" if other_groups else "workgroup"
    fix = f"acquire:{scope}@{load_loc['file']}:{load_loc['line']}" if load_loc.get("file") else None
    others = _memory_in(members[0][1])
    reads = "the loop reads no memory" if not others else f"the loop does not read {name} (only other memory)"
    summary = (f"{_who(docs)} loop{_s(docs)} at {at} on a register: {reads}. The compiler read {name} once, "
               f"before the loop ({ld}, a plain load), since {name} is not atomic and nothing in the loop may write "
               "it as far as it can tell"
               + (f"; memory now holds {value}" if value is not None else "")
               + f". Read it in the loop with an atomic load at {scope} scope (__hip_atomic_load(..., "
               f"__ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_{scope.upper()}))")
    return Finding("spin_forever", "poll_hoisted", summary, docs, [load_loc, loop_loc],
                   {"address": f"{address:#x}" if address is not None else None, "variable": var, "value": value,
                    "load_pc": f"{src.address:#x}", "loop_reads_memory": bool(others), "atomic": False,
                    "needed_scope": scope, "fix": [fix] if fix else [],
                    "found_by": "code"})


def _folded(program, r, t, reads, docs, loop_loc, at, lo, hi) -> Finding:
    pc, address = _polled(r, t, lo, hi, reads) if reads else (None, None)
    locs = [loop_loc]
    value = var = None
    if address is not None:
        locs.insert(0, wave_location(t, "polling load", pc))
        value = _read_u32(program, address)
        var = variable_at(program, t, address)
    name = (f"{var} at {address:#x}" if var else f"{address:#x}") if address is not None else None
    summary = (f"{_who(docs)} loop{_s(docs)} at {at} forever: the loop's exit test reads only values the loop "
               "never changes "
               "(the compiler folded the condition: it can never become true, e.g. a 64-bit ballot compared to "
               "all-ones on a wave32 target, whose upper 32 bits are always 0)"
               + (f"; the loop polls {name} (value {value} in the core) but its value cannot end it" if name else ""))
    return Finding("spin_forever", "never_true", summary, docs, locs,
                   {"address": f"{address:#x}" if address is not None else None, "variable": var, "value": value,
                    "waits_for": None, "condition": "constant", "found_by": "code"})


# ------------------------------------------------------------------------------------------- final values


def _compare_values(program, dispatch, t, lo: int, hi: int, steps: int = 600) -> list[tuple[int, int]]:
    """Run wave `t` alone around its loop and collect the source values of the compares in it (first active
    lane; 64-bit compares as 64-bit values): [(pc, value)]."""
    got = _alone(program, dispatch, t)
    if got is None:
        return []
    m, w = got
    out: list = []
    before = [list(w.s), w.v.copy()]  # the registers before the instruction the hook sees (a compare may
    # overwrite its own source: `v_cmp_ne_u32_e64 s[6:7], v1, s6`)

    def value(op, lane):
        if op.kind in (OperandKind.INLINE, OperandKind.LITERAL) and isinstance(op.value, int):
            return op.value
        if op.kind is OperandKind.SGPR and op.register is not None:
            return sum(before[0][op.register + k] << (32 * k) for k in range(op.count))
        if op.kind is OperandKind.VGPR and op.register is not None:
            return sum(int(before[1][op.register + k][lane]) << (32 * k) for k in range(op.count))
        return None

    def hook(ev) -> None:
        if len(out) > 64:
            raise _Found
        i = ev.instruction
        if lo <= ev.pc <= hi and i.mnemonic.startswith(("v_cmp_", "s_cmp_", "s_cmpk_")):
            lane = next((k for k in range(w.lanes) if ev.exec_before >> k & 1), 0)
            width = (1 << 64) - 1 if re.search(r"_[iub]64", i.mnemonic) else 0xFFFFFFFF
            for o in i.operands:
                if not o.is_dest:
                    v = value(o, lane)
                    if v is not None:
                        out.append((ev.pc, v & width))
        before[0] = list(w.s)
        if i.operands and any(o.is_dest and o.kind is OperandKind.VGPR for o in i.operands):
            before[1] = w.v.copy()

    _run_alone(m, hook, steps)
    return out


def final_values(program, r, findings: list, dispatch, budget: int, info: dict) -> None:
    """`no_writer` spins whose polled value is final and not zero (someone wrote it: the loop waits for another
    value) become `never_true`, with the value replay finds would end the loop (or none)."""
    threads = {t.number: t for t in program.waves}
    for f in list(findings):
        if f.kind != "spin_forever" or f.cause != "no_writer":
            continue
        t = threads.get(f.waves[0].get("thread"))
        if t is None:
            continue
        loop, body = _poll_loop(program, t)  # (at -O0 the wave may be in a helper its loop calls: `nblocks()`)
        if loop is None:
            continue
        pc, seen_at = _polled(r, t, loop[0], loop[1], body)
        if seen_at is not None and f.details.get("address") != f"{seen_at:#x}":
            # the address the wave really polls in replay (-O0 code computes it from values on the stack)
            var = variable_at(program, t, seen_at)
            f.details.update(address=f"{seen_at:#x}", value=_read_u32(program, seen_at), variable=var)
            f.locations = [wave_location(t, "polling load", pc)] + [x for x in f.locations
                                                                    if x["role"] != "polling load"]
        if not str(f.details.get("address", "")).startswith("0x") or not f.details.get("value"):
            continue
        if _unwritten_lane(program, dispatch, t, pc, f):
            continue  # a lane polls its own word, which nothing wrote: that lane keeps the wave in the loop
        address, value = int(f.details["address"], 16), f.details["value"]
        seen = [v for _pc, v in _compare_values(program, dispatch, t, *loop)]
        # 0 first (docs/explain.md: a loop that 0 would end, a flag nobody clears or a sense nobody flips back,
        # stays `no_writer` with waits_for 0), then the compared values, then their neighbours (`count < 128`
        # compares with 127 or 128)
        cands = [0] if value != 0 else []
        for delta in (0, 1, -1):
            for v in seen:
                c = (v + delta) & 0xFFFFFFFF
                if c != value and c not in cands:
                    cands.append(c)
        waits_for = None
        nums = {w.get("thread") for w in f.waves}
        watch = {n: _watched(threads.get(n), loop) for n in nums}
        for c in cands[:7]:
            try:
                rr = replay(program, dispatch=dispatch, assume=[Assumption.parse(f"mem:{address:#x}={c}")],
                            watch=watch, max_instructions=budget)
            except (AmddbgError, UsageError):
                break
            info["wave_instructions"] = info.get("wave_instructions", 0) + rr.wave_instructions
            if nums <= set(rr.left):
                waits_for = c
                break
        compared = sorted({v for v in seen if v != value})[:4]
        if waits_for == 0:  # the loop waits for the value nothing-written memory holds: someone must clear it
            f.details["waits_for"] = 0
            continue
        poll = next((x for x in f.locations if x["role"] == "polling load"), {})
        at = place(program, int(poll["pc"], 16)).text() if poll.get("pc") else "the loop"
        name = f"{f.details['variable']} at {f.details['address']}" if f.details.get("variable") else \
            f.details["address"]
        f.cause = "never_true"
        f.details.update(waits_for=waits_for, condition="final_value", compared_with=[hex(v) for v in compared])
        f.summary = (f"{_who(f.waves)} poll{_s(f.waves)} {name} at {at}: its value {value} is final (no live wave "
                     "of the "
                     "dispatch can change it) and the loop's condition can never become true with it"
                     + (f"; replay with {name.split(' at ')[0]} = {waits_for} ends the loop: it waits for "
                        f"{waits_for}" if waits_for is not None else
                        "; no value replay tried for it ends the loop (the test is on something no memory value "
                        "changes" + (f", compared with {', '.join(hex(v) for v in compared)}" if compared else "")
                        + ")"))


def _unwritten_lane(program, dispatch, t, pc: int | None, f: Finding) -> bool:
    """A poll whose lanes read words of their own (`slot[tid]`, a wave-wide vote over them): the word replay saw
    may be one that was written, while another lane's is still 0 (nothing wrote it) and keeps the whole wave in
    the loop. Point `f` at the first such lane's word (the loop waits for a write to it: `no_writer` stays right)
    and say so; True when there is one."""
    addrs = _lane_words(program, dispatch, t, pc)
    if len(set(addrs.values())) < 2:
        return False
    zero = [(ln, a) for ln, a in sorted(addrs.items()) if _read_u32(program, a) == 0]
    if not zero:
        return False
    lanes = lane_ranges(sum(1 << ln for ln, _a in zero), t.lanes)
    ln, a = zero[0]
    var = variable_at(program, t, a)
    f.details.update(address=f"{a:#x}", value=0, variable=var, unwritten_lanes=lanes)
    name = f"{var} at {a:#x}" if var else f"{a:#x}"
    f.summary = (f"{_who(f.waves)} poll{_s(f.waves)} a word per lane at {place(program, pc).text()}; lane"
                 f"{'s' if '-' in lanes or ',' in lanes else ''} {lanes} read words that are 0 (the first, {name}) "
                 "and no live wave of the dispatch can store to them: those lanes keep the wave in the loop")
    return True


def _writes_after_loop(program, dispatch, t, targets: set[int]) -> bool | None:
    """Does wave `t`, run alone from its poll loop's exit with its own EXEC (as if its lanes' wait had ended),
    store to one of `targets`? None when that cannot be run."""
    loop, body = _poll_loop(program, t)
    if loop is None:
        return None
    exit_pc = _loop_exit(body, *loop)
    if exit_pc is None:
        return None
    got = _alone(program, dispatch, t, pc=exit_pc, mask=program_exec(t))
    if got is None:
        return None
    m, w = got
    hit: list = []

    def hook(ev) -> None:
        if ev.wave is not w:
            return
        for op in ev.memops:
            if op.kind in ("store", "atomic") and op.addresses and any(
                    a <= x < a + 4 for a in op.addresses.values() for x in targets):
                hit.append(ev.pc)
                raise _Found

    _run_alone(m, hook, PROBE_STEPS)
    return bool(hit)


MAX_WRITER_PROBES = 16


def spinning_writers(program, findings: list, dispatch) -> None:
    """`writer_blocked` spins whose only writers (by the code scan) are spinning waves: the scan counts every store
    after the poll in the listing, but clang lays out the arms of an `if` in any order, and a structured branch
    runs an arm with the lanes that took it. Run each such writer alone from its loop's exit with its own EXEC (as
    if its wait had ended): when none of them stores to the polled word (the flip of a sense-reversing barrier
    sits on the arm the waiting waves did not take; a producer's push laid out after the consumers' loop), nobody
    can write it: `no_writer` (and `final_values` may then find the value final: `never_true`)."""
    threads = {t.number: t for t in program.waves}
    for f in findings:
        if f.kind != "spin_forever" or f.cause != "writer_blocked" or f.details.get("why"):
            continue
        writers = f.locations[0].get("_writers") if f.locations else None
        address = str(f.details.get("address", ""))
        if not writers or not all(writers.values()) or not address.startswith("0x"):
            continue  # a writer waits at a barrier (a real blocked writer), or the scan did not say who
        probes: dict = {}
        for n in writers:
            o = threads.get(n)
            if o is not None:
                probes.setdefault((o.pc, program_exec(o)), o)
        if len(probes) > MAX_WRITER_PROBES or len(probes) < 1:
            continue
        target = {int(address, 16)}
        if any(_writes_after_loop(program, dispatch, o, target) is not False for o in probes.values()):
            continue
        f.cause = "no_writer"
        f.locations = [x for x in f.locations if x["role"] != "write that never lands"]
        f.summary = (f.summary.split("; the only writers")[0] + " and no live wave of the dispatch can store to it "
                     "(the stores after the poll that may alias it are on paths the polling waves already left: "
                     "run out of their loops, they do not store there)")
        f.details["found_by"] = "replay"


def _watched(t, loop: tuple[int, int]) -> tuple:
    """The range replay watches wave `t` leave: its loop, plus the return address into it when the wave is inside a
    helper the loop calls (-O0's `nblocks()`), so that returning into the loop does not count as leaving it."""
    if t is None or loop[0] <= t.pc <= loop[1]:
        return loop
    try:
        frames = t.frames()
    except AmddbgError:
        return loop
    ret = next((f.pc for f in frames[1:] if not getattr(f, "inline_depth", 0) and
                loop[0] <= getattr(f, "pc", -1) <= loop[1]), None)
    return loop if ret is None else (*loop, ret)


def _merge_no_writer(findings: list, cause: str = "no_writer") -> None:
    """One `no_writer` (or `cause`) finding per polled address and polling line: the static and the replayed
    analyses may each have found some of the waves (at -O0 the saved registers give one wave's address and not
    another's; a wave caught inside a helper its loop calls is found by replay alone)."""
    first: dict = {}
    keep = []
    for f in findings:
        if f.kind == "spin_forever" and f.cause == cause:
            poll = next((x["line"] for x in f.locations if x["role"] == "polling load"), None)
            key = (f.details.get("address"), poll)
            if key in first:
                g = first[key]
                before = f"{_who(g.waves)} poll{_s(g.waves)} "
                g.waves += [w for w in f.waves if w.get("thread") not in {x.get("thread") for x in g.waves}]
                if g.summary.startswith(before):  # the subject names every wave merged in
                    g.summary = f"{_who(g.waves)} poll{_s(g.waves)} " + g.summary[len(before):]
                if not g.details.get("variable") and f.details.get("variable"):
                    g.details["variable"] = f.details["variable"]
                continue
            first[key] = f
        keep.append(f)
    findings[:] = keep


def blocked_writes(program, findings: list, dispatch, budget: int, info: dict) -> None:
    """The write a barrier-blocked spin waits for, by replay rather than by code scan: the scan lists every store
    ahead of the waiting waves whose address it cannot compute (at -O0 all of them, so the next store in program
    order); a what-if replay with the barriers they wait at removed shows which of them stores to the polled
    address."""
    bars = sorted({(x["file"], x["line"]) for f in findings if f.kind == "barrier_deadlock" for x in f.locations
                   if x["role"] == "waiting at barrier" and x.get("file") and x.get("line")})
    spins = [f for f in findings if f.kind == "spin_forever" and f.cause == "writer_blocked" and
             f.details.get("why") != "same_wave" and str(f.details.get("address", "")).startswith("0x") and
             len([x for x in f.locations if x["role"] == "write that never lands"]) > 1]
    if not bars or not spins:
        return
    try:
        rr = replay(program, dispatch=dispatch, assume=[Assumption.parse(f"skip-barrier@{fl}:{ln}") for fl, ln in bars],
                    max_instructions=budget)
    except (AmddbgError, UsageError):
        return
    info["wave_instructions"] = info.get("wave_instructions", 0) + rr.wave_instructions
    threads = {t.number: t for t in program.waves}
    for f in spins:
        target = int(f.details["address"], 16)
        mine = {w.get("thread") for w in f.waves}
        hits = [(n, pc) for n, stores in rr.stores.items() if n not in mine and n in threads
                for pc, a in stores if a == target]
        if not hits:
            continue
        locs = []
        for n, pc in hits:
            called = wave_call_place(threads[n], pc)  # -O0: the write is in a helper the writer calls
            loc = location(program, "write that never lands", pc, called) if called else \
                wave_location(threads[n], "write that never lands", pc)
            if not any(x["line"] == loc["line"] for x in locs):
                locs.append(loc)
        f.locations = [x for x in f.locations if x["role"] != "write that never lands"] + locs
        f.details["write_found_by"] = "replay with the barrier removed"


def refine(program, r, findings: list, dispatch, budget: int, info: dict) -> None:
    """Apply this module's causes to the findings of a replay-proven hang (in place)."""
    simt_locks(program, r, findings, dispatch)
    spinning_writers(program, findings, dispatch)
    unexitable_loops(program, r, findings, dispatch)
    _merge_no_writer(findings)
    final_values(program, r, findings, dispatch, budget, info)
    _merge_no_writer(findings, "never_true")
    blocked_writes(program, findings, dispatch, budget, info)
