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

    def as_json(self) -> dict:
        return {"file": self.file, "name": self.name, "condition_holds": self.condition_holds,
                "data_race": self.data_race, "terminates": self.terminates}


def describe_rf(ex: Execution, rf: dict[int, int]) -> list[str]:
    ev = ex.scenario.events
    out = []
    for r in sorted(rf):
        w = rf[r]
        src = "the initial value" if w == INIT else f"P{ev[w].thread}: {ev[w].describe()}"
        val = ev[r].read_value
        vs = f" = {val}" if val is not None else ""
        out.append(f"P{ev[r].thread}: {ev[r].describe()} reads{vs} from {src}")
    return out


def explain_race(ex: Execution, a: int, b: int) -> list[str]:
    """Why a pair of accesses is unordered: name what locord would need."""
    s = ex.static
    d = ex.dyn
    ev = ex.scenario.events
    ea, eb = ev[a], ev[b]
    if (d.hb[a] >> b) & 1 == 0 and (d.hb[b] >> a) & 1 == 0:
        hbs = "they are not ordered by happens-before (no release/acquire synchronization or barrier links them)"
    else:
        hbs = "they are ordered by happens-before"
    lines = [f"data race: P{ea.thread}: {ea.describe()}  <->  P{eb.thread}: {eb.describe()}", f"  {hbs}"]
    if (d.hb[a] >> b) & 1 or (d.hb[b] >> a) & 1:
        first, second = (a, b) if (d.hb[a] >> b) & 1 else (b, a)
        w, o = ev[first], ev[second]
        if w.private or o.private:
            lines.append("  but a private (non-nonpriv) access does not take part in inter-thread location order")
        elif w.is_write and (o.is_read or o.is_write):
            avail = any((row >> 0) for row in ())
            has_av = bool((d.avsg[first] | d.avwg[first] | d.avqf[first] | d.avsh[first]))
            chain = "an availability operation for the write" if not has_av else None
            if o.is_read and not o.is_write:
                lines.append("  missing availability/visibility chain: the write must be made available "
                             "(st.av / release with semav) to a domain that includes the reader, and the read "
                             "made visible (ld.vis / acquire with semvis) from it, at a scope covering both")
            else:
                lines.append("  missing availability chain: the first write must be made available "
                             "to a scope instance covering the second write")
            if chain:
                lines.append(f"  ({chain} is absent)")
            del avail
    _ = s
    return lines


def decide(test, nochains: bool = False) -> Verdict:
    if test.format == "khronos":
        return _decide_khronos(test, nochains)
    from amddbg.models.herdcheck import decide_herd

    return decide_herd(test, nochains)


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
    results: dict[bool, list[Execution]] = {}

    def execs(chains: bool) -> list[Execution]:
        if chains not in results:
            results[chains] = list(enumerate_executions(test.scenario, Options(chains=chains)))
        return results[chains]

    queries = []
    for q in test.queries:
        exs = execs(not q.nochains)
        sat = any(_eval_query(q.expr, ex) for ex in exs)
        queries.append(QueryResult(q.text, q.line, q.nochains, q.expect_sat, sat))
    exs = execs(not nochains)
    consistent = [ex for ex in exs if ex.consistent]
    racy = [ex for ex in consistent if ex.races]
    v = Verdict(test.path, test.name, bool(consistent), bool(racy), True, queries, executions=len(exs))
    model = "NOCHAINS model" if nochains else "model with availability/visibility chains"
    if test.scenario.ill_formed:
        v.explanation.append(f"no execution: the program violates the model's static rules: "
                             f"{test.scenario.ill_formed}")
    elif consistent:
        ex = racy[0] if racy else consistent[0]
        v.explanation.append(f"{len(consistent)} of {len(exs)} candidate executions are consistent ({model}); "
                             f"witness:")
        v.explanation += ["  " + ln for ln in describe_rf(ex, ex.witness_rf())]
        if racy:
            a, b = racy[0].races[0]
            v.explanation += explain_race(racy[0], a, b)
    else:
        v.explanation.append(f"no consistent execution ({model}) satisfies the values required by the test")
        if exs:
            v.explanation.append(f"  e.g. {exs[0].failure}")
    return v
