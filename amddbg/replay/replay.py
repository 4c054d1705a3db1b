"""Replay: run a core's stuck dispatch forward in the emulator, under assumptions and visibility orders.

`replay(program)` rebuilds the dispatch's waves from the core (`fromcore`) and runs them with the emulator's
deterministic scheduler and scope-aware caches until every wave ends, a wave faults or traps, no wave can move,
or the whole machine state repeats (a hang no schedule of this machine escapes: every ready wave was scheduled
round-robin and the state came back). A budget in wave-instructions (`max_instructions`, never seconds: the
answer must not depend on the machine's load) keeps it bounded; reaching it is an honest "unknown", never a
verdict.

Visibility orders: a fresh machine's caches are empty, so its first loads see what the core's memory holds —
the most visible order. `stale` pins a wave's cache line to the bytes it last read (from its saved registers),
which the memory model allows for as long as no acquire at a scope that includes the writer refreshes it.

Assumptions (`--assume`, `Assumption.parse`) change the code or the state before the replay:
- ``acquire:SCOPE@FILE:LINE`` — loads at that line acquire at SCOPE (their cache-policy bits bypass the
  caches that SCOPE needs, as the manual's code sequences do);
- ``scope:SCOPE@FILE:LINE`` — atomics at that line (loads, stores, RMW) get SCOPE;
- ``release:SCOPE@FILE:LINE`` — stores at that line release at SCOPE (the emulator's stores write through to
  L2, so this alone changes nothing the replay can see; it is accepted so that a fix naming both sides replays);
- ``mem:ADDRESS=VALUE[:TYPE]`` — global memory holds VALUE (TYPE u8..u64/i8..i64, default u32);
- ``skip-barrier@FILE:LINE`` — the workgroup barrier at that line is removed (every wave passes it);
- ``barrier-count:N`` — every workgroup barrier expects N arrivals (waves already waiting go on when N arrived).
SCOPE is one of wavefront, workgroup, agent, system.
"""

from __future__ import annotations

import copy
import dataclasses
import os
import re
import struct
import time
from collections import deque
from dataclasses import dataclass, field

from amddbg.emu.errors import MemoryViolation
from amddbg.emu.memory import classify_flat
from amddbg.errors import AmddbgError, UsageError
from amddbg.replay.budget import DEFAULT_BUDGET
from amddbg.replay.fromcore import CoreReplayState, machine_from_program
from amddbg.replay.symmetry import SymmetryBroken, Tracker

SCOPES = ("wavefront", "workgroup", "agent", "system")
TYPES = {"u8": "<B", "i8": "<b", "u16": "<H", "i16": "<h", "u32": "<I", "i32": "<i", "u64": "<Q", "i64": "<q"}


@dataclass(frozen=True)
class Assumption:
    kind: str  # acquire | release | scope | mem | skip-barrier
    scope: str | None = None
    file: str | None = None
    line: int | None = None
    address: int | None = None
    value: int | None = None
    type: str = "u32"
    text: str = ""

    @classmethod
    def parse(cls, text: str) -> Assumption:
        t = text.strip()
        m = re.fullmatch(r"(acquire|release|scope):(\w+)@(.+):(\d+)", t)
        if m:
            scope = m.group(2).lower()
            if scope not in SCOPES:
                raise UsageError(f"--assume {t!r}: unknown scope {scope!r} (have: {', '.join(SCOPES)})")
            return cls(m.group(1), scope, m.group(3), int(m.group(4)), text=t)
        m = re.fullmatch(r"mem:(0x[0-9a-fA-F]+|\d+)=(-?0x[0-9a-fA-F]+|-?\d+)(?::(\w+))?", t)
        if m:
            ty = (m.group(3) or "u32").lower()
            if ty not in TYPES:
                raise UsageError(f"--assume {t!r}: unknown type {ty!r} (have: {', '.join(TYPES)})")
            return cls("mem", address=int(m.group(1), 0), value=int(m.group(2), 0), type=ty, text=t)
        m = re.fullmatch(r"barrier-count:(\d+)", t)
        if m:
            return cls("barrier-count", value=int(m.group(1)), text=t)
        m = re.fullmatch(r"skip-barrier@(.+):(\d+)", t)
        if m:
            return cls("skip-barrier", file=m.group(1), line=int(m.group(2)), text=t)
        raise UsageError(f"--assume {t!r}: expected acquire|release|scope:SCOPE@FILE:LINE, "
                         "mem:ADDRESS=VALUE[:TYPE], barrier-count:N or skip-barrier@FILE:LINE")


@dataclass
class ReplayResult:
    status: str  # completed | hang | fault | trap | limit | unsupported
    reason: str
    wave_instructions: int
    seconds: float
    state: CoreReplayState
    left: dict = field(default_factory=dict)  # core thread number -> first PC outside the range it was watched in
    loads: dict = field(default_factory=dict)  # core thread number -> recent global loads [(pc, address)]
    applied: list = field(default_factory=list)  # what each assumption changed, in words
    stores: dict = field(default_factory=dict)  # core thread number -> recent global stores [(pc, address)]
    lds_loads: dict = field(default_factory=dict)  # core thread number -> recent LDS loads [(pc, LDS offset)]
    # store/atomic PC -> the global addresses its lanes wrote (None: too many to keep); private and LDS writes are
    # kept as ("private"|"local", offset): which stores replay saw miss a flag, and which hit it
    store_targets: dict = field(default_factory=dict)
    symmetry: str = ""  # how symmetry was used ("" when the dispatch was replayed whole at once)
    symmetry_broken: str | None = None  # why a replay by symmetry does not stand for the whole dispatch
    attempted: int = 0  # wave-instructions of a replay by symmetry that did not stand (then the whole was replayed)
    scalar_loads: dict = field(default_factory=dict)  # core thread number -> recent scalar loads [(pc, address)]
    followed: dict = field(default_factory=dict)  # member core thread -> its representative's (proven by symmetry)
    member_instructions: int = 0  # instructions run for members on what differs (symvalues), not wave-instructions
    member_atomics: int = 0  # of which the members' own global atomics

    @property
    def total_instructions(self) -> int:
        """Every wave-instruction this answer cost (the reported count)."""
        return self.wave_instructions + self.attempted

    @property
    def machine(self):
        return self.state.machine


def scope_policy(machine, scope: str) -> dict:
    """Cache-policy bits with which a load reads at `scope` on the machine's generation (the manual's
    memory-model code sequences: the bits of an acquire load at that scope)."""
    fam = machine.family
    wide = scope in ("agent", "system")
    if fam == "gfx12":
        return {"th": 0, "scope": {"wavefront": 0, "workgroup": 0, "agent": 2, "system": 3}[scope]}
    if machine.processor.startswith(("gfx94", "gfx95")):
        return {"sc0": scope != "wavefront", "sc1": wide, "nt": False}
    if fam in ("gfx10", "gfx11"):
        return {"glc": scope != "wavefront", "slc": False, "dlc": wide}
    return {"glc": wide, "slc": False}


def _line_addresses(program, machine, file: str, line: int) -> list[int]:
    out = []
    for pc in sorted(machine.instructions):
        for s in program.symbolize(pc)[:1]:
            if s.line == line and s.file and (s.file == file or os.path.basename(s.file) == os.path.basename(file)):
                out.append(pc)
    return out


def _apply(program, state: CoreReplayState, a: Assumption) -> str:
    m = state.machine
    if a.kind == "mem":
        data = struct.pack(TYPES[a.type], a.value & ((1 << (8 * struct.calcsize(TYPES[a.type]))) - 1)
                           if a.type.startswith("u") else a.value)
        try:
            m.memory.write(a.address, data)
        except MemoryViolation:
            raise UsageError(f"--assume {a.text!r}: {a.address:#x} is not in the core's memory") from None
        return f"memory at {a.address:#x} holds {a.value} ({a.type})"
    if a.kind == "barrier-count":
        from amddbg.emu.barriers import WORKGROUP

        if a.value < 1:
            raise UsageError(f"--assume {a.text!r}: a barrier expects at least one wave")
        for g in m.groups:
            m.barriers_of(g).objects[WORKGROUP].expected = a.value
            m._check_barrier(g)  # waves already waiting go on when that many have arrived
        return f"every workgroup barrier expects {a.value} wave(s)"
    pcs = _line_addresses(program, m, a.file, a.line)
    if not pcs:
        raise UsageError(f"--assume {a.text!r}: no instruction of the replayed code object is at {a.file}:{a.line}")
    changed = []
    for pc in pcs:
        insn = m.instructions[pc]
        mem = insn.memory
        if a.kind == "skip-barrier":
            if insn.is_barrier:
                m.instructions[pc] = _as_nop(insn)
                changed.append(insn.text)
                for w in m.waves:  # waves already waiting there go on
                    if w.state == "at barrier" and w.pc == pc:
                        w.state, w.pc = "ready", getattr(w, "resume_pc", pc + insn.size)
                        m.groups[w.group_key].arrived.discard(w.wave_in_group)
            continue
        if mem is None or mem.space.value not in ("global", "flat", "generic"):
            continue
        is_load = mem.is_load and not mem.is_atomic
        if a.kind == "acquire" and not (mem.is_load or mem.is_atomic):
            continue
        if a.kind == "release" and not (mem.is_store or mem.is_atomic):
            continue
        if a.kind == "release":
            changed.append(f"{insn.text} (stores already write through to L2 in the emulator)")
            continue
        if a.kind == "scope" or is_load or mem.is_atomic:
            policy = dict(mem.cache_policy)
            policy.update(scope_policy(m, a.scope))
            m.instructions[pc] = dataclasses.replace(insn, memory=dataclasses.replace(mem, cache_policy=policy))
            changed.append(insn.text)
    if not changed and a.kind in ("acquire", "scope"):
        # a line whose only loads are scalar (a poll clang compiled to s_load): the acquire sets the bits with which
        # the load bypasses the scalar cache (amddbg.emu.scalarcache.scalar_route), as an atomic load would read
        for pc in pcs:
            insn = m.instructions[pc]
            if insn.memory is not None and insn.memory.space.value == "scalar" and insn.mnemonic.startswith(
                    ("s_load_", "s_buffer_load_")):
                policy = dict(insn.memory.cache_policy)
                policy.update(scope_policy(m, a.scope))
                m.instructions[pc] = dataclasses.replace(insn, memory=dataclasses.replace(insn.memory,
                                                                                          cache_policy=policy))
                changed.append(insn.text)
    if not changed:
        raise UsageError(f"--assume {a.text!r}: no matching instruction at {a.file}:{a.line}")
    what = f"{a.kind} at {a.scope} scope" if a.scope else a.kind
    return f"{what} at {a.file}:{a.line}: " + "; ".join(dict.fromkeys(changed))


def _as_nop(insn):
    return dataclasses.replace(insn, mnemonic="s_nop", text="s_nop 0 ; assumed away: " + insn.text, operands=(),
                               is_barrier=False)


def _coherent_caches(m):
    """Caches through which every load reads L2 (stores write through to it, as they always do): every write is
    visible to every wave at once -- the most visible order the memory model allows, for the first replay, so that
    a line a wave caches during replay cannot keep it spinning there (that is what the `stale` replays show)."""
    from amddbg.emu.caches import VectorCaches

    class Coherent(VectorCaches):
        def levels(self, wave, policy):  # the whole-instruction path: read memory
            return None

        def load(self, wave, address, size, lane, policy):
            return self.memory.read(address, size, [lane])

        def scalar_load(self, wave, address, size, policy):  # the scalar cache too (amddbg.emu.scalarcache)
            return self.memory.read(address, size, [])

    return Coherent(m.memory, m.family, m.processor)


def replay(program, *, dispatch: int | None = None, assume=(), stale: dict | None = None,
           watch: dict | None = None, max_instructions: int = DEFAULT_BUDGET, seed: int = 0,
           symmetry: bool = True, coherent: bool = False) -> ReplayResult:
    """Run the core's stuck dispatch forward.

    `stale`: {core thread number: (address, bytes)} — pin that wave's L1 line to these bytes at `address`
    (the value it last read). `watch`: {core thread number: (lo, hi[, ret])} — record the first PC a wave reaches
    outside [lo, hi] (did it leave its polling loop?), not counting the functions it calls from there (`ret`: it is
    in one when replay starts, and comes back at `ret`). The replay stops after `max_instructions`
    wave-instructions (status "limit"); `seconds` in the result is a measurement only. `coherent`: every load reads
    L2 (no wave keeps a stale line), for the most visible order.

    `symmetry`: replay one workgroup per class of workgroups in the same state and prove the others follow it
    (amddbg.replay.symmetry); when the proof fails the whole dispatch is replayed. `ReplayResult.symmetry` says
    which happened."""
    if not symmetry:
        return _replay(program, dispatch, assume, stale, watch, max_instructions, seed, coherent=coherent)
    from amddbg.replay.fromcore import clustered, stuck_dispatch
    from amddbg.replay.symmetry import plan

    t0 = time.perf_counter()
    cache = program.__dict__.setdefault("_replay_plans", {})  # the seeded schedules reuse the main replay's
    key = (dispatch, tuple(sorted((stale or {}).items())), tuple(sorted((watch or {}).items())))
    if key not in cache:
        threads = stuck_dispatch(program, dispatch)
        try:
            p = plan(program, threads, threads[0].dispatch, stale=stale, watch=watch)
        except (AmddbgError, ValueError, TypeError):  # registers or LDS a damaged core cannot give: no classes
            p = None
        if p is not None and clustered(threads):  # (a cluster barrier ties workgroups: replayed whole)
            p = None
        cache[key] = p
    p = cache[key]
    if p is None:
        return _replay(program, dispatch, assume, stale, watch, max_instructions, seed, coherent=coherent)
    if not p.reduces:  # (no class has two workgroups)
        return _replay(program, dispatch, assume, stale, watch, max_instructions, seed, coherent=coherent)
    r = _replay(program, dispatch, assume, stale, watch, max_instructions, seed, plan=p, coherent=coherent)
    if r.symmetry_broken is None:
        r.seconds = time.perf_counter() - t0
        return r
    full = _replay(program, dispatch, assume, stale, watch, max_instructions, seed, coherent=coherent)
    full.attempted = r.wave_instructions
    full.symmetry = (f"replayed the whole dispatch: a representative of {len(p.groups)} of {p.workgroups} workgroups "
                     f"{r.symmetry_broken} ({r.wave_instructions} wave-instructions in that attempt)")
    full.seconds = time.perf_counter() - t0
    return full


def _replay(program, dispatch, assume, stale, watch, max_instructions: int, seed: int, plan=None,
            coherent: bool = False) -> ReplayResult:
    t0 = time.perf_counter()
    state = machine_from_program(program, dispatch=dispatch, seed=seed, only=plan.groups if plan else None)
    m = state.machine
    if coherent:
        m.caches = _coherent_caches(m)
    applied = [_apply(program, state, a if isinstance(a, Assumption) else Assumption.parse(a)) for a in assume]
    by_number = {t.number: w for w, t in state.threads.items()}
    for num, (address, data) in (stale or {}).items():
        w = by_number.get(num)
        if w is not None:
            m.caches.prefill(w, address, stale=data)  # the stale copy it keeps until an invalidate
    left: dict = {}
    loads: dict = {}
    stores: dict = {}
    lds: dict = {}
    sloads: dict = {}
    watched = {by_number[n]: (n, rng[:2]) for n, rng in (watch or {}).items() if n in by_number}
    # watched wave -> the return address of the call it made from its loop (or was in when the core was written)
    calls: dict = {n: rng[2] for n, rng in (watch or {}).items() if len(rng) > 2}
    targets: dict = {}
    numbers = {w: t.number for w, t in state.threads.items()}
    tracker = None
    if plan is not None:
        tracker = Tracker({by_number[n]: copy.deepcopy(d) for n, d in plan.dirty.items() if n in by_number},
                          {by_number[n]: ts for n, ts in plan.members.items() if n in by_number}, m.memory, m)
        if tracker.dirty:
            tracker.attach(m)  # members run the arithmetic on what differs (symvalues)
    track = tracker.step if tracker is not None and tracker.dirty else None
    observe = tracker.observe if track is not None else None

    def hook(ev) -> None:
        if track is not None:
            observe(ev)
            track(ev)
        x = watched.get(ev.wave)
        if x is not None and x[0] not in left:
            lo, hi = x[1]
            back = calls.get(x[0])
            if back is not None:  # inside a function called from the loop (-O0 __threadfence_block())
                if ev.pc == back:
                    del calls[x[0]]
            if x[0] not in calls:
                if not lo <= ev.pc <= hi:
                    left[x[0]] = ev.pc
                elif ev.instruction is not None and ev.instruction.is_call:
                    calls[x[0]] = ev.pc + ev.instruction.size
        for op in ev.memops:  # the global loads each wave keeps doing: what a spinning wave polls
            if op.kind in ("store", "atomic") and op.addresses:
                seen = targets.setdefault(ev.pc, set())
                if seen is not None:
                    sp = op.space
                    if sp == "global":
                        seen.update(op.addresses.values())
                    elif sp in ("local", "private"):
                        seen.update((sp, a & 0xFFFFFFFF) for a in op.addresses.values())
                    elif sp == "generic":
                        for a in set(op.addresses.values()):
                            where, off = classify_flat(a)
                            seen.add(a if where == "global" else (where, off))
                    if len(seen) > 4096:
                        targets[ev.pc] = None
            if op.kind in ("store", "atomic") and op.space in ("global", "generic") and op.addresses:
                a = op.addresses[min(op.addresses)]
                if classify_flat(a)[0] == "global":
                    stores.setdefault(numbers.get(ev.wave), deque(maxlen=64)).append((ev.pc, a))
            if op.kind == "load" and op.space == "scalar" and op.addresses:  # (polls through the scalar cache)
                sloads.setdefault(numbers.get(ev.wave), deque(maxlen=64)).append((ev.pc, op.addresses[0]))
                continue
            if op.kind in ("load", "atomic") and op.space in ("global", "generic", "local") and op.addresses:
                lane = min(op.addresses)
                a = op.addresses[lane]
                where, off = ("local", a & 0xFFFFFFFF) if op.space == "local" else classify_flat(a)
                if where == "local":  # an LDS flag
                    lds.setdefault(numbers.get(ev.wave), deque(maxlen=64)).append((ev.pc, off))
                    continue
                if where != "global":
                    continue
                q = loads.setdefault(numbers.get(ev.wave), deque(maxlen=64))
                q.append((ev.pc, a))

    try:
        r = m.run(max_instructions=max_instructions, hook=hook)
    except SymmetryBroken:  # (only with a plan) the attempt stops here; replay() replays the whole dispatch
        from amddbg.emu.machine import RunResult

        r = RunResult("limit", "symmetry broken", sum(w.instructions for w in m.waves), time.perf_counter() - t0,
                      list(m.waves))
    reason = r.reason
    if r.status == "limit":
        reason = f"stopped after {r.wave_instructions} wave-instructions (the replay budget)"
    for num, w in by_number.items():  # a watched wave that ended left its loop too
        if watch and num in watch and num not in left and w.state == "ended":
            left[num] = w.pc
    out = ReplayResult(r.status, reason, r.wave_instructions, time.perf_counter() - t0, state, left,
                       {n: list(q) for n, q in loads.items()}, applied, {n: list(q) for n, q in stores.items()},
                       {n: list(q) for n, q in lds.items()}, targets)
    out.scalar_loads = {n: list(q) for n, q in sloads.items()}
    if plan is not None:
        out.symmetry_broken = tracker.broken if tracker is not None else None
        if out.symmetry_broken is None and tracker is not None:
            out.symmetry_broken = tracker.stores_unread()
        if out.symmetry_broken is None:
            _extend_to_members(out, plan, by_number, tracker)
    return out


def _extend_to_members(r: ReplayResult, plan, by_number: dict, tracker=None) -> None:
    """The symmetric replay's answer for every wave: each member of a class gets its representative's state, loop
    exit and loads (the same addresses: it read no register that differs but for its stores' addresses), and its
    stores (at its own addresses where the representative's came from registers that differ)."""
    from amddbg.replay.symmetry import MemberWave

    n = 0
    own = tracker.member_stores if tracker is not None else {}
    for rep_num, members in plan.members.items():
        w = by_number.get(rep_num)
        if w is None:
            continue
        mine = {pc: addrs for (x, pc), addrs in own.items() if x is w}
        read = {pc: addrs for (x, pc), addrs in (tracker.member_loads if tracker is not None else {}).items()
                if x is w}
        for i, t in enumerate(members):
            r.state.threads[MemberWave(w, tuple(t.workgroup), t.wave_in_group)] = t
            r.followed[t.number] = rep_num
            n += 1
            for d in (r.left, r.loads, r.lds_loads):
                if rep_num in d:
                    d[t.number] = d[rep_num]
            if read and rep_num in r.loads:  # (its own words where its address differs: `flag[id]`)
                r.loads[t.number] = [(pc, read[pc][i] if pc in read and read[pc][i] is not None else a)
                                     for pc, a in r.loads[rep_num]]
            if rep_num in r.stores:
                r.stores[t.number] = [(pc, mine[pc][i] if pc in mine else a) for pc, a in r.stores[rep_num]]
        for pc, addrs in mine.items():  # the store targets every wave reached (the writer analysis reads them)
            seen = r.store_targets.get(pc)
            if seen is not None:
                seen.update(int(a) for a in addrs)
                if len(seen) > 4096:
                    r.store_targets[pc] = None
    def order(kv):  # the order fromcore rebuilds a whole dispatch in: workgroups z, y, x, then waves
        g = tuple(kv[1].workgroup)
        return g[2], g[1], g[0], kv[1].wave_in_group

    r.state.threads = dict(sorted(r.state.threads.items(), key=order))
    m = re.match(r"(.*?)(\d+) wave\(s\)(.*)", r.reason)
    if m and r.status == "hang":  # count the members that are where their representatives are
        from amddbg.emu.machine import WAITING_COUNTERS
        from amddbg.emu.wave import READY, SLEEPING, WAITING_BARRIER

        want = (WAITING_BARRIER,) if "barrier" in m.group(3) else (READY, SLEEPING, WAITING_COUNTERS)
        total = sum(1 for w in r.state.threads if w.state in want)
        r.reason = f"{m.group(1)}{total} wave(s){m.group(3)}"
    computed = tracker.values.executed if tracker is not None else 0
    r.member_instructions = computed
    r.member_atomics = tracker.values.atomics if tracker is not None else 0
    atomics = tracker.values.atomics if tracker is not None else 0
    if computed:
        how = " and ".join(x for x in (
            f"ran their own global atomics ({atomics}, each right before its representative's)" if atomics else "",
            f"computed what differs between them from their own values ({computed - atomics} member-instructions "
            "of arithmetic and loads of their own words; no branch or EXEC depends on it)" if computed > atomics
            else "") if x)
        how = (how
               + (", and stored only where no wave reads" if own else
                  ", and stored only the same bytes to the same addresses as they do"))
    else:
        how = ("read no register they hold differently"
               + (" but for its stores' addresses, and stored only where no wave reads" if own else
                  " and stored only the same bytes to the same addresses as they do"))
    r.symmetry = (f"by symmetry: replayed {len(plan.groups)} of {plan.workgroups} workgroups (one per class of "
                  f"workgroups in the same state); the other {n} wave(s) follow their class's representative, which "
                  + how)
