"""One-call entry point for clients that already have events (the replay engine, tests).

`analyze(threads)` takes per-thread lists of `Event`s in program order and returns an `Analysis`:
the consistent executions, the data races with explanations, and which values each read may see.
Control barriers (`Kind.CBAR`) pair with the events of other threads carrying the same `barrier` key
in the same instance of their `barrier_exec_scope` (workgroup by default), i.e. one dynamic barrier
instance per key, as the AMDGPU s_barrier does for the waves of a workgroup.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.amdgpu import Scope
from amddbg.models import rel as R
from amddbg.models.checker import Execution, Scenario, enumerate_executions
from amddbg.models.events import INIT, Event, Kind
from amddbg.models.memory import Options
from amddbg.models.verdict import explain_race


@dataclass
class Race:
    a: Event
    b: Event
    explanation: list[str]


@dataclass
class Analysis:
    events: list[Event]
    executions: list[Execution]
    races: list[Race] = field(default_factory=list)
    read_values: dict[int, set] = field(default_factory=dict)  # event index -> values it may read

    @property
    def consistent(self) -> list[Execution]:
        return [e for e in self.executions if e.consistent]


def build_scenario(threads: list[list[Event]], ssw: list[tuple[Event, Event]] = (),
                   init: dict[str, object] | None = None) -> Scenario:
    events: list[Event] = []
    po = []
    for lst in threads:
        po.append(list(range(len(events), len(events) + len(lst))))
        events.extend(lst)
    pos = {id(e): i for i, e in enumerate(events)}
    n = len(events)
    syncbar = R.empty(n)
    cbars = [i for i, e in enumerate(events) if e.kind is Kind.CBAR]
    for i in cbars:
        ei = events[i]
        lv = ei.barrier_exec_scope or Scope.WORKGROUP
        for j in cbars:
            ej = events[j]
            if ej.barrier == ei.barrier and ei.instances.get(lv) == ej.instances.get(lv):
                syncbar[i] |= 1 << j
    rf_allowed = {}
    init = init or {}
    for i, e in enumerate(events):
        if e.is_read and e.read_value is not None:
            srcs = [INIT] if init.get(e.loc, 0) == e.read_value else []
            srcs += [j for j, w in enumerate(events) if j != i and w.is_write and w.loc == e.loc
                     and w.write_value == e.read_value]
            rf_allowed[i] = srcs
    return Scenario(events, po, [(pos[id(a)], pos[id(b)]) for a, b in ssw], rf_allowed,
                    [syncbar] if cbars else None, init_values=dict(init))


def analyze(threads: list[list[Event]], ssw: list[tuple[Event, Event]] = (), options: Options | None = None,
            init: dict[str, object] | None = None) -> Analysis:
    sc = build_scenario(threads, ssw, init)
    exs = list(enumerate_executions(sc, options))
    out = Analysis(sc.events, exs)
    seen = set()
    for ex in exs:
        if not ex.consistent:
            continue
        for a, b in ex.races:
            if (a, b) not in seen:
                seen.add((a, b))
                out.races.append(Race(sc.events[a], sc.events[b], explain_race(ex, a, b)))
        for sols in ex.feasible.values():
            for sol in sols:
                for r, w in {**ex.rf_atomic, **sol}.items():
                    v = sc.init_value(sc.events[r].loc) if w == INIT else sc.events[w].write_value
                    out.read_values.setdefault(r, set()).add(v)
        for r, w in ex.rf_atomic.items():
            v = sc.init_value(sc.events[r].loc) if w == INIT else sc.events[w].write_value
            out.read_values.setdefault(r, set()).add(v)
    return out


_ORDER = {"monotonic": (False, False), "unordered": (False, False), "acquire": (True, False),
          "release": (False, True), "acq_rel": (True, True), "seq_cst": (True, True)}


def amdgpu_event(kind: Kind, thread: int, instances: dict[Scope, object], *, loc: str | None = None,
                 ordering: str | None = None, syncscope: Scope | None = None, av_none: bool = False,
                 av_intrinsic: bool = False, nonpriv: bool = True, label: str = "", **kw) -> Event:
    """An event for an AMDGPU memory operation, with the AMDGPU model's implicit av/vis operations.

    amdgpu-memory-model.txt: an atomic operation that stores is a store-available and one that loads is
    a load-visible operation at its syncscope; `llvm.amdgcn.av.global.{load,store}` (av_intrinsic) are
    non-atomic load-visible/store-available operations at a given scope; a synchronization operation
    with at least release (acquire) ordering is a MakeAvailable (MakeVisible) at its syncscope unless
    it carries `!{!"amdgcn-av", !"none"}` (av_none). AMDGPU has a single storage class (0).
    """
    acq, rel = _ORDER.get(ordering or "", (False, False)) if ordering else (False, False)
    atomic = ordering is not None and kind in (Kind.LOAD, Kind.STORE, Kind.RMW)
    ev = Event(kind, thread, instances, loc=loc, ref=loc, scope=syncscope,
               storage_class=0 if kind in (Kind.LOAD, Kind.STORE, Kind.RMW) else None,
               semsc=frozenset({0}) if (acq or rel) else frozenset(), atomic=atomic, acquire=acq,
               release=rel, av=(atomic or av_intrinsic) and kind in (Kind.STORE, Kind.RMW),
               vis=(atomic or av_intrinsic) and kind in (Kind.LOAD, Kind.RMW),
               semav=rel and not av_none, semvis=acq and not av_none, nonpriv=nonpriv or atomic,
               label=label, **kw)
    return ev
