"""Explain why a core's waves cannot move — first version: static analysis of the saved state.

What it proves from the core alone (no replay yet: the emulator cannot start from a core's state, see
docs/explain.md):
- **traps and faults**: the waves, lanes and source lines the trap handler stopped;
- **barrier waits**: per workgroup, how many waves the barrier expects (work-group size / wave size), which
  arrived and where, which never will and why (stopped, at another barrier, spinning);
- **spin-waits**: the polled address (computed from the wave's saved registers), its value in the core, and
  the stores every other live wave can still execute, with their addresses computed the same way where the
  address registers are not redefined before the store; when no live wave can store to the polled address
  the spin can never end (cause ``no_writer``), when the only candidates wait at a barrier the spinners must
  reach first, ``writer_blocked``.

The verdict is ``hang`` only when one of these proofs holds (under the assumption that only this
dispatch's waves write the polled memory: a host or another agent could still write it); ``fault`` /
``trap`` when waves stopped; otherwise ``unknown`` (replay would be needed to tell slow from stuck).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from amddbg.errors import AmddbgError
from amddbg.isa.model import OperandKind
from amddbg.session.threads import WaveState

EXIT_CODES = {"no_hang": 0, "unknown": 0, "hang": 3, "fault": 4, "trap": 4}


@dataclass
class Finding:
    kind: str
    cause: str
    summary: str
    waves: list = field(default_factory=list)
    locations: list = field(default_factory=list)
    details: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        locations = [{k: v for k, v in loc.items() if not k.startswith("_")} for loc in self.locations]
        return {"kind": self.kind, "cause": self.cause, "summary": self.summary, "waves": self.waves,
                "locations": locations, "details": self.details}


@dataclass
class Explanation:
    verdict: str
    findings: list = field(default_factory=list)
    replay: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"verdict": self.verdict, "findings": [f.to_json() for f in self.findings], "replay": self.replay}

    def replay_line(self) -> str:
        """How the verdict was reached and how much replay it took (the text output's last line); the count of
        wave-instructions is part of the answer, the seconds are a measurement."""
        r = self.replay
        budget = f", budget {r['budget']} per replay" if r.get("budget") else ""
        return (f"({r.get('method')}; replayed {r.get('wave_instructions', 0)} wave-instructions{budget}; "
                f"{r.get('seconds', 0)} s)")

    @property
    def exit_code(self) -> int:
        return EXIT_CODES.get(self.verdict, 0)


def _ranges(mask: int, lanes: int) -> str:
    from amddbg.dwarf.values import lane_ranges

    return lane_ranges(mask, lanes)


def _wave_doc(t) -> dict:
    from amddbg.replay.wwm import program_exec

    return {"workgroup": list(t.workgroup) if t.workgroup else None, "wave_in_group": t.wave_in_group,
            "lanes": _ranges(program_exec(t), t.lanes), "thread": t.number, "target_id": t.target_id}


def _loc(t, role: str, pc: int | None = None) -> dict:
    """The innermost source location of `pc` (default: the wave's PC), never line 0 (amddbg.replay.where)."""
    from amddbg.replay.where import location, wave_pc, wave_place

    if pc is None or pc == wave_pc(t):  # where the wave itself is: its callers too (bt's frames)
        return location(t.program, role, wave_pc(t), wave_place(t))
    return location(t.program, role, pc)


def _where(t, pc: int | None = None) -> str:
    """The user's line for a wave's PC: the outermost line of its inlined chain, the helpers' lines as detail."""
    from amddbg.replay.where import place, wave_pc, wave_place

    if pc is None or pc == wave_pc(t):
        return wave_place(t).text()
    return place(t.program, pc).text()


def _who(threads) -> str:
    from amddbg.replay.where import who

    return who(threads)


def _lanes_text(ts) -> str:
    """The lanes a trap stopped (EXEC at the `s_trap`), every one (`, lanes 60-63,`), when one wave stopped (the
    wave docs give each wave's). A fault's lanes are the faulting ones: replay names them (analysis)."""
    if len(ts) != 1:
        return ""
    t = ts[0]
    text = _ranges(t.exec, t.lanes)
    return f", lane{'s' if bin(t.exec).count('1') != 1 else ''} {text}," if text else ""


def _reasons_text(reasons) -> str:
    """Missing waves grouped by where they are: `waves 1-2 of workgroup (0,0,0) (threads 2-3) are spinning at ...`."""
    groups: dict = {}
    for t, why in reasons:
        groups.setdefault(why, []).append(t)
    return "; ".join(f"{_who(ts)} {'is' if len(ts) == 1 else 'are'} {why}" for why, ts in groups.items())


# ------------------------------------------------------------------------------------------- code scans


def divergent_branch(program, pc: int):
    """(compare instruction, "file:line") of the divergent branch a barrier at `pc` sits in, or None.

    A linear scan of the function up to `pc` keeps a stack of open branches: EXEC narrowed by a `v_cmpx`, an
    `s_and_saveexec`, or a move of a computed mask into EXEC opens one (its compare is the last `v_cmp` before it,
    or the `v_cmpx` itself); `s_or exec, exec, X` closes the innermost; an else-part's flip (`s_xor exec`,
    `s_andn2/and_not1_saveexec`, GFX9's `s_or_saveexec` + `s_xor exec`) keeps the branch it flips. Whole-wave
    spill code (`s_or_saveexec sN, -1` ... `s_mov exec, sN`, everywhere at -O0 and in GFX10+ wave32 spills) widens
    and restores EXEC: it is no branch. A compare inside a loop that closed before the branch opens (a spin loop
    ahead of it) is the loop's exit test, never the branch's condition."""
    try:
        insns = program.disassemble(pc)
    except AmddbgError:
        return None
    stack: list = []
    wwm: set[str] = set()
    cmps: list = []
    for i in insns:
        if i.address >= pc:
            break
        m = i.mnemonic
        last_cmp = cmps[-1] if cmps else None
        if i.is_branch and i.branch_target is not None and i.branch_target <= i.address:
            cmps = [c for c in cmps if c.address < i.branch_target]  # the loop's own exit tests
            continue
        if m.startswith("v_cmpx"):
            stack.append(i)
            cmps.append(i)
            continue
        if m.startswith("v_cmp"):
            cmps.append(i)
            continue
        if not i.writes_exec:
            continue
        toks = i.text.replace(",", " ").split()
        dst, srcs = (toks[1] if len(toks) > 1 else ""), toks[2:]
        if m.startswith("s_or_saveexec") and srcs and srcs[-1] == "-1":
            wwm.add(dst)  # whole-wave mode entered; dst keeps the mask to restore
        elif m.startswith("s_or_saveexec"):
            pass  # GFX9's else prologue (s_or_saveexec then s_xor exec): the same branch, flipped
        elif m.startswith("s_mov_b") and dst.startswith("exec") and srcs and srcs[0] in wwm:
            wwm.discard(srcs[0])
        elif m.startswith("s_or_b") and dst.startswith("exec") and any(x.startswith("exec") for x in srcs):
            if stack:
                stack.pop()
        elif m.startswith("s_xor") or "andn2_saveexec" in m or "and_not1_saveexec" in m:
            if not stack:
                stack.append(last_cmp or i)
        elif dst.startswith("exec") or "saveexec" in m:
            stack.append(last_cmp or i)
    if not stack:
        return None
    anchor = stack[-1]
    from amddbg.replay.where import place

    return anchor, place(program, anchor.address).text()


def _loop_of(program, pc: int):
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


def _reg_written(insns, op) -> bool:
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


def _addresses(t, insn) -> dict | None:
    """Per-lane addresses of a GLOBAL/FLAT access from the wave's saved registers (None if not computable)."""
    import re

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


def _stores_ahead(t, *, lds: bool = False):
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
    out = []
    for k, i in enumerate(ahead):
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
        out.append((i, innermost and not any(_reg_written(between, o) for o in addr_ops)))
    cache[key] = out
    return out


def _stores_ahead_from(t, pc: int, innermost: bool, lds: bool = False):
    return [(i, _addresses(t, i) if computable else None)
            for i, computable in _store_scan(t.program, pc, innermost, lds)]


def _values_at(t) -> dict:
    """The values that led to a stop: the innermost frame's arguments and locals for the wave's active lanes
    (grouped by value as `print -lane all` shows them), those the compiler kept."""
    out = {}
    try:
        frame = t.frames()[0]
        variables = [*frame.arguments(), *frame.locals()]
    except AmddbgError:
        return out
    lanes = set(t.active_lanes)
    for v in variables[:8]:
        try:
            from amddbg.session.values import LaneValues

            lv = v.lane_values()
            text = LaneValues({ln: val for ln, val in lv.values.items() if ln in lanes}).format(marks=False)
        except (AmddbgError, ValueError, TypeError):
            continue
        if "optimized out" not in text and "unavailable" not in text:
            out[v.name] = text
    return out


def variable_at(program, t, address: int, *, window: int = 1 << 24) -> str | None:
    """The kernel argument a global address points into, in source terms (`flag`, `out[5]`), from the kernarg
    segment in the core, the metadata's argument offsets and the kernel's DWARF parameter names."""
    hit = argument_at(program, t, address, window=window)
    if hit is None:
        return None
    name, base, size = hit
    off = address - base
    if off == 0:
        return name
    return f"{name}[{off // size}]" if off % size == 0 else f"{name}+{off:#x}"


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
    try:
        frames = t.frames()
        params = [a for a in frames[-1].arguments()] if frames else []
    except AmddbgError:
        return []
    kernel = program.dispatch_kernel(d, t.pc)
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
    return out


def _argument_pointer(program, t, insn) -> int | None:
    """The value of the kernel-argument pointer a global access is based on (read from the kernarg segment in the
    core), or None when the code does not show one or the segment is not in the core."""
    try:
        origin = _pointer_origin(program.disassemble(insn.address), insn)
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


def _pointer_origin(insns, insn):
    """Where the base SGPR pair of a global access was loaded from: (base SGPR of the s_load, offset), or None."""
    import re

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
                if src is None or any(_reg_written([j], src) for j in before if j.address < i.address):
                    return None  # based on a loaded pointer, not on an entry SGPR
                m = re.search(r",\s*(0x[0-9a-fA-F]+|\d+)\s*$", i.text)
                off = int(m.group(1), 0) if m else 0
                return (src.register if src else None, off + 4 * (base.register - o.register))
    return None


# ------------------------------------------------------------------------------------------- the analysis


def static_explanation(program, *, dispatch: int | None = None) -> Explanation:
    """What the saved state alone proves (no replay)."""
    t0 = time.perf_counter()
    waves = program.waves
    if dispatch is not None:
        waves = [w for w in waves if w.dispatch_handle == dispatch or w.dispatch_id == dispatch]
    findings: list[Finding] = []
    # -- traps and faults
    for state, kind in ((WaveState.TRAPPED, "trap"), (WaveState.FAULTED, "memory_violation")):
        groups: dict = {}
        for t in waves:
            if t.state is state:
                groups.setdefault((t.state_reason, _where(t)), []).append(t)
        for (reason, where), ts in groups.items():
            k = kind if (kind == "trap" or "memory_violation" in reason or "address" in reason) else "fault"
            what = "stopped by a trap" if kind == "trap" else "faulted"
            values = _values_at(ts[0])
            shown = "; ".join(f"{n} = {v}" for n, v in values.items() if len(v) <= 60)  # the rest: details
            lanes = _lanes_text(ts) if kind == "trap" else ""
            findings.append(Finding(k, reason, f"{_who(ts)}{lanes} {what} ({reason}) at {where}"
                                    + (f"; {shown}" if shown else ""),
                                    [_wave_doc(t) for t in ts], [_loc(ts[0], "trap" if kind == "trap" else
                                                                      "faulting access")],
                                    {"values": values} if values else {}))
    # -- spin-waits
    spin_info = {}
    loops: dict = {}  # pc -> the polling loop's global loads (thousands of waves share a handful of PCs)
    for t in waves:
        if t.state not in (WaveState.SPINNING, WaveState.SLEEPING):
            continue
        if t.pc not in loops:
            loop, body = _loop_of(program, t.pc)
            loops[t.pc] = [i for i in body if i.memory is not None and i.memory.is_load and i.memory.space.value in
                           ("global", "flat")]
        loads = loops[t.pc]
        if not loads:
            continue
        from amddbg.emu.memory import classify_flat

        load, polled = loads[0], None
        for cand in loads:  # at -O0 the first load reloads the flag pointer from the stack (private aperture)
            addrs = _addresses(t, cand)
            if addrs and all(classify_flat(a)[0] == "global" for a in addrs.values()):
                load, polled = cand, addrs
                break
        spin_info[t.number] = (t, load, polled)
    # -- barriers
    by_group: dict = {}
    for t in waves:
        by_group.setdefault((t.dispatch_handle, t.workgroup), []).append(t)
    blocked_by: dict[int, set] = {}  # waiting wave -> the waves its barrier still needs
    for (_d, wg), ts in by_group.items():
        at = [t for t in ts if t.state is WaveState.AT_BARRIER]
        if not at or wg is None:
            continue
        d = at[0].dispatch
        size = d.workgroup_size if d is not None else None
        grid = d.grid_size if d is not None else None
        if size and grid:
            dims = [min(size[i], grid[i] - wg[i] * size[i]) for i in range(3)]
            expected = -(-(dims[0] * dims[1] * dims[2]) // at[0].lanes)
        else:
            expected = len(ts)
        barrier_pcs = {t.pc for t in at}
        missing = [t for t in ts if t.state is not WaveState.AT_BARRIER or t.pc not in barrier_pcs]
        absent = expected - len(ts)
        if not missing:
            continue
        reasons = []
        for t in missing:
            if t.state is WaveState.AT_BARRIER:
                reasons.append((t, "waiting at another barrier"))
            elif t.state in (WaveState.TRAPPED, WaveState.FAULTED):
                reasons.append((t, f"{t.state} ({t.state_reason})"))
            else:
                from amddbg.replay.causes import wave_activity

                reasons.append((t, wave_activity(program, t)))
        for t in at:
            blocked_by[t.number] = {m.number for m in missing}
        summary = (f"workgroup ({wg[0]},{wg[1]},{wg[2]}): {len(at)} of {expected} waves wait at the barrier "
                   f"at {_where(at[0])}; " + _reasons_text(reasons))
        if absent > 0:
            summary += f"; {absent} wave(s) already ended (they dropped out of the barrier)"
        locs = [_loc(at[0], "waiting at barrier")]
        for t, _ in reasons:  # one location per place the missing waves are
            loc = _loc(t, "missing wave")
            if not any(x["role"] == loc["role"] and x["pc"] == loc["pc"] for x in locs):
                locs.append(loc)
        branch = divergent_branch(program, at[0].pc)
        if branch is not None:
            summary += f"; the barrier sits inside the divergent branch at {branch[1]}"
            locs.append(_loc(at[0], "divergent branch", branch[0].address))
        stopped = all(t.state in (WaveState.TRAPPED, WaveState.FAULTED) or
                      (t.state is WaveState.AT_BARRIER) for t, _ in reasons)
        findings.append(Finding("barrier_deadlock", "missing_arrivals" if stopped else "waits_for_spinning_waves",
                                summary, [_wave_doc(t) for t in at] + [_wave_doc(t) for t, _ in reasons], locs,
                                {"expected": expected, "arrived": len(at), "ended": max(absent, 0)}))
    # -- which spins can end
    proven_hang = any(f.kind == "barrier_deadlock" and f.cause == "missing_arrivals" for f in findings)
    spin_groups: dict[tuple, Finding] = {}
    writers_of = _writers_of(program, waves, spin_info, blocked_by)
    # spinners whose only writers are spinners that are stuck themselves: a cycle through flags (greatest fixed
    # point: start from every spinner no other wave can release, drop those a releasable spinner may write)
    stuck = {n for n, (c, _b, _s) in writers_of.items() if not c}
    changed = True
    while changed:
        changed = False
        for n in list(stuck):
            if any(o.number not in stuck for o, _i in writers_of[n][2]):
                stuck.discard(n)
                changed = True
    for num, (t, load, polled) in spin_info.items():
        candidates, blocked, spinning = writers_of[num]
        if num not in stuck:
            continue  # someone may still write it: not provably stuck
        blocked = blocked + spinning
        value = None
        if polled:
            a = next(iter(polled.values()))
            try:
                value = int.from_bytes(program.read("global", a, 4), "little")
            except AmddbgError:
                value = None
        where = f"{next(iter(polled.values())):#x}" if polled else "an address the registers do not give"
        cause = "writer_blocked" if blocked else "no_writer"
        # one finding per polled address (waves of one -O0 loop stop at either of its two loads of the flag); by
        # load only where the registers give no address
        key = (cause, where) if polled else (cause, where, load.address)
        group = spin_groups.get(key)
        if group is None:
            locs = [_loc(t, "polling load", load.address)]
            seen = set()
            for o, i in blocked:
                loc = _loc(o, "write that never lands", i.address)
                if (loc["file"], loc["line"]) not in seen:
                    seen.add((loc["file"], loc["line"]))
                    locs.append(loc)
            var = variable_at(program, t, next(iter(polled.values()))) if polled else None
            group = spin_groups[key] = Finding("spin_forever", cause, "", [], locs,
                                               {"address": where, "value": value, "variable": var})
            findings.append(group)
        group.waves.append(_wave_doc(t))
        proven_hang = True
    for f in spin_groups.values():
        ws = f.waves
        value = f.details["value"]
        poll_pc = int(f.locations[0]["pc"], 0)
        f.summary = (f"{_who([spin_info[w['thread']][0] for w in ws])} poll{'s' if len(ws) == 1 else ''} "
                     + (f"{f.details['variable']} at " if f.details.get("variable") else "")
                     + f"{f.details['address']}" + (f" (value {value} in the core)" if value is not None else "")
                     + f" at {_where(spin_info[ws[0]['thread']][0], poll_pc)}"
                     + (" and no live wave of the dispatch can store to it" if f.cause == "no_writer" else
                        "; the only writers wait at a barrier these waves must reach first, or spin on a flag "
                        "that is never set (a cycle)"))
    if proven_hang:
        for f in findings:
            if f.kind == "barrier_deadlock" and f.cause == "waits_for_spinning_waves":
                f.cause = "missing_arrivals"
    kinds = {f.kind for f in findings}
    if "memory_violation" in kinds or "fault" in kinds:
        verdict = "fault"
    elif "trap" in kinds:
        verdict = "trap"
    elif proven_hang:
        verdict = "hang"
    elif not waves:
        verdict = "no_hang"
    else:
        verdict = "unknown"
    return Explanation(verdict, findings, {"wave_instructions": 0, "seconds": round(time.perf_counter() - t0, 4),
                                           "method": "static analysis of the saved state; replay not run"})


def _writers_of(program, waves, spin_info: dict, blocked_by: dict) -> dict:
    """Spinner -> (live waves that may store to what it polls, barrier-blocked ones, spinning ones), each a list
    of (wave, store instruction) in wave order.

    Every other wave's stores ahead are scanned once and indexed by the address they write (when the saved
    registers give it) and by the kernel-argument pointer they are based on, so a spinner looks up only the
    stores that may hit its flag: linear in the waves, where comparing every spinner with every wave was
    quadratic (150 s for 1,024 spinning waves)."""
    if not spin_info:
        return {}
    live = [o for o in waves if o.state not in (WaveState.TRAPPED, WaveState.FAULTED)]
    pointer_cache: dict = {}

    def pointer(o, insn):
        d = o.dispatch
        key = (d.kernarg_address if d is not None else None, insn.address)
        if key not in pointer_cache:
            pointer_cache[key] = _argument_pointer(program, o, insn)
        return pointer_cache[key]

    entries = []  # (order, wave, insn, addresses or None)
    by_address: dict = {}
    unknown_by_pointer: dict = {}  # stores whose address the registers do not give, by argument pointer
    all_by_pointer: dict = {}
    for o in live:
        for insn, addrs in _stores_ahead(o):
            k = len(entries)
            entries.append((o, insn, addrs))
            if addrs is not None:
                for a in set(addrs.values()):
                    by_address.setdefault(a, []).append(k)
    spinner_pointer = {num: pointer(t, load) for num, (t, load, _p) in spin_info.items()}
    for k, (o, insn, addrs) in enumerate(entries):
        theirs = pointer(o, insn)
        all_by_pointer.setdefault(theirs, []).append(k)
        if addrs is None:
            unknown_by_pointer.setdefault(theirs, []).append(k)
    out = {}
    for num, (_t, _load, polled) in spin_info.items():
        targets = set(polled.values()) if polled else set()
        origin = spinner_pointer[num]
        # (entry, known): a store is "known" when its address or its argument pointer decides whether it hits
        pool = unknown_by_pointer if targets else all_by_pointer
        relevant: dict[int, bool] = {}
        if targets:
            for a in targets:
                for k in by_address.get(a, ()):
                    relevant[k] = True
        for theirs, ks in (pool.items() if origin is None else
                           ((None, pool.get(None, ())), (origin, pool.get(origin, ())))):
            known = theirs is not None and origin is not None
            for k in ks:
                relevant.setdefault(k, known)
        candidates, blocked, spinning = [], [], []
        for k in sorted(relevant):
            o, insn, _addrs = entries[k]
            if o.number == num:
                continue
            known = relevant[k]
            if o.number in spin_info and not known:
                continue  # a spinner counts as a (blocked) writer only where the addresses show it
            # a store behind a barrier that needs this very spinner can never happen first: a cycle
            if o.number in spin_info:
                spinning.append((o, insn))
            elif num in blocked_by.get(o.number, ()):
                blocked.append((o, insn))
            else:
                candidates.append((o, insn))
        out[num] = (candidates, blocked, spinning)
    return out


def explain_core(paths, *, dispatch: int | None = None, assume=(), budget: int | None = None, symmetry: bool = True,
                 **kw) -> Explanation:
    """`explain_program` on the core(s) at `paths` (opened with `amddbg.open(paths, **kw)`, closed after)."""
    import amddbg

    prog = amddbg.open(paths, **kw)
    try:
        return explain_program(prog, dispatch=dispatch, assume=assume, budget=budget, symmetry=symmetry)
    finally:
        prog.close()


def explain_program(program, *, dispatch: int | None = None, assume=(), budget: int | None = None,
                    symmetry: bool = True) -> Explanation:
    """Static analysis of the core, then replay of its stuck dispatch (see amddbg.replay.analysis); each replay runs
    at most `budget` wave-instructions (default `amddbg.replay.replay.DEFAULT_BUDGET`)."""
    from amddbg.replay.analysis import explain_with_replay
    from amddbg.replay.where import finish

    exp = explain_with_replay(program, dispatch=dispatch, assume=assume, budget=budget, symmetry=symmetry)
    exp.findings += emulator_note_findings(program)
    finish(program, exp)  # every location's call sites through inlining (same role, "inlined_from")
    return exp


def emulator_note_findings(program) -> list[Finding]:
    """The emulator's notes in the core (amddbg.core.emunotes) as findings: each out-of-range LDS access `amddbg run`
    recorded (the hardware reads 0 or drops the write, so nothing in the state shows it, and it is nearly always a
    bug). They add to the verdict's findings, never change it."""
    core = getattr(program, "core", None)
    out = []
    for n in (core.emulator_notes if core is not None else []):
        if not n.get("kind", "").startswith("lds_"):
            continue
        src = n.get("source") if isinstance(n.get("source"), dict) else {}
        loc = {"function": src.get("function"), "file": src.get("file"), "line": src.get("line"),
               "role": "out-of-range LDS access", "pc": n["pc"]}
        where = f"{os.path.basename(src['file'])}:{src.get('line')}" if src.get("file") else n["pc"]
        verb = "read" if "read" in n["kind"] else "write"
        lanes = n["lanes"]
        out.append(Finding(
            "lds_out_of_range", verb,
            f"run: LDS {verb} past the workgroup's {n.get('requested')} bytes at {where} ({n.get('instruction')}), "
            f"lane(s) {', '.join(map(str, lanes[:8]))}{' ...' if len(lanes) > 8 else ''} at "
            f"{', '.join(map(str, n['addresses'][:4]))}: {n.get('effect')}",
            [{"workgroup": n.get("workgroup"), "wave_in_group": n.get("wave_in_group"), "lanes": lanes}], [loc],
            {"found_by": "emulator note", "requested": n.get("requested"), "allocated": n.get("allocated")}))
    return out
