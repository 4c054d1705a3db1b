"""Verdicts for litmus tests: condition, data race, termination, with an explanation.

`decide(test, nochains=False)` runs the checker over a parsed test and returns a `Verdict` whose
fields match `amddbg litmus --json`; `Verdict.explain()` renders the witness (who read from whom),
the missing availability/visibility chain behind a race, and barriers that never complete.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.models import rel as R
from amddbg.models.checker import Execution, enumerate_executions
from amddbg.models.events import INIT
from amddbg.models.memory import Options


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


def decide(test, nochains: bool = False, *, limit: int | None = None, progress=None) -> Verdict:
    """The verdict of one litmus test. The search visits at most `limit` candidate executions in
    total (default: `checker.DEFAULT_EXECUTION_LIMIT` or AMDDBG_LITMUS_LIMIT) and raises
    `checker.SearchBound` past it; `progress(visited, limit)` is called as it goes."""
    from amddbg.models import checker

    saved = checker.current_budget
    checker.current_budget = checker.SearchBudget(limit, progress)
    try:
        if test.format == "khronos":
            v = _decide_khronos(test, nochains)
        else:
            from amddbg.models.herdcheck import decide_herd

            v = decide_herd(test, nochains)
        v.search_bound = checker.current_budget.limit
        return v
    finally:
        checker.current_budget = saved


def _eval_query(expr, ex: Execution) -> bool:
    op = expr[0]
    if op == "&&":
        return _eval_query(expr[1], ex) and _eval_query(expr[2], ex)
    if op == "||":
        return _eval_query(expr[1], ex) or _eval_query(expr[2], ex)
    if op == "!":
        return not _eval_query(expr[1], ex)
    if op == "consistent":
        return ex.consistent
    if op == "racefree":
        return not ex.races
    _, name, cmp, num = expr
    rel = {"dr": ex.dyn.dr, "rs": ex.dyn.rs, "sw": ex.dyn.sw, "hb": ex.dyn.hb, "asmo": ex.asmo,
           "locord": ex.dyn.locord}[name]
    c = R.count(rel)
    return {"=": c == num, "!=": c != num, ">": c > num, "<": c < num, ">=": c >= num, "<=": c <= num}[cmp]


def _decide_khronos(test, nochains: bool) -> Verdict:
    """Stream the candidate executions (never held in a list: the bounded search may visit tens of
    thousands of them, ~10 KB each): one pass per model variant answers every query of that variant
    and keeps the counts and the first witnesses the explanation needs."""
    summaries: dict[bool, dict] = {}

    def summary(chains: bool) -> dict:
        if chains not in summaries:
            mine = [i for i, q in enumerate(test.queries) if (not q.nochains) == chains]
            out = {"n": 0, "consistent": 0, "first": None, "witness": None, "racy": None,
                   "sat": dict.fromkeys(mine, False)}
            for ex in enumerate_executions(test.scenario, Options(chains=chains)):
                out["n"] += 1
                if out["first"] is None:
                    out["first"] = ex
                for i in mine:
                    if not out["sat"][i] and _eval_query(test.queries[i].expr, ex):
                        out["sat"][i] = True
                if ex.consistent:
                    out["consistent"] += 1
                    out["witness"] = out["witness"] or ex
                    if ex.races and out["racy"] is None:
                        out["racy"] = ex
            summaries[chains] = out
        return summaries[chains]

    queries = []
    for i, q in enumerate(test.queries):
        sat = summary(not q.nochains)["sat"][i]
        queries.append(QueryResult(q.text, q.line, q.nochains, q.expect_sat, sat))
    sm = summary(not nochains)
    n_exs, n_consistent = sm["n"], sm["consistent"]
    racy_ex = sm["racy"]
    v = Verdict(test.path, test.name, bool(n_consistent), racy_ex is not None, True, queries, executions=n_exs)
    model = "NOCHAINS model" if nochains else "model with availability/visibility chains"
    if test.scenario.ill_formed:
        v.explanation.append(f"no execution: the program violates the model's static rules: "
                             f"{test.scenario.ill_formed}")
    elif n_consistent:
        ex = racy_ex or sm["witness"]
        v.explanation.append(f"{n_consistent} of {n_exs} candidate executions are consistent ({model}); "
                             f"witness:")
        v.explanation += ["  " + ln for ln in describe_rf(ex, ex.witness_rf())]
        if racy_ex is not None:
            a, b = racy_ex.races[0]
            v.explanation += explain_race(racy_ex, a, b)
    else:
        v.explanation.append(f"no consistent execution ({model}) satisfies the values required by the test")
        if sm["first"] is not None:
            v.explanation.append(f"  e.g. {sm['first'].failure}")
    return v
