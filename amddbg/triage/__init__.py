"""Triage of many cores (LLNL STAT's merge): fold every wave of every core into (kernel, source stack,
state) and merge the cores into one prefix tree with wave and core counts; outlier cores are named.

API::

    from amddbg.triage import triage
    report = triage(["rank0.gpu", "rank1.gpu"], jobs=2)
    report.tree.root            # Node tree
    report.document()           # the JSON document (docs/triage.md)

Plugins' triage rules classify each leaf branch (and explanations) into named bug patterns.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass

from amddbg.triage.render import document, dot, rich_tree
from amddbg.triage.runner import expand_inputs, run_summaries
from amddbg.triage.tree import CoreSummary, Node, TriageTree, WaveClass, merge

__all__ = ["CoreSummary", "Node", "TriageReport", "TriageTree", "WaveClass", "merge", "triage"]


@dataclass
class TriageReport:
    tree: TriageTree
    seconds: float

    def document(self) -> dict:
        return document(self.tree, seconds=self.seconds)

    def dot(self) -> str:
        return dot(self.tree)

    def rich(self):
        return rich_tree(self.tree)


def triage(paths: Sequence, *, by: str = "stack", jobs: int = 1, cluster: str | None = None,
           explain: bool = False, plugins=None, progress: bool | None = None, sysroot: str | None = None,
           solib_search_path=None) -> TriageReport:
    if by not in ("stack", "line", "kernel", "state"):
        from amddbg.errors import UsageError

        raise UsageError(f"--by must be stack, line, kernel or state, not {by!r}")
    t0 = time.perf_counter()
    files, problems = expand_inputs(paths)
    options = {"sysroot": sysroot, "solib_search_path": solib_search_path}
    summaries = run_summaries(files, jobs=jobs, cluster=cluster, options=options, progress=progress)
    summaries += [CoreSummary(path=p, name=os.path.basename(p.rstrip(os.sep)) or p, error=why)
                  for p, why in problems]
    tree = merge(summaries, by=by)
    if plugins is not None:
        _classify(tree, plugins)
    if explain:
        from amddbg.triage.explain import explain_classes

        explain_classes(tree, plugins=plugins)
    return TriageReport(tree, time.perf_counter() - t0)


def _classify(tree: TriageTree, plugins) -> None:
    for leaf in tree.root.leaves():
        path = tree.root.path_to(leaf) or []
        subject = {"kernel": path[1].label if len(path) > 1 else None,
                   "stack": [n.label for n in path if n.kind == "frame"], "state": leaf.label,
                   "waves": leaf.waves, "cores": [tree.summaries[i].name for i in leaf.cores],
                   "per_workgroup": dict(leaf.per_workgroup), "sample": leaf.sample}
        for rule, m in plugins.classify(subject, applies_to="branch"):
            leaf.matches.append({"rule": rule, "pattern": m.pattern, "advice": m.advice, "detail": m.detail})
