"""The hang explainer: static analysis of the core, then replay of its stuck dispatch in the emulator.

Order of reasoning (each step only adds what the previous could not prove):
1. `static_explanation` reads the saved state: traps and faults, barrier waits with their missing waves,
   spin-waits nobody can end (``no_writer``, ``writer_blocked``).
2. A dispatch that stopped at a fault or trap is explained by that; nothing runs after it on hardware.
3. Replay (`amddbg.replay.replay`) runs the waves forward from the core with every cache empty — the most
   visible order the memory model allows:
   - the machine state repeats or no wave can move: the hang is proven for this machine; the findings are the
     static ones, or (when the core alone proved nothing) those of the replayed final state;
   - every wave ends: the core is slow, not stuck — unless a spinning wave only got out because replay let it
     see a write its own load could not: its polling load acquires at a scope that does not include the writer
     (a wave of another workgroup) and the wave's saved registers show it last read another value. That is
     ``spin_forever`` / ``not_visible``: replay pins the wave's cache line to the value it read (an order the
     model allows) to show it spins forever, then replays the fix (acquire at agent scope at the polling load)
     and reports whether the loop then ends;
   - the budget (wave-instructions, `--budget`) runs out: ``unknown``, with how far replay went.
4. `--assume` changes are applied before replay; the verdict then answers "does the hang go away?".
"""

from __future__ import annotations

import os
import re
import tempfile
import time

from amddbg.dwarf.values import lane_ranges
from amddbg.errors import AmddbgError, NotSupported, UsageError
from amddbg.isa.model import OperandKind
from amddbg.replay import scalarpoll
from amddbg.replay.causes import limit_findings, refine
from amddbg.replay.code import argument_pointer, lane_addresses, loop_of, pointer_origin, stores_ahead, variable_at
from amddbg.replay.cycles import cycle_writes, group_barriers, merge_cycles
from amddbg.replay.findings import Explanation, Finding
from amddbg.replay.fromcore import ReplayUnavailable, machine_from_program
from amddbg.replay.lift import lift, lift_at
from amddbg.replay.origin import describe as describe_origin
from amddbg.replay.polls import access_width, function_constant, seen_writers, vgpr_constant
from amddbg.replay.replay import DEFAULT_BUDGET, Assumption, replay
from amddbg.replay.scopes import consistent_scope, widest_row
from amddbg.replay.static import static_explanation
from amddbg.replay.where import place, trap_pc, wave_doc, wave_list, wave_location, who
from amddbg.session.threads import WaveState

NARROW = ("wavefront", "workgroup")


def explain_with_replay(program, *, dispatch: int | None = None, assume=(), budget: int | None = None,
                        symmetry: bool = True) -> Explanation:
    """Static analysis, then replay. `budget`: wave-instructions each replay may run (default
    `replay.DEFAULT_BUDGET`); the answer depends on the core, the assumptions and the budget, never on time.
    `symmetry`: replay one workgroup per class of workgroups in the same state where that is proven to stand for
    the others (amddbg.replay.symmetry); False replays every wave."""
    budget = DEFAULT_BUDGET if budget is None else int(budget)
    if budget < 1:
        raise UsageError(f"--budget {budget}: a replay needs at least one wave-instruction")

    t0 = time.perf_counter()
    assumptions = [a if isinstance(a, Assumption) else Assumption.parse(a) for a in assume]
    if dispatch is not None and not any(dispatch in (t.dispatch_handle, t.dispatch_id) for t in program.waves):
        have = sorted({t.dispatch_handle for t in program.waves if t.dispatch_handle is not None})
        raise UsageError(f"--dispatch {dispatch}: no wave of the core belongs to it "
                         f"(dispatches with waves: {', '.join(map(str, have)) or 'none'})")
    static = static_explanation(program, dispatch=dispatch)
    info = {"wave_instructions": 0, "budget": budget, "seconds": 0.0}
    if static.verdict in ("fault", "trap") and not assumptions:
        info["method"] = "static analysis; the dispatch stopped at a fault or trap, so nothing runs after it"
        _fault_details(program, static, dispatch, info)
        return _done(static, info, t0)
    if not program.waves:
        # a damaged core that lost its waves proves nothing; only a whole core without waves is no hang
        static.verdict = "unknown" if program.warnings else "no_hang"
        info["method"] = "the core holds no GPU wave" + (
            f" it could read ({len(program.warnings)} warning(s), first: {program.warnings[0]})"
            if program.warnings else "")
        return _done(static, info, t0)
    spinners = _spinners(program, dispatch)
    watch = {num: _watch(sp) for num, sp in spinners.items()}
    try:
        r = replay(program, dispatch=dispatch, watch=watch, max_instructions=budget, symmetry=symmetry, coherent=True)
    except ReplayUnavailable as exc:
        info["method"] = f"static analysis only: replay cannot start ({exc})"
        return _done(static, info, t0)
    info.update(wave_instructions=r.total_instructions, status=r.status, reason=r.reason)
    if r.symmetry:
        info["symmetry"] = r.symmetry
    if r.followed:  # (popped by _done: which waves each finding names were proven by symmetry)
        info["_followed"] = {t.number: (tuple(t.workgroup or ()), t.wave_in_group) for t in program.waves
                             if t.number in r.followed}
        info["symmetry_waves"] = {"replayed": len(r.state.threads) - len(r.followed), "followed": len(r.followed),
                                  "followed_threads": wave_list(sorted(r.followed)),
                                  "member_instructions": r.member_instructions, "member_atomics": r.member_atomics}
    misuse = _misuse_findings(program, r)
    static.findings += misuse
    nv, pins = (_not_visible(program, spinners, r, dispatch, budget, info, symmetry)
                if r.status in ("completed", "hang") else ([], {}))
    if assumptions:  # replay the what-if under the visibility order the core shows (stale lines stay stale)
        r = replay(program, dispatch=dispatch, assume=assumptions, stale=pins, watch=watch, max_instructions=budget,
                   symmetry=symmetry, coherent=not pins)
        info["wave_instructions"] += r.total_instructions
        info.update(status=r.status, reason=r.reason, assumed=r.applied)
        nv = []
    if r.status == "completed":
        if nv:
            static.findings = [f for f in static.findings if f.kind != "spin_forever"] + nv
            _mark_proven(static.findings)
            static.verdict = "hang"
            info["method"] = ("replay from the core: with the written value visible the spin ends; the wave's "
                              "load cannot see it (scope), so under the order the model allows it spins forever")
            _schedule_dependent(nv, info)
            return _done(static, info, t0)
        if info.get("unliftable") and not assumptions:
            # the spin ends once the write is visible, but whether the polling load can see it depends on the
            # scope its code sequence has, which cannot be read for this processor: neither hang nor slow is known
            processor = program.code_object_at(spinners[info["unliftable"][0]]["load"].address).processor
            info["method"] = (f"replay from the core: with the written value visible every wave ends, but the "
                              f"memory-model code sequences of {processor.split(':')[0]} are not implemented "
                              f"(amddbg/replay/lift.py), so whether the polling load can see that write is unknown")
            return _done(Explanation("unknown", list(misuse), {}), info, t0)
        exp = Explanation("no_hang", list(misuse), {})
        exp.findings.append(Finding("no_hang", "assumption_fixes_it" if assumptions else "slow_not_stuck",
                                    ("with " + "; ".join(a.text for a in assumptions) + " every wave ends"
                                     if assumptions else "replay from the core ran every wave to its end: the "
                                     "dispatch was slow, not stuck") + f" ({r.wave_instructions} wave-instructions)",
                                    [], [], {}))
        info["method"] = "replay from the core"
        return _done(exp, info, t0)
    if r.status == "hang":
        info["method"] = "replay from the core: " + r.reason
        escaped = _other_schedules(program, dispatch, assumptions, pins, info,
                                   schedule_budget(budget, r.wave_instructions), symmetry)
        info.setdefault("schedule_dependent", escaped is not None)
        if escaped is not None:
            exp = Explanation("unknown", static.findings, {})
            info["method"] += (f"; but under the seeded schedule {escaped} every wave ends: the hang depends on "
                               "the schedule")
            info["schedule_dependent"] = True
            return _done(exp, info, t0)
        if not assumptions:  # (a fault or trap in the core returned above)
            exp = static
            exp.findings += _dynamic_spins(program, r, exp.findings)
            _fill_addresses(program, r, exp.findings)
            if nv:  # waves that got out of their loop only because replay let them see the write
                mine = {(tuple(w["workgroup"] or ()), w["wave_in_group"]) for f in nv for w in f.waves}
                exp.findings = [f for f in exp.findings if f.kind != "spin_forever" or not any(
                    (tuple(w["workgroup"] or ()), w["wave_in_group"]) in mine for w in f.waves)] + nv
            _find_cycles(program, exp.findings, dispatch, budget, info, symmetry)
            cycle_writes(program, exp.findings, dispatch, budget, info, symmetry)
            if nv:
                _schedule_dependent(nv, info)
            refine(program, r, exp.findings, dispatch, budget, info)
            # after refine: a spin it finds to be a SIMT lock (the holder is a lane of the spinning wave itself,
            # `why: same_wave`) is no cycle with the barrier's waiters, whatever stores follow their barrier
            exp.findings = merge_cycles(exp.findings, program)
            if not any(f.kind in ("barrier_deadlock", "spin_forever") for f in exp.findings):
                # the core caught the waves before they got stuck: explain the state replay reached
                reached = [f for f in _explain_replayed(r, dispatch).findings if f.kind != "barrier_misuse"]
                for f in reached:
                    f.details.setdefault("found_by", "replay")
                exp.findings = reached + exp.findings
            if not any(f.kind in ("barrier_deadlock", "spin_forever") for f in exp.findings):
                exp.findings = _barrier_objects(program, r) + exp.findings
            _mark_proven(exp.findings)
            if exp.findings:
                exp.verdict = "hang"
                return _done(exp, info, t0)
        found = _explain_replayed(r, dispatch)
        found.verdict = "hang" if found.verdict in ("hang", "unknown") else found.verdict
        if not found.findings:
            found.findings.append(Finding("hang", "state_repeats", f"replay from the core: {r.reason}", [], [], {}))
        return _done(found, info, t0)
    if r.status in ("fault", "trap") and static.verdict == "hang" and not assumptions:
        # the core already proves the hang; a replay fault on memory the core does not hold (a lightweight core,
        # or a hand-made one) is no reason to doubt it
        info["method"] = (f"static analysis of the saved state; replay stopped after {r.wave_instructions} "
                          f"wave-instructions ({r.reason}; is that memory in the core?)")
        return _done(static, info, t0)
    if r.status in ("fault", "trap"):
        found = Explanation(r.status, _stopped_findings(r) + misuse, {})
        info["method"] = "replay from the core ran into a " + r.status
        return _done(found, info, t0)
    # limit or unsupported: keep what the core alone proves
    if r.status == "limit" and not assumptions:
        stuck = limit_findings(program, r, dispatch)
        if stuck:
            static.findings = [f for f in static.findings if f.kind != "spin_forever"] + stuck
            static.verdict = "hang"
            info["method"] = (f"replay from the core ({r.reason}) and the code: the waves' loops cannot exit "
                              "(their exit tests read only registers the loops never change)")
            return _done(static, info, t0)
    info["method"] = f"static analysis; replay stopped without an answer ({r.reason})"
    return _done(static, info, t0)


def _schedule_dependent(nv: list, info: dict) -> None:
    """A `not_visible` hang depends on the schedule: the reader's stale line was filled before the write reached
    L2, and a schedule in which the write comes first lets the same loads see it (`amddbg run --explore N` finds
    such seeds). Said in the method text, `replay.schedule_dependent` and each finding's details."""
    for f in nv:
        f.details["schedule_dependent"] = True
    info["schedule_dependent"] = True
    info["method"] += ("; the hang depends on the schedule: it happens when the polling wave's cache line is "
                       "filled before the write reaches L2, and a schedule where the write comes first ends")


SCHEDULES = (1, 2)  # seeded schedules replayed after a hang (odd: another launch order; even: shuffled turns)
SCHEDULE_MIN = 50_000  # wave-instructions a seeded schedule may always run (within --budget)
SCHEDULE_FACTOR = 4  # ... or this many times what the main replay needed to prove the hang


def schedule_budget(budget: int, main: int) -> int:
    """Wave-instructions for each seeded schedule after a proven hang: a seeded schedule cannot use the quiet
    fingerprint (its random turns are not part of the state), so a hang it does not escape often runs to its
    limit. Enough to let every wave run well past where the main replay proved the hang, never more than
    `budget`; a function of the core and the options only."""
    return min(budget, max(SCHEDULE_MIN, SCHEDULE_FACTOR * main))


def _other_schedules(program, dispatch, assumptions, pins, info: dict, budget: int, symmetry: bool = True
                     ) -> int | None:
    """Replay a proven hang under a few other fair schedules; the seed under which every wave ends, or None."""
    tried = [0]
    for seed in SCHEDULES:
        try:
            r = replay(program, dispatch=dispatch, assume=assumptions, stale=pins, seed=seed, max_instructions=budget,
                       symmetry=symmetry, coherent=not pins)
        except AmddbgError:
            break
        tried.append(seed)
        info["wave_instructions"] = info.get("wave_instructions", 0) + r.total_instructions
        if r.status == "completed":
            info["schedules"] = tried
            return seed
    info["schedules"] = tried
    return None


def _barrier_objects(program, r) -> list[Finding]:
    """Barrier deadlocks read from the emulator's barrier objects after replay: objects with waiting waves whose
    arrive count falls short of the expected count (what the saved PCs alone cannot show, e.g. a wave that waits
    on a GFX12 barrier it never signalled)."""
    threads = {(tuple(t.workgroup or ()), t.wave_in_group): t for t in program.waves}
    waves = {(tuple(w.workgroup), w.wave_in_group): w for w in r.machine.waves}
    out = []
    clusters_done: set = set()
    followers = _member_workgroups(program, r)
    for g in r.machine.barrier_view():
        for b in g["barriers"]:
            if not b["waiting"] or b["arrived"] >= b["expected"]:
                continue
            if "cluster" in b and tuple(b["cluster"]) in clusters_done:
                continue  # (one finding per cluster: its first workgroup with waiting waves lists them all)
            wg = tuple(g["workgroup"])
            members = [waves[(wg, n)] for n in b["waiting"] if (wg, n) in waves]
            locs = []
            for w in members[:1]:
                t = threads.get((wg, w.wave_in_group))
                if t is not None:
                    locs.append(wave_location(t, "waiting at barrier", w.pc))
            if "cluster" in b:  # GFX12.5 cluster barrier -3: workgroups arrive, any wave of the cluster waits
                clusters_done.add(tuple(b["cluster"]))
                out.append(_cluster_barrier_finding(r.machine, wg, b, locs))
                continue
            never = [n for n in b["waiting"] if n not in b["arrivals"]]
            summary = (f"workgroup {wg}: barrier {b['id']} expects {b['expected']} arrivals and has {b['arrived']} "
                       f"(waves {', '.join(map(str, b['arrivals'])) or 'none'}); waves "
                       f"{', '.join(map(str, b['waiting']))} wait on it" +
                       (f"; wave(s) {', '.join(map(str, never))} wait without having arrived" if never else ""))
            for g2 in [wg, *followers.get(wg, ())]:  # (members of its class: the same state, by symmetry)
                locs2 = locs
                if g2 != wg:
                    t2 = threads.get((g2, members[0].wave_in_group)) if members else None
                    locs2 = [wave_location(t2, "waiting at barrier", members[0].pc)] if t2 is not None else []
                out.append(Finding("barrier_deadlock", "missing_arrivals", summary.replace(f"workgroup {wg}:",
                                                                                           f"workgroup {g2}:", 1),
                                   [{"workgroup": list(g2), "wave_in_group": n} for n in b["waiting"]], locs2,
                                   {"barrier": b["id"], "expected": b["expected"], "arrived": b["arrived"],
                                    "found_by": "replay"}))
    # in dispatch order (z, y, x), whether or not members were added after their representatives
    clustered = [f for f in out if "cluster" in f.details]
    plain = sorted((f for f in out if "cluster" not in f.details),
                   key=lambda f: tuple(reversed(f.waves[0]["workgroup"])) if f.waves else ())
    return clustered + plain


def _member_workgroups(program, r) -> dict:
    """Replay by symmetry: representative workgroup -> the workgroups that follow it (what the replayed machine
    shows for the representative holds for them: the same state, the same barrier objects, the same misuse)."""
    followed = getattr(r, "followed", None) or {}
    if not followed:
        return {}
    wg_of = {t.number: tuple(t.workgroup or ()) for t in program.waves}
    out: dict = {}
    for member, rep in followed.items():
        g, rg = wg_of.get(member), wg_of.get(rep)
        if g is not None and rg is not None and g != rg:
            out.setdefault(rg, [])
            if g not in out[rg]:
                out[rg].append(g)
    return out


def _cluster_barrier_finding(m, wg: tuple, b: dict, locs: list) -> Finding:
    """A cluster barrier short of arrivals: which workgroups of the cluster never arrived (one wave of each
    workgroup arrives for it; amddbg/emu/clusters.py)."""
    cl = m.clusters
    cluster = tuple(b["cluster"])
    members = [tuple(g.id) for g in m.groups if cl is not None and cl.cluster_of(g.id) == cluster]
    cb = cl.barriers.get(cluster) if cl is not None else None
    dropped = cb.dropped if cb is not None else set()
    arrived = [tuple(a) for a in b["arrivals"]]
    missing = [g for g in members if g not in arrived and g not in dropped]
    waves = [(tuple(g.id), w.wave_in_group) for g in m.groups if tuple(g.id) in members for w in g.waves
             if cb is not None and w.index in cb.waiting]
    fmt = ", ".join
    summary = (f"cluster {cluster} ({len(members)} workgroups): cluster barrier -3 expects {b['expected']} workgroup "
               f"arrivals and has {b['arrived']} ({fmt(map(str, arrived)) or 'none'}); "
               f"{fmt(map(str, missing)) or 'no workgroup'} never arrived; {len(waves)} wave(s) of "
               f"workgroup(s) {fmt(map(str, dict.fromkeys(g for g, _ in waves)))} wait on it")
    return Finding("barrier_deadlock", "missing_arrivals", summary,
                   [{"workgroup": list(g), "wave_in_group": n} for g, n in waves], locs,
                   {"barrier": -3, "cluster": list(cluster), "expected": b["expected"], "arrived": b["arrived"],
                    "missing_workgroups": [list(g) for g in missing], "found_by": "replay"})


def _misuse_findings(program, r) -> list[Finding]:
    """Barrier misuse the emulator's barrier objects recorded during replay (the execution-synchronization spec's
    rules: a wait on a named barrier the wave did not join, arrive then drop, a drop below zero, ...)."""
    threads = {(tuple(t.workgroup or ()), t.wave_in_group): t for t in program.waves}
    followers = _member_workgroups(program, r)
    groups: dict = {}
    for m in getattr(r.machine, "barrier_misuse", []) or []:
        for g2 in [tuple(m["workgroup"]), *followers.get(tuple(m["workgroup"]), ())]:
            groups.setdefault((m["kind"], m["barrier"], m["pc"]), []).append({**m, "workgroup": g2})
    out = []
    for (kind, bid, pc), ms in groups.items():
        # in dispatch order (z, y, x), whether or not members were added after their representatives
        ms.sort(key=lambda m: (tuple(reversed(tuple(m["workgroup"]))), m["wave_in_group"] or 0))
        t = threads.get((tuple(ms[0]["workgroup"]), ms[0]["wave_in_group"]))
        loc = wave_location(t, "misuse", pc) if t is not None else {"function": None, "file": None, "line": None,
                                                            "role": "misuse", "pc": f"{pc:#x}"}
        where = place(program, pc).text()
        waves = [{"workgroup": list(m["workgroup"]), "wave_in_group": m["wave_in_group"]} for m in ms]
        out.append(Finding("barrier_misuse", kind, f"replay: {len(ms)} wave(s) misuse barrier {bid} at {where}: "
                           f"{ms[0].get('detail') or kind}", waves, [loc], {"barrier": bid, "found_by": "replay"}))
    return out


def _mark_proven(findings: list) -> None:
    """Replay proved the hang: the waves a barrier misses will never arrive."""
    for f in findings:
        if f.kind == "barrier_deadlock":
            f.cause = "missing_arrivals"


def _done(exp: Explanation, info: dict, t0: float) -> Explanation:
    exp.findings = group_barriers(merge_cycles(exp.findings))
    followed = info.pop("_followed", None)
    if followed:
        _attribute(exp.findings, followed)
    if info.get("symmetry") and "method" in info:
        info["method"] += "; " + info["symmetry"]
    info["seconds"] = round(time.perf_counter() - t0, 4)
    exp.replay = info
    return exp


def _attribute(findings: list, followed: dict) -> None:
    """Each finding that names waves a replay by symmetry did not run says so: how many of its waves replay ran,
    how many follow their class's representative (JSON `by_symmetry`, a line under the summary in text).
    `followed`: member thread -> (workgroup, wave in group); a finding's wave is matched by its thread, or by its
    place when it names none (barrier findings read from the replayed machine)."""
    by_place = {place: num for num, place in followed.items()}
    for f in findings:
        docs = [w for w in f.waves if isinstance(w, dict)]
        mine = []
        for w in docs:
            num = w.get("thread")
            if num is None:
                num = by_place.get((tuple(w.get("workgroup") or ()), w.get("wave_in_group")))
            if num in followed:
                mine.append(num)
        if mine:
            f.by_symmetry = {"replayed": len(docs) - len(mine), "followed": len(mine),
                             "threads": wave_list(sorted(mine))}


def _explain_replayed(r, dispatch) -> Explanation:
    """Static analysis of the replayed final state (written as a core and reopened)."""
    import amddbg

    fd, path = tempfile.mkstemp(suffix=".gpu", prefix="amddbg-replay-")
    os.close(fd)
    try:
        r.machine.write_core(path)
        prog = amddbg.open(path)
        try:
            return static_explanation(prog)
        finally:
            prog.close()
    finally:
        os.unlink(path)


def _fault_details(program, exp: Explanation, dispatch, info: dict) -> None:
    """The faulting lanes and addresses of a memory violation: the saved PC is the faulting access, so the rebuilt
    wave executes it once more and the emulator says which lanes touched which unmapped address; the address is
    named by the kernel argument it came from when it lies past one (`out[1048576]`)."""
    faults = [f for f in exp.findings if f.kind == "memory_violation"]
    if not faults:
        return
    try:
        state = machine_from_program(program, dispatch=dispatch)
    except (ReplayUnavailable, AmddbgError):
        return
    m = state.machine
    by_thread = {t.number: w for w, t in state.threads.items()}
    for f in faults:
        for doc in f.waves[:1]:
            w = by_thread.get(doc.get("thread"))
            if w is None:
                continue
            fault, lanes = _every_faulting_lane(m, w)
            if fault is None:
                continue
            text = lane_ranges(lanes, w.lanes)
            scalar = not fault.lanes
            t = state.threads[w]
            origin = describe_origin(program, t, w.pc, fault.address, fault.lanes[0] if fault.lanes else None,
                                     [ln for ln in range(w.lanes) if lanes >> ln & 1])
            var = None if origin else variable_at(program, t, fault.address, window=1 << 40)  # a wild index too
            f.details.update(access=fault.what, address=f"{fault.address:#x}", lanes=text, scalar=scalar,
                             **({"variable": var} if var else {}), **({"origin": origin} if origin else {}))
            by = (f"by the wave (a scalar access; active lane{'s' if bin(lanes).count('1') > 1 else ''} {text})"
                  if scalar else f"by lane{'s' if bin(lanes).count('1') > 1 else ''} {text}")
            f.summary += (f": {fault.what} of unmapped address {fault.address:#x} {by}"
                          + (f" ({var})" if var else "") + (f": {origin}" if origin else ""))
    info["wave_instructions"] = info.get("wave_instructions", 0) + len(faults)


def _every_faulting_lane(m, w):
    """(first fault, mask of every lane whose access faults): the emulator stops at the first faulting lane, so the
    access is executed again without the lanes found so far until it no longer faults (the PC stays on it)."""
    first, lanes = None, 0
    exec_mask, pc = w.exec, w.pc
    for _ in range(w.lanes):
        w.state = "ready"
        w.fault = None
        w.pc = pc  # the trap handler's entry moved it past the access
        m.step_wave(w)  # a memory violation stops the wave; the exception is kept on it
        fault = getattr(w, "fault", None)
        if w.state == "faulted" and fault is not None and not fault.lanes and first is None:
            first, lanes = fault, exec_mask  # a scalar access: the wave's, made for the lanes active at it
            break
        if w.state != "faulted" or fault is None or not fault.lanes:
            break
        first = first or fault
        for ln in fault.lanes:
            lanes |= 1 << ln
        w.exec = exec_mask & ~lanes
        if not w.exec:
            break
    w.exec, w.pc = exec_mask, pc
    return first, lanes


def _stopped_findings(r) -> list[Finding]:
    """Faults and traps replay ran into, from the emulator's waves (their core threads give the source)."""
    groups: dict = {}
    for w, t in r.state.threads.items():
        if w.state not in ("faulted", "trapped"):
            continue
        groups.setdefault((w.state, w.reason, w.pc), []).append((w, t))
    out = []
    for (state, reason, pc), members in groups.items():
        w, t = members[0]
        kind = "trap" if state == "trapped" else "memory_violation"
        if kind == "trap":
            pc = trap_pc(t.program, pc)  # the s_trap's line, not the next statement's
        loc = wave_location(t, "trap" if kind == "trap" else "faulting access", pc)
        where = place(t.program, pc).text()
        waves = [{"workgroup": list(x.workgroup), "wave_in_group": x.wave_in_group,
                  "lanes": lane_ranges(x.exec, x.lanes), "thread": y.number, "target_id": y.target_id}
                 for x, y in members]
        if kind == "trap":
            from amddbg.core.arch import TRAP_IDS

            cause = TRAP_IDS.get(w.trap_id, f"trap_{w.trap_id}") if w.trap_id else "trap"
        else:
            cause = "memory_violation"  # the stop reason amd-dbgapi gives (TRAPSTS.XNACK_ERROR), as in cores
        out.append(Finding(kind, cause, f"replay from the core reaches this: {who([y for _x, y in members])} "
                           f"{'trap' if kind == 'trap' else 'fault'} at {where}: {reason}", waves, [loc],
                           {"found_by": "replay", "reason": reason}))
    return out


# ------------------------------------------------------------------------------------------- spin-waits


def _spinners(program, dispatch) -> dict:
    """Spinning waves: thread number -> {thread, loop (lo, hi), load, polled {lane: address}, ret}. Any wave whose PC
    is in a backward-branch loop with a global load (a wave spinning without s_sleep is saved halted by the
    debugger; replay tells slow from stuck), or in a function called from such a loop (-O0's call to
    __threadfence_block() in the loop): then `ret` is the return address in the loop, and its registers are the
    callee's (`polled` is empty)."""
    out = {}
    for t in program.waves:
        if dispatch is not None and dispatch not in (t.dispatch_handle, t.dispatch_id):
            continue
        if t.state not in (WaveState.SPINNING, WaveState.SLEEPING, WaveState.RUNNING, WaveState.HALTED):
            continue  # halted: a core written at a hang halts its waves wherever they were, spin loops included
        loop, body = loop_of(program, t.pc)
        ret = None
        if loop is None:
            ret = _caller_pc(t)
            if ret is None:
                continue
            loop, body = loop_of(program, ret)
            if loop is None:
                continue
        loads = [i for i in body if i.memory is not None and i.memory.is_load and
                 i.memory.space.value in ("global", "flat")]
        scalar = not loads
        if scalar:  # a poll clang -O2 compiled to s_load (amddbg.replay.scalarpoll)
            loads = [i for i in body if scalarpoll.is_scalar_load(i)]
        if not loads:
            continue
        where = scalarpoll.lane_addresses if scalar else lane_addresses
        out[t.number] = {"thread": t, "loop": loop, "body": body, "load": loads[0], "ret": ret,
                         "polled": (where(t, loads[0]) or {}) if ret is None else {}}
    return out


def _caller_pc(t) -> int | None:
    """The return address of the wave's innermost (not inlined) frame, or None."""
    try:
        frames = t.frames()
    except AmddbgError:
        return None
    for f in frames[1:]:
        if not getattr(f, "inline_depth", 0) and getattr(f, "pc", None) not in (None, t.pc):
            return f.pc
    return None


def _watch(sp: dict) -> tuple:
    """What replay watches for a spinner: its loop, and where it comes back to it when it is in a callee."""
    return sp["loop"] + ((sp["ret"],) if sp.get("ret") is not None else ())


def _fill_addresses(program, r, findings: list) -> None:
    """Spin findings whose polled address the saved registers did not give: take it from the loads replay saw
    those waves repeat."""
    from collections import Counter

    for f in findings:
        if f.kind != "spin_forever" or str(f.details.get("address", "")).startswith("0x"):
            continue
        seen = Counter(a for w in f.waves for _pc, a in r.loads.get(w.get("thread"), []))
        if not seen:
            seen = Counter(("local", a) for w in f.waves for _pc, a in r.lds_loads.get(w.get("thread"), []))
        if not seen:
            continue
        t = next((x for x in program.waves if x.number == f.waves[0].get("thread")), None)
        ranked = seen.most_common()
        address = ranked[0][0]
        if t is not None and not isinstance(address, tuple) and not variable_at(program, t, address):
            # as in _dynamic_spins: a launch value -O0 reloads as often (the dispatch packet's sizes) is not the flag
            address = next((a for a, n in ranked if n >= ranked[0][1] and not isinstance(a, tuple)
                            and variable_at(program, t, a)), address)
        value, shown = _flag_value(program, t, address)
        f.details.update(address=shown, value=value, address_found_by="replay")
        f.summary = f.summary.replace("an address the registers do not give",
                                      shown + (f" (value {value} in the core)" if value is not None else ""))


def _find_cycles(program, findings: list, dispatch, budget: int, info: dict, symmetry: bool = True) -> None:
    """A `no_writer` spin whose flag another spinning group would write once released is a cycle through flags:
    replay with that group's flag set (1) and see where its waves store (path-sensitive, unlike a code scan)."""
    spins = [f for f in findings if f.kind == "spin_forever" and f.details.get("address", "").startswith("0x")]
    if len(spins) < 2:
        return
    threads = {t.number: t for t in program.waves}
    for other in spins:
        if not any(f is not other and f.cause == "no_writer" and f.details["address"] != other.details["address"]
                   for f in spins):
            continue  # setting a flag the spinner polls itself tells nothing about a cycle (and replays every wave)
        try:
            r = replay(program, dispatch=dispatch, assume=[Assumption.parse(f"mem:{other.details['address']}=1")],
                       max_instructions=budget, symmetry=symmetry)
        except (AmddbgError, UsageError):
            continue
        info["wave_instructions"] = info.get("wave_instructions", 0) + r.total_instructions
        theirs = {w["thread"] for w in other.waves}
        for f in spins:
            if f is other or f.cause != "no_writer":
                continue
            target = int(f.details["address"], 16)
            hits = [(n, pc) for n in theirs for pc, a in r.stores.get(n, []) if a == target]
            if hits:
                n, pc = hits[0]
                f.cause = "writer_blocked"
                f.locations.append(wave_location(threads[n], "write that never lands", pc))
                f.summary = f.summary.split(" and no live wave")[0] + (
                    f"; its only writer spins itself (on {other.details['address']}): a cycle through flags")


def _flag_value(program, t, address) -> tuple[int | None, str]:
    """(value in the core, printable address) of a polled flag: a global address, or ("local", offset) in the
    wave's workgroup's LDS (ROCgdb's `local#0x...` spelling)."""
    if isinstance(address, tuple):
        shown = f"local#{address[1]:#x}"
        try:
            return int.from_bytes(program.read("local", address[1], 4, thread=t), "little"), shown
        except AmddbgError:
            return None, shown
    try:
        return int.from_bytes(program.read("global", address, 4), "little"), f"{address:#x}"
    except AmddbgError:
        return None, f"{address:#x}"


def _dynamic_spins(program, r, static_findings) -> list[Finding]:
    """Spin findings for the waves the replay saw polling (the loads they kept repeating until the state repeated)
    that the saved registers alone could not explain (e.g. -O0 code reloading the flag pointer from the stack)."""
    from collections import Counter

    covered = {(tuple(w["workgroup"] or ()), w["wave_in_group"]) for f in static_findings
               if f.kind == "spin_forever" for w in f.waves}
    threads = {t.number: t for t in program.waves}
    at_barrier = [t for t in program.waves if t.state is WaveState.AT_BARRIER]
    groups: dict = {}
    for w, t in r.state.threads.items():
        if w.state not in ("ready", "sleeping", "at waitcnt") or (tuple(t.workgroup or ()), t.wave_in_group) in covered:
            continue
        # a load it repeated; or, when replay proved the state repeats before a second iteration (a long -O0 loop),
        # the one load of the loop the wave is in
        loop, _body = loop_of(program, w.pc)
        need = 1 if loop is not None and r.status == "hang" else 2
        seen = r.loads.get(t.number) or []
        local = False
        if len(seen) < need:
            seen, local = r.lds_loads.get(t.number) or [], True
        if len(seen) < need:
            continue
        ranked = Counter(seen).most_common()
        (pc, address), n = ranked[0]
        if not local and not variable_at(program, t, address):
            # -O0 loops reload launch values too (`nblocks()` reads the grid and work-group sizes from the dispatch
            # packet every iteration, as often as the flag): prefer a load as frequent from a kernel argument's
            # buffer or a global variable, which is what the loop waits for
            (pc, address), n = next((x for x in ranked if x[1] >= n and variable_at(program, t, x[0][1])),
                                    ranked[0])
        if n < need or (n < 2 and not loop[0] <= pc <= loop[1]):
            continue
        if local:
            address = ("local", address)
        blocked = []
        for o in at_barrier:
            if o.workgroup != t.workgroup:
                continue
            for insn, addrs in stores_ahead(o, lds=local):
                if addrs is None or address in set(addrs.values()):
                    blocked.append((o, insn))
        src = program.symbolize(pc)
        line = src[0].line if src else None
        blocked = [(o, i) for o, i in blocked if i.memory.is_atomic or not program.symbolize(i.address) or
                   program.symbolize(i.address)[0].line != line]
        key = ("writer_blocked" if blocked else "no_writer", address, line if line else pc)
        groups.setdefault(key, {"waves": [], "blocked": blocked, "thread": threads[t.number], "pc": pc}
                          )["waves"].append(t)
    out = []
    for (cause, address, _where), g in groups.items():
        t, pc = g["thread"], g["pc"]
        locs = [wave_location(t, "polling load", pc)]
        seen_lines = set()
        for o, i in g["blocked"]:
            loc = wave_location(o, "write that never lands", i.address)
            if (loc["file"], loc["line"]) not in seen_lines:
                seen_lines.add((loc["file"], loc["line"]))
                locs.append(loc)
        value, shown = _flag_value(program, t, address)
        var = variable_at(program, t, address) if not isinstance(address, tuple) else None
        if var:
            shown = f"{var} at {shown}"
        ws = g["waves"]
        verb = "keeps" if len(ws) == 1 else "keep"
        summary = (f"{who(ws)} {verb} polling {shown}"
                   + (f" (value {value} in the core)" if value is not None else "")
                   + f" at {place(program, pc).text()}"
                   + (": the only writers wait at a barrier these waves must reach first" if cause == "writer_blocked"
                      else ": replay ran every other wave on and none stores to it"))
        out.append(Finding("spin_forever", cause, summary, [wave_doc(x) for x in ws], locs,
                           {"address": shown, "space": "local" if isinstance(address, tuple) else "global",
                            "value": value, "found_by": "replay"}))
    return out


def _last_read(t, load, body) -> int | None:
    """The value the wave's polling load last returned, when its destination register still holds it (no other
    instruction of the loop writes it): first active lane, as a 32-bit word."""
    if not t.active_lanes:
        return None
    dest = scalarpoll.kept_dest(load, body, OperandKind.VGPR)
    if dest is None:
        return None
    try:
        return t.registers.read_named(f"v{dest.register}", lane=t.active_lanes[0]) & 0xFFFFFFFF
    except AmddbgError:
        return None


def _acquire_scope(program, t, load) -> tuple[str, str, bool]:
    """(scope, how we know, plain) of the polling load's acquire, from the lifted code sequence (of the load's
    function: the wave may be in a function its loop calls). `plain`: the bytes are those of a plain (non-atomic)
    load -- which has no scope at all -- and of atomic loads up to `scope` alike; the wording says the load is
    plain and which atomic loads compile the same, never a scope narrower than the user may have written."""
    processor = program.code_object_at(load.address).processor.split(":")[0]
    try:
        insns = program.disassemble(load.address)
        op = lift_at(insns, processor, load.address)
        if op is not None and op.scope != "unknown":
            scope, words = consistent_scope(op, "acquire")  # never narrower than the code may have been written with
            plain_row = next((r for r in getattr(op, "rows", ()) or () if "atomic" not in r.split()), None)
            if plain_row is not None:
                _, atomic = consistent_scope(op)
                atomic = atomic.removeprefix("relaxed, ")
                # the bytes cannot tell which the user wrote: name both, the plain load first (it has no scope)
                return scope, (f"a plain (non-atomic) load or an atomic load at {atomic} (both compile to the "
                               f"same code: {plain_row})"), True
            row = widest_row(op, scope, "acquire") or (op.rows[0] if op.rows else f"{op.order} {op.kind}")
            return scope, f"{words} ({row})", False

    except ImportError:
        return (*_scope_from_bits(processor, load), False)
    except NotSupported:
        return "unknown", NO_TABLE, False
    except AmddbgError:
        pass
    return "unknown", "no memory-model code sequence matches the polling load", False


NO_TABLE = "no memory-model code-sequence table for the processor"


def _scope_from_bits(processor: str, load) -> tuple[str, str]:
    """The widest cache the load's policy bits reach (used only while the lifter is absent)."""
    p = load.memory.cache_policy
    if processor.startswith("gfx12"):
        wide = int(p.get("scope", 0) or 0) >= 2
    elif processor.startswith(("gfx94", "gfx95")):
        wide = bool(p.get("sc1"))
    elif processor.startswith(("gfx10", "gfx11")):
        wide = bool(p.get("dlc"))
    else:
        wide = bool(p.get("glc"))
    return ("agent" if wide else "workgroup"), "the load's cache-policy bits"


def _writers(program, t, load) -> list:
    """Stores and RMWs of the spinner's function that may write the polled location (same kernel-argument pointer
    where the code shows it; plain stores only through that very pointer or where the code does not show the
    pointer), with their lifted release scope in words and its narrowest reading:
    [(insn, "workgroup scope or narrower" | "non-atomic" | ..., narrowest scope, pointer shown)]."""
    processor = program.code_object_at(load.address).processor.split(":")[0]
    try:
        insns = program.disassemble(load.address)
    except AmddbgError:
        return []
    want = pointer_origin(insns, load)
    ops = {}
    try:
        for op in lift(insns, processor):
            ops[op.pc] = op
    except ImportError:
        pass
    out = []
    for i in insns:
        mem = i.memory
        if mem is None or not (mem.is_store or mem.is_atomic) or mem.space.value not in ("global", "flat"):
            continue
        origin = pointer_origin(insns, i)
        shown = want is not None and origin is not None
        if shown and origin != want:
            continue
        op = ops.get(i.address)
        if op is None:
            out.append((i, "unknown scope", "unknown", shown))
        elif op.order == "non_atomic":  # a plain or volatile store with bits no atomic row has
            out.append((i, "non-atomic", "wavefront", shown))
        else:
            out.append((i, consistent_scope(op, "release")[1], op.scope, shown))
    return out


def _constant_address(program, t, insns, store) -> int | None:
    """The address a store writes when the code fixes it: a kernel-argument pointer (its value read from the
    kernarg segment in the core) plus a VGPR offset last set by a move of an immediate, plus the instruction's
    offset (`global_store_dword v4, v0, s[0:1]` after `v_mov_b32 v4, 0`: `flags[0]`). None otherwise."""
    base = argument_pointer(program, t, store)
    ops = [o for o in store.operands if not o.is_dest and o.kind is OperandKind.VGPR]
    if base is None or not ops or ops[0].count != 1:
        return None
    off = vgpr_constant(insns, store, ops[0])
    if off is None:
        return None
    m = re.search(r"\boffset:(-?0x[0-9a-fA-F]+|-?\d+)", store.text)
    return (base + off + (int(m.group(1), 0) if m else 0)) & 0xFFFFFFFFFFFFFFFF


def likely_writers(program, t, writers: list, value: int | None, poll_line: int | None, load=None,
                   loop: tuple[int, int] | None = None, address: int | None = None) -> list:
    """Narrow the stores that may have written the polled location: drop plain stores on the polling load's own
    line or inside the polling loop (they keep what the loop read, or mark the wait), and stores whose pointer the
    code does not show (-O0 keeps pointers on the stack) that access another width than the polling load; prefer
    stores of the constant memory now holds; when none does, a store whose pointer is not shown is named only if it
    is the only one, or the only one whose address expression is the polling load's own (slicing.same_location:
    -O0 reloads both pointers from the same stack slot); keep at most three."""
    try:
        insns = program.disassemble(t.pc)
    except AmddbgError:
        insns = []
    keep = []
    for i, words, narrow, shown in writers:
        src = program.symbolize(i.address)
        line = src[0].line if src else None
        plain = not i.memory.is_atomic
        if plain and poll_line is not None and line == poll_line:
            continue
        if plain and loop is not None and loop[0] <= i.address <= loop[1]:
            continue
        if not shown and load is not None and access_width(i) != access_width(load):
            continue
        keep.append((i, words, narrow, shown))
    if value is not None:
        exact = [w for w in keep if function_constant(program, w[0]) == value]
        if exact:
            return exact[:3]
    if address is not None:  # a store whose address the code fixes to the polled word (`flags[0] = P | agg`)
        there = [w for w in keep if _constant_address(program, t, insns, w[0]) == address]
        if there:
            return there[:3]
    unshown = [w for w in keep if not w[3]]
    if len(unshown) > 1:
        # which of them stores through the polling load's own pointer (the same stack slot at -O0)? only that one
        from amddbg.replay.slicing import same_location

        same = set(same_location(program, t, load.address, [w[0].address for w in unshown])) if load else set()
        keep = [w for w in keep if w[3] or (len(same) == 1 and w[0].address in same)]
    return keep[:3]


def _not_visible(program, spinners: dict, r, dispatch, budget: int, info: dict, symmetry: bool = True
                 ) -> tuple[list[Finding], dict]:
    """Spinners that left their loop in the fully visible replay but whose own load cannot see the write; and the
    stale lines that keep them spinning ({core thread number: (address, bytes)}) for what-if replays."""
    groups: dict = {}
    for num, sp in spinners.items():
        if num not in r.left:
            continue
        t, load = sp["thread"], sp["load"]
        polled = sp["polled"]
        lo, hi = sp["loop"]
        scalar = scalarpoll.is_scalar_load(load)
        dyn = [(pc, a) for pc, a in (r.scalar_loads if scalar else r.loads).get(num, []) if lo <= pc <= hi]
        # a word the wave itself stores to in the loop is its own counter (`ticks[t] += 1` beside the poll of
        # `*done`, read first at -O0), not what it waits for
        own = {a for pc, a in r.stores.get(num, []) if lo <= pc <= hi}
        dyn = [x for x in dyn if x[1] not in own] or dyn
        # the loop's first load where replay saw the wave make it (a core taken just after the poll resumes with
        # the loop's other loads); else the first global load replay saw in the loop (at -O0 the loop's first load
        # reloads the flag's pointer from the stack, which replay does not list)
        dyn = [d for d in dyn if d[0] == load.address][:1] or dyn
        if dyn:
            pc0, address = dyn[0]
            load = program.instruction_at(pc0) or load
        elif polled:
            address = polled[t.active_lanes[0]] if t.active_lanes and t.active_lanes[0] in polled else \
                next(iter(polled.values()))
        else:
            continue
        scope, how, plain = ((*scalarpoll.scope(program.code_object_at(load.address).processor, load), True)
                             if scalar else _acquire_scope(program, t, load))
        if how == NO_TABLE:  # (gfx1250: LLVM's GFX125x rows are not implemented in replay/lift.py)
            info.setdefault("unliftable", []).append(num)
            continue
        if scope not in NARROW:
            continue  # an acquire at agent/system scope sees any release of the agent: slow, not stuck
        try:
            now = int.from_bytes(program.read("global", address, 4), "little")
        except AmddbgError:
            continue
        seen = ((scalarpoll.last_read if scalar else _last_read)(t, load, sp["body"])
                if sp.get("ret") is None else None)  # (a callee's registers)
        # a wave of its own workgroup could write the flag where the load sees it -- unless it waits at the
        # workgroup barrier, which it cannot pass before this spinner gets there (a grid barrier's other waves)
        same_group_writer = any(o.workgroup == t.workgroup and o.number != num and o.state not in
                                (WaveState.TRAPPED, WaveState.FAULTED, WaveState.AT_BARRIER)
                                for o in program.waves if o.number not in spinners)
        if same_group_writer:
            continue
        if seen == now:  # the write came after the core: the value the visible replay left there
            try:
                now = int.from_bytes(r.machine.memory.read(address, 4), "little")
            except AmddbgError:
                continue
            if now == seen:
                continue  # it got out with the value it read: not a write it could not see
        poll_src = program.symbolize(load.address)
        # a store replay saw a spinner make elsewhere (after it left its loop) does not write the flag
        elsewhere = {pc for n in spinners for pc, a in r.stores.get(n, []) if a != address}
        every = _writers(program, t, load)
        scanned = [w for w in every if w[0].address not in elsewhere]
        poll_line = poll_src[0].line if poll_src else None
        # (last: the stores replay saw the spinners make elsewhere, when nothing else is left: one store
        # instruction can write the flag for one workgroup and another word for the next, as when -O2 merges a
        # decoupled look-back's two publications `flags[0] = P|agg` and `flags[tile] = P|sum` into one)
        seen_w = seen_writers(program, load, scanned, r, address, now)
        writers = (likely_writers(program, t, seen_w, now, poll_line, load, sp["loop"], address)
                   or likely_writers(program, t, scanned, now, poll_line, load, sp["loop"], address)
                   or likely_writers(program, t, every, now, poll_line, load, sp["loop"], address))
        groups.setdefault((address, load.address), []).append((t, sp, scope, how, now, seen, writers, plain))
    findings = []
    pins: dict = {}
    for (address, load_pc), members in groups.items():
        t, sp, scope, how, now, seen, writers, plain = members[0]
        pinned = seen if seen is not None else 0  # the value before the write is not in the core: assume 0
        stale = {m[0].number: (address, pinned.to_bytes(4, "little")) for m in members}
        stuck = replay(program, dispatch=dispatch, stale=stale, watch={m[0].number: _watch(m[1]) for m in members},
                       max_instructions=budget, symmetry=symmetry)
        info["wave_instructions"] = info.get("wave_instructions", 0) + stuck.total_instructions
        members = [m for m in members if m[0].number not in stuck.left]  # the others got out: not this cause
        if not members:
            continue
        t, sp = members[0][0], members[0][1]
        stale = {n: v for n, v in stale.items() if any(m[0].number == n for m in members)}
        pins.update(stale)
        load_loc = wave_location(t, "polling load", load_pc)
        fix = [f"acquire:agent@{load_loc['file']}:{load_loc['line']}"] if load_loc.get("file") else []
        locs = [load_loc]
        wtext = []
        for i, words, narrow, _shown in writers:
            loc = wave_location(t, "write that never becomes visible", i.address)
            if not any(x["line"] == loc["line"] and x["role"] == loc["role"] for x in locs):
                locs.append(loc)
                wtext.append(f"{place(program, i.address).text()} ({words})")
            if loc.get("file") and narrow in NARROW and f"release:agent@{loc['file']}:{loc['line']}" not in fix:
                fix.append(f"release:agent@{loc['file']}:{loc['line']}")
        fixed = None
        if fix:
            try:
                good = replay(program, dispatch=dispatch, stale=stale, assume=[Assumption.parse(x) for x in fix],
                              watch={m[0].number: _watch(m[1]) for m in members}, max_instructions=budget,
                              symmetry=symmetry)
                info["wave_instructions"] += good.total_instructions
                fixed = all(m[0].number in good.left for m in members)
            except UsageError:
                fixed = None

        last = (f"the load last returned {seen}" if seen is not None else
                f"the load's last value is not in the registers (replay pins {pinned})")
        held = (f"memory holds {now} but {last}" if now != seen else
                f"{last}, and {now} is written after the core was taken (replay, every write visible)")
        var = variable_at(program, t, address)
        scalar = scalarpoll.is_scalar_load(program.instruction_at(load_pc))
        summary = (f"{who([m[0] for m in members])} poll{'s' if len(members) == 1 else ''} "
                   f"{var + ' at ' if var else ''}{address:#x} at {place(program, load_pc).text()}: {held}; the load "
                   f"is {how}" + ("" if scalar else ", which does not make another workgroup's write visible")
                   + (f"; the write at {', '.join(wtext)}" if wtext else "; no store of this kernel to it is in view")
                   + (f"; fix: {scalarpoll.FIX}" if scalar else
                      "; needs an atomic load with acquire at agent scope (__hip_atomic_load(..., __ATOMIC_ACQUIRE, "
                      "__HIP_MEMORY_SCOPE_AGENT)) and a release at agent scope" if plain else
                      "; needs release and acquire at agent scope"))
        if fixed is not None:
            summary += (f"; replay with {' and '.join(fix)}: the loop {'ends' if fixed else 'still spins'}")
        findings.append(Finding("spin_forever", "not_visible", summary, [wave_doc(m[0]) for m in members], locs,
                                {"address": f"{address:#x}", "variable": var, "value": now, "last_read": seen,
                                 "pinned": pinned,
                                 "load_scope": scope, "plain_load": plain, "needed_scope": "agent", "fix": fix,
                                 "fix_verified": fixed,
                                 **({"cache": "scalar", "load_kind": "scalar (non-atomic)"} if scalar else {})}))
    return findings, pins
