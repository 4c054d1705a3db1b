"""What deciding a litmus test returns: a `Verdict` (condition, data race, termination, the queries' answers) and
the sentences that explain a witness -- who read from whom (`describe_rf`) and why two accesses race
(`explain_race`: the missing synchronisation or availability/visibility chain).

Both checkers build these (the Khronos-model search in amddbg.models.verdict and the herd front end in
amddbg.models.herdcheck), and `verdict.decide` dispatches to the herd checker, so the data sits here, below both:
the three modules import one way (verdict -> herdcheck -> outcome).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.models.checker import Execution
from amddbg.models.events import INIT


@dataclass
class QueryResult:
    text: str
    line: int
    nochains: bool
    expected_sat: bool
    sat: bool

    @property
    def agrees(self) -> bool:
        return self.sat == self.expected_sat


@dataclass
class Verdict:
    file: str
    name: str
    condition_holds: bool
    data_race: bool
    terminates: bool | None
    queries: list[QueryResult] = field(default_factory=list)
    explanation: list[str] = field(default_factory=list)
    executions: int = 0
    unroll_bound: int | None = None
    search_bound: int | None = None  # the candidate-execution bound the search ran under

    def as_json(self) -> dict:
        return {"file": self.file, "name": self.name, "condition_holds": self.condition_holds,
                "data_race": self.data_race, "terminates": self.terminates}


def describe_rf(ex: Execution, rf: dict[int, int]) -> list[str]:
    ev = ex.scenario.events
    out = []
    for r in sorted(rf):
        w = rf[r]
        src = "the initial value" if w == INIT else f"P{ev[w].thread}: {ev[w].describe()}"
        if w == INIT:
            val = ev[r].read_value if ev[r].read_value is not None else ex.scenario.init_value(ev[r].loc)
        else:
            val = ev[w].write_value
        vs = f" {val}" if val is not None else ""
        out.append(f"P{ev[r].thread}: {ev[r].describe()} reads{vs} from {src}")
    return out


def explain_race(ex: Execution, a: int, b: int) -> list[str]:
    """Why two conflicting accesses are not location-ordered: missing synchronization or missing chain."""
    d = ex.dyn
    ev = ex.scenario.events
    ea, eb = ev[a], ev[b]
    lines = [f"data race: P{ea.thread}: {ea.describe()}  <->  P{eb.thread}: {eb.describe()}"]
    if ea.atomic and eb.atomic and not (ex.static.mutordatom[a] >> b) & 1:
        sa = str(ea.scope) if ea.scope is not None else "no"
        sb = str(eb.scope) if eb.scope is not None else "no"
        lines.append(f"  the atomics are not mutually ordered: {sa} scope and {sb} scope do not both include "
                     f"the other thread's scope instance" + ("" if ea.ref == eb.ref else " (different references)"))
    if not ((d.hb[a] >> b) & 1 or (d.hb[b] >> a) & 1):
        lines.append("  not ordered by happens-before: no release/acquire pair (in scope, with matching "
                     "storage-class semantics) or control barrier links them")
        return lines
    first, second = (a, b) if (d.hb[a] >> b) & 1 else (b, a)
    x, y = ev[first], ev[second]
    lines.append(f"  happens-before orders P{x.thread}: {x.describe()} first, but location order does not:")
    if x.private or y.private:
        who = x if x.private else y
        lines.append(f"  `{who.describe()}` is private (no nonpriv/av/vis/atom), so it is outside inter-thread "
                     "location order")
    elif x.is_write:
        st = ex.static
        ev_ = ex.scenario.events
        avs = [k for k in range(st.n) if (st.AVSG >> k) & 1 and (k == first or (
            (st.po_refl[first] >> k) & 1 and (st.avvisinc[first] >> k) & 1))]
        viss = [k for k in range(st.n) if (st.VISSG >> k) & 1 and (k == second or (
            (st.po_refl[k] >> second) & 1 and (st.avvisinc[k] >> second) & 1))]
        common = _common_level(x, y)
        chains = "disabled (NOCHAINS model)" if not st.opt.chains else "not formed by these operations"

        def fmt(ks):
            return ", ".join(f"`{ev_[k].describe()}` ({ev_[k].scope or 'no'} scope)" for k in ks) or "none"

        lines.append(f"  availability operations on the write: {fmt(avs)}")
        if y.is_read:
            lines.append(f"  visibility operations for the read: {fmt(viss)}")
        lines.append(f"  missing chain: the write must be made available, and the read made visible, in a "
                     f"domain instance that includes both threads (their common instance is the {common}); "
                     f"availability/visibility chains through other threads are {chains}")
    else:
        lines.append("  read-after-read/write-after-read ordering needs non-private accesses")
    return lines


def _common_level(a, b) -> str:
    from amddbg.amdgpu import Scope

    for lv in (Scope.WAVEFRONT, Scope.WORKGROUP, Scope.QUEUE_FAMILY):
        if a.instances.get(lv) is not None and a.instances.get(lv) == b.instances.get(lv):
            return {Scope.WAVEFRONT: "subgroup", Scope.WORKGROUP: "workgroup",
                    Scope.QUEUE_FAMILY: "queue family"}[lv]
    return "device"
