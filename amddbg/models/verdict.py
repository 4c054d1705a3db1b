"""Verdicts for litmus tests: condition, data race, termination, with an explanation.

`decide(test, nochains=False)` runs the checker over a parsed test and returns a `Verdict` whose
fields match `amddbg litmus --json`; `Verdict.explain()` renders the witness (who read from whom),
the missing availability/visibility chain behind a race, and barriers that never complete.
"""

from __future__ import annotations

from amddbg.models import rel as R
from amddbg.models.checker import Execution, enumerate_executions
from amddbg.models.herdcheck import decide_herd
from amddbg.models.memory import Options
from amddbg.models.outcome import QueryResult, Verdict, describe_rf, explain_race

__all__ = ["QueryResult", "Verdict", "decide", "describe_rf", "explain_race"]  # the data lives in .outcome


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
