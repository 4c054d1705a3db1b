"""What the saved state of a core alone proves about why its waves cannot move (no replay).

What it proves (amddbg.replay.analysis then replays the dispatch for what the saved state cannot tell; see
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

import time

from amddbg.dwarf.values import lane_ranges
from amddbg.errors import AmddbgError
from amddbg.replay.causes import wave_activity
from amddbg.replay.code import argument_pointer, lane_addresses, loop_of, stores_ahead, variable_at
from amddbg.replay.findings import Explanation, Finding
from amddbg.replay.where import place, wave_doc, wave_location, wave_where, who
from amddbg.session.threads import WaveState


def _lanes_text(ts) -> str:
    """The lanes a trap stopped (EXEC at the `s_trap`), every one (`, lanes 60-63,`), when one wave stopped (the
    wave docs give each wave's). A fault's lanes are the faulting ones: replay names them (analysis)."""
    if len(ts) != 1:
        return ""
    t = ts[0]
    text = lane_ranges(t.exec, t.lanes)
    return f", lane{'s' if bin(t.exec).count('1') != 1 else ''} {text}," if text else ""


def _reasons_text(reasons) -> str:
    """Missing waves grouped by where they are: `waves 1-2 of workgroup (0,0,0) (threads 2-3) are spinning at ...`."""
    groups: dict = {}
    for t, why in reasons:
        groups.setdefault(why, []).append(t)
    return "; ".join(f"{who(ts)} {'is' if len(ts) == 1 else 'are'} {why}" for why, ts in groups.items())


# ------------------------------------------------------------------------------------------- barrier branches


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
    return anchor, place(program, anchor.address).text()


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
                groups.setdefault((t.state_reason, wave_where(t)), []).append(t)
        for (reason, where), ts in groups.items():
            k = kind if (kind == "trap" or "memory_violation" in reason or "address" in reason) else "fault"
            what = "stopped by a trap" if kind == "trap" else "faulted"
            values = _values_at(ts[0])
            shown = "; ".join(f"{n} = {v}" for n, v in values.items() if len(v) <= 60)  # the rest: details
            lanes = _lanes_text(ts) if kind == "trap" else ""
            findings.append(Finding(k, reason, f"{who(ts)}{lanes} {what} ({reason}) at {where}"
                                    + (f"; {shown}" if shown else ""),
                                    [wave_doc(t) for t in ts], [wave_location(ts[0], "trap" if kind == "trap" else
                                                                      "faulting access")],
                                    {"values": values} if values else {}))
    # -- spin-waits
    spin_info = {}
    loops: dict = {}  # pc -> the polling loop's global loads (thousands of waves share a handful of PCs)
    for t in waves:
        if t.state not in (WaveState.SPINNING, WaveState.SLEEPING):
            continue
        if t.pc not in loops:
            loop, body = loop_of(program, t.pc)
            loops[t.pc] = [i for i in body if i.memory is not None and i.memory.is_load and i.memory.space.value in
                           ("global", "flat")]
        loads = loops[t.pc]
        if not loads:
            continue
        from amddbg.emu.memory import classify_flat

        load, polled = loads[0], None
        for cand in loads:  # at -O0 the first load reloads the flag pointer from the stack (private aperture)
            addrs = lane_addresses(t, cand)
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
                reasons.append((t, wave_activity(program, t)))
        for t in at:
            blocked_by[t.number] = {m.number for m in missing}
        summary = (f"workgroup ({wg[0]},{wg[1]},{wg[2]}): {len(at)} of {expected} waves wait at the barrier "
                   f"at {wave_where(at[0])}; " + _reasons_text(reasons))
        if absent > 0:
            summary += f"; {absent} wave(s) already ended (they dropped out of the barrier)"
        locs = [wave_location(at[0], "waiting at barrier")]
        for t, _ in reasons:  # one location per place the missing waves are
            loc = wave_location(t, "missing wave")
            if not any(x["role"] == loc["role"] and x["pc"] == loc["pc"] for x in locs):
                locs.append(loc)
        branch = divergent_branch(program, at[0].pc)
        if branch is not None:
            summary += f"; the barrier sits inside the divergent branch at {branch[1]}"
            locs.append(wave_location(at[0], "divergent branch", branch[0].address))
        stopped = all(t.state in (WaveState.TRAPPED, WaveState.FAULTED) or
                      (t.state is WaveState.AT_BARRIER) for t, _ in reasons)
        findings.append(Finding("barrier_deadlock", "missing_arrivals" if stopped else "waits_for_spinning_waves",
                                summary, [wave_doc(t) for t in at] + [wave_doc(t) for t, _ in reasons], locs,
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
            locs = [wave_location(t, "polling load", load.address)]
            seen = set()
            for o, i in blocked:
                loc = wave_location(o, "write that never lands", i.address)
                if (loc["file"], loc["line"]) not in seen:
                    seen.add((loc["file"], loc["line"]))
                    locs.append(loc)
            # (not in the JSON) the waves that would write, and whether each spins itself: causes.py asks a
            # spinning writer whether its path out of the loop really stores there
            locs[0]["_writers"] = {o.number: o.number in spin_info for o, _i in blocked}
            var = variable_at(program, t, next(iter(polled.values()))) if polled else None
            group = spin_groups[key] = Finding("spin_forever", cause, "", [], locs,
                                               {"address": where, "value": value, "variable": var})
            findings.append(group)
        group.waves.append(wave_doc(t))
        proven_hang = True
    for f in spin_groups.values():
        ws = f.waves
        value = f.details["value"]
        poll_pc = int(f.locations[0]["pc"], 0)
        f.summary = (f"{who([spin_info[w['thread']][0] for w in ws])} poll{'s' if len(ws) == 1 else ''} "
                     + (f"{f.details['variable']} at " if f.details.get("variable") else "")
                     + f"{f.details['address']}" + (f" (value {value} in the core)" if value is not None else "")
                     + f" at {wave_where(spin_info[ws[0]['thread']][0], poll_pc)}"
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
            pointer_cache[key] = argument_pointer(program, o, insn)
        return pointer_cache[key]

    entries = []  # (order, wave, insn, addresses or None)
    by_address: dict = {}
    unknown_by_pointer: dict = {}  # stores whose address the registers do not give, by argument pointer
    all_by_pointer: dict = {}
    for o in live:
        for insn, addrs in stores_ahead(o):
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
