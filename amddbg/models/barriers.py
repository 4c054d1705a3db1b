"""The AMDGPU barrier execution model and the concrete barrier objects of each GPU generation.

Model (amdgpu-execution-synchronization.rst): a barrier object has an expected count and an arrive
count; init sets the expected count, drop decrements it, arrive increments the arrive count, and when
both are equal the barrier completes (a phase ends) and the arrive count resets. A wait completes once
the phase that the thread's last arrive joined has completed. Named barriers (GFX12.5 ids 1..16) must
be joined before waiting; a wait always waits on the last joined named barrier; the NULL barrier (0)
makes everything but join a no-op. GFX6-11 have one workgroup barrier whose expected count is the
number of waves and which a wave drops implicitly when it ends; GFX12 adds split barriers -1/-2;
GFX12.5 adds cluster barriers -3/-4 (expected count = workgroups in the cluster, one arrive per
workgroup) and named barriers with no implicit drop.

`BarrierSystem.explore()` runs every interleaving of the per-thread barrier operations (the traces are
short) and reports whether every wait completes, which waits can block forever with the arrivals
still missing, and undefined behaviours, as `BarrierResult`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from amddbg.amdgpu import Scope
from amddbg.errors import UsageError
from amddbg.models.events import Event, Kind


@dataclass(frozen=True)
class BarrierObject:
    id: int
    scope: Scope
    named: bool
    description: str
    auto_init: str | None = None  # "waves" (waves in the workgroup), "workgroups" (in the cluster), None
    implicit_drop: bool = False  # a wave drops it when it ends (if it had joined)
    privileged: bool = False
    null: bool = False
    one_arrive_per_workgroup: bool = False


def generation(processor: str) -> str:
    """'GFX6-11', 'GFX12' or 'GFX12.5' from a processor name such as gfx90a or gfx1250."""
    m = re.fullmatch(r"gfx(\d+)([0-9a-f]?)([0-9a-f])", processor.lower())
    if not m:
        raise UsageError(f"unknown AMDGPU processor '{processor}'")
    major = processor.lower()[3:]
    if len(major) == 4 and major.startswith("12"):
        return "GFX12.5" if major[2] == "5" else "GFX12"
    return "GFX6-11"


def barrier_objects(processor: str) -> dict[int, BarrierObject]:
    gen = generation(processor)
    if gen == "GFX6-11":
        return {-1: BarrierObject(-1, Scope.WORKGROUP, False, "workgroup barrier (s_barrier)", "waves", True)}
    objs = {
        -2: BarrierObject(-2, Scope.WORKGROUP, False, "workgroup trap barrier", "waves", True, privileged=True),
        -1: BarrierObject(-1, Scope.WORKGROUP, False, "workgroup barrier", "waves", True),
    }
    if gen == "GFX12.5":
        objs[-4] = BarrierObject(-4, Scope.CLUSTER, False, "cluster trap barrier", "workgroups", True,
                                 privileged=True, one_arrive_per_workgroup=True)
        objs[-3] = BarrierObject(-3, Scope.CLUSTER, False, "cluster user barrier", "workgroups", True,
                                 one_arrive_per_workgroup=True)
        objs[0] = BarrierObject(0, Scope.WORKGROUP, True, "NULL barrier", None, False, null=True)
        for i in range(1, 17):
            objs[i] = BarrierObject(i, Scope.WORKGROUP, True, f"named barrier {i}", None, False)
    return dict(sorted(objs.items()))


@dataclass
class Blocked:
    thread: int
    event: Event
    barrier: int
    arrived: int
    expected: int | None


@dataclass
class BarrierResult:
    completes: bool
    blocked: list[Blocked] = field(default_factory=list)
    undefined: list[str] = field(default_factory=list)
    states: int = 0

    def explain(self) -> list[str]:
        out = []
        for b in self.blocked:
            exp = "uninitialized" if b.expected is None else str(b.expected)
            miss = "" if b.expected is None else f"; {max(b.expected - b.arrived, 0)} arrival(s) missing"
            out.append(f"thread {b.thread}: {b.event.describe()} on barrier {b.barrier} never completes "
                       f"(arrive count {b.arrived}, expected count {exp}{miss})")
        out += [f"undefined behaviour: {u}" for u in self.undefined]
        return out


class BarrierSystem:
    """Threads (waves) of one workgroup or cluster, each a list of barrier-operation events."""

    def __init__(self, processor: str, threads: list[list[Event]], workgroup_of: list[int] | None = None,
                 initial: dict[int, int] | None = None) -> None:
        """`initial` gives expected counts set before the threads start (e.g. an s_barrier_init in a
        prologue that a barrier already orders before everything else)."""
        self.objects = barrier_objects(processor)
        self.threads = threads
        self.wg = workgroup_of or [0] * len(threads)
        self.initial = initial or {}

    def _initial(self) -> dict[int, tuple]:
        state = {}
        nwaves: dict[int, int] = {}
        for w in self.wg:
            nwaves[w] = nwaves.get(w, 0) + 1
        for bid, obj in self.objects.items():
            if obj.auto_init == "waves":
                exp = nwaves[self.wg[0]] if len(nwaves) == 1 else len(self.threads)
            elif obj.auto_init == "workgroups":
                exp = len(nwaves)
            else:
                exp = None
            exp = self.initial.get(bid, exp)
            # (expected, arrived, phase, workgroups that arrived this phase)
            state[bid] = (exp, 0, 0, frozenset(), ())
        return state

    def explore(self) -> BarrierResult:
        undefined: set[str] = set()
        blocked: dict[tuple[int, int], Blocked] = {}
        n = len(self.threads)
        init_bars = tuple(sorted(self._initial().items()))
        # thread state: (pc, joined named barrier, {barrier: phase its pending arrive joined})
        start = (tuple(0 for _ in range(n)), tuple(None for _ in range(n)),
                 tuple(() for _ in range(n)), init_bars, tuple(False for _ in range(n)))
        seen = set()
        stack = [start]
        completes = True
        while stack:
            st = stack.pop()
            if st in seen:
                continue
            seen.add(st)
            if len(seen) > 200000:
                undefined.add("state space too large; exploration truncated")
                break
            succs = []
            for t in range(n):
                nxt = self._step(st, t, undefined)
                if nxt is not None:
                    succs.append(nxt)
            if not succs:
                pcs = st[0]
                bars = dict(st[3])
                for t in range(n):
                    if pcs[t] < len(self.threads[t]):
                        completes = False
                        ev = self.threads[t][pcs[t]]
                        bid = self._target(st, t, ev)
                        exp, arr = bars.get(bid, (None, 0))[:2]
                        blocked.setdefault((t, pcs[t]), Blocked(t, ev, bid, arr, exp))
            stack.extend(succs)
        return BarrierResult(completes, list(blocked.values()), sorted(undefined), len(seen))

    def _target(self, st, t: int, ev: Event) -> int:
        bid = ev.barrier if ev.barrier is not None else -1
        obj = self.objects.get(bid)
        if ev.kind is Kind.BAR_WAIT and obj is not None and obj.named and not obj.null:
            joined = st[1][t]
            if joined is not None:
                return joined
        return bid

    def _step(self, st, t: int, undefined: set[str]):
        pcs, joined, pending, bars_t, ended = st
        code = self.threads[t]
        bars = dict(bars_t)
        if pcs[t] >= len(code):
            if ended[t]:
                return None
            # implicit drop at wave end of the non-named barriers this wave is a member of
            for bid, obj in self.objects.items():
                if obj.implicit_drop and obj.auto_init == "waves":
                    exp, arr, ph, wgs, lastwg = bars[bid]
                    if exp is not None:
                        exp -= 1
                        if exp < 0:
                            undefined.add(f"implicit drop of barrier {bid} makes the expected count negative")
                            exp = 0
                        if exp and arr == exp:
                            arr, ph, wgs = 0, ph + 1, frozenset()
                        bars[bid] = (exp, arr, ph, wgs, lastwg)
            return (pcs, joined, pending, tuple(sorted(bars.items())), _set(ended, t, True))
        ev = code[pcs[t]]
        bid = self._target(st, t, ev)
        obj = self.objects.get(bid)
        if obj is None:
            undefined.add(f"thread {t}: {ev.describe()}: no barrier object {bid} on this generation")
            return (_set(pcs, t, pcs[t] + 1), joined, pending, bars_t, ended)
        exp, arr, ph, wgs, lastwg = bars[bid]
        k = ev.kind
        pend = dict(pending[t])
        if obj.null and k is not Kind.BAR_JOIN:
            return (_set(pcs, t, pcs[t] + 1), joined, pending, bars_t, ended)
        if k is Kind.BAR_INIT:
            if not obj.named:
                undefined.add(f"thread {t}: init of barrier {bid}, which the hardware initializes")
            bars[bid] = (ev.count, 0, ph, frozenset(), lastwg)
        elif k is Kind.BAR_JOIN:
            if not obj.named:
                undefined.add(f"thread {t}: join on barrier {bid}, which is not a named barrier")
            joined = _set(joined, t, bid)
        elif k is Kind.BAR_DROP:
            if obj.named and joined[t] != bid:
                undefined.add(f"thread {t}: drop of named barrier {bid} without a join before it")
            if exp is None:
                undefined.add(f"thread {t}: drop on uninitialized barrier {bid}")
            else:
                exp -= 1
                if exp < 0:
                    undefined.add(f"thread {t}: drop makes the expected count of barrier {bid} negative")
                    exp = 0
                if bid in pend and pend[bid] == ph:
                    undefined.add(f"thread {t}: arrive then drop of barrier {bid} before it completed")
                if exp and arr == exp:
                    arr, ph, wgs = 0, ph + 1, frozenset()
                bars[bid] = (exp, arr, ph, wgs, lastwg)
            if obj.named:
                joined = _set(joined, t, None)
        elif k is Kind.BAR_ARRIVE:
            if exp is None:
                undefined.add(f"thread {t}: arrive on uninitialized barrier {bid}")
                return (_set(pcs, t, pcs[t] + 1), joined, pending, bars_t, ended)
            if obj.one_arrive_per_workgroup and self.wg[t] in wgs:
                undefined.add(f"thread {t}: second arrive from workgroup {self.wg[t]} on cluster barrier {bid}")
            if ev.count:
                if ev.count <= arr:
                    undefined.add(f"thread {t}: arrive sets expected count {ev.count} <= arrive count {arr}")
                exp = ev.count
            arr += 1
            pend[bid] = ph
            wgs = wgs | {self.wg[t]}
            lastwg = tuple(sorted({**dict(lastwg), self.wg[t]: ph}.items()))
            if arr == exp:
                arr, ph, wgs = 0, ph + 1, frozenset()
            bars[bid] = (exp, arr, ph, wgs, lastwg)
        elif k is Kind.BAR_WAIT:
            if obj.named and joined[t] is None:
                undefined.add(f"thread {t}: wait on named barrier {bid} without a join")
            want = pend.get(bid, ph)
            if obj.one_arrive_per_workgroup:  # a wave waits on the phase its workgroup arrived in
                want = dict(lastwg).get(self.wg[t], want)
            if ph <= want:
                return None  # blocked until that phase completes
            pend.pop(bid, None)
        else:
            raise UsageError(f"not a barrier operation: {ev.describe()}")
        pending = _set(pending, t, tuple(sorted(pend.items())))
        return (_set(pcs, t, pcs[t] + 1), joined, pending, tuple(sorted(bars.items())), ended)


def _set(tup: tuple, i: int, v) -> tuple:
    lst = list(tup)
    lst[i] = v
    return tuple(lst)


def s_barrier(thread: int, barrier: int = -1, workgroup: int = 0) -> list[Event]:
    """GFX6-11 `s_barrier` (and GFX12 `s_barrier_signal -1; s_barrier_wait -1`): arrive then wait."""
    inst = {Scope.WORKGROUP: workgroup}
    return [Event(Kind.BAR_ARRIVE, thread, inst, barrier=barrier, label=f"s_barrier_signal {barrier}"),
            Event(Kind.BAR_WAIT, thread, inst, barrier=barrier, label=f"s_barrier_wait {barrier}")]


def bar_op(kind: Kind, thread: int, barrier: int, count: int | None = None, workgroup: int = 0) -> Event:
    names = {Kind.BAR_INIT: "s_barrier_init", Kind.BAR_JOIN: "s_barrier_join", Kind.BAR_ARRIVE:
             "s_barrier_signal", Kind.BAR_WAIT: "s_barrier_wait", Kind.BAR_DROP: "s_barrier_leave"}
    return Event(kind, thread, {Scope.WORKGROUP: workgroup}, barrier=barrier, count=count,
                 label=f"{names[kind]} {barrier}" + (f" (count {count})" if count is not None else ""))
