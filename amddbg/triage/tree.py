"""The STAT-style merge: wave classes of many cores folded into one prefix tree of frames.

A worker turns one core into a `CoreSummary` (small: one row per distinct (kernel, stack, state) with
counts), so that only summaries ever cross a process or network boundary. The tree merges them in a
deterministic order (input order of the cores), which makes the local, `--jobs` and Dask results equal.

Every node counts waves and the cores (ranks) that reach it. A leaf is one state at one innermost frame;
a leaf reached by more than half of the readable cores is a *majority* branch. A core whose waves all
lie in majority branches is ordinary and collapses into a count; any other core is an *outlier* and is
named beside the branches only it (and a few others) reach.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field


@dataclass
class WaveClass:
    """Waves of one core that share kernel, call stack (outermost first) and state."""

    kernel: str
    stack: tuple[str, ...]
    state: str
    count: int
    # waves of this class per workgroup that has it ("x,y,z" -> count): kept by workgroup so that classes that
    # merge into one branch (two call sites under --by line) add up per workgroup
    workgroups: dict[str, int] = field(default_factory=dict)
    sample: dict | None = None  # one wave: {"thread", "target_id", "workgroup", "wave_in_group", "pc", "lanes"}

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "stack": list(self.stack), "state": self.state, "count": self.count,
                "workgroups": self.workgroups, "sample": self.sample}

    @classmethod
    def from_json(cls, d: dict) -> WaveClass:
        return cls(d["kernel"], tuple(d["stack"]), d["state"], d["count"], dict(d.get("workgroups") or {}),
                   d.get("sample"))


@dataclass
class CoreSummary:
    path: str
    name: str  # how the report names the core (rank): the file name
    error: str | None = None
    waves: int = 0
    classes: list[WaveClass] = field(default_factory=list)
    dispatches: list[dict] = field(default_factory=list)  # {"kernel", "grid", "block"}
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # a core cut short: "truncated at offset 0x11170 (0x18060 bytes expected), 0 of 4 waves readable"; such a
    # core is never ordinary (its missing waves could be anywhere) and is not counted toward the majority
    damage: str | None = None

    def to_json(self) -> dict:
        return {"path": self.path, "name": self.name, "error": self.error, "waves": self.waves,
                "classes": [c.to_json() for c in self.classes], "dispatches": self.dispatches,
                "warnings": self.warnings, "seconds": round(self.seconds, 4), "damage": self.damage}

    @classmethod
    def from_json(cls, d: dict) -> CoreSummary:
        return cls(d["path"], d["name"], d.get("error"), d.get("waves", 0),
                   [WaveClass.from_json(c) for c in d.get("classes", [])], d.get("dispatches", []),
                   d.get("warnings", []), d.get("seconds", 0.0), d.get("damage"))


@dataclass
class Node:
    label: str
    kind: str  # "root" | "kernel" | "frame" | "state"
    waves: int = 0
    cores: list[int] = field(default_factory=list)  # indices into the summaries, ascending, unique
    children: dict[str, Node] = field(default_factory=dict)
    per_workgroup: Counter = field(default_factory=Counter)  # count per workgroup -> how many workgroups
    majority: bool = False
    sample: dict | None = None
    verdict: dict | None = None  # filled by --explain (one explanation per equivalence class)
    matches: list[dict] = field(default_factory=list)  # triage-rule matches from plugins

    def child(self, label: str, kind: str) -> Node:
        n = self.children.get(label)
        if n is None:
            n = self.children[label] = Node(label, kind)
        return n

    def add(self, core: int, waves: int) -> None:
        self.waves += waves
        if not self.cores or self.cores[-1] != core:
            self.cores.append(core)

    def leaves(self):
        if not self.children:
            yield self
        for c in self.children.values():
            yield from c.leaves()

    def path_to(self, target: Node) -> list[Node] | None:
        if self is target:
            return [self]
        for c in self.children.values():
            p = c.path_to(target)
            if p is not None:
                return [self, *p]
        return None


def level_labels(cls: WaveClass, by: str) -> list[tuple[str, str]]:
    """The (label, kind) path of a wave class for a `--by` mode."""
    if by == "kernel":
        return [(cls.kernel, "kernel"), (cls.state, "state")]
    if by == "state":
        return [(cls.state, "state")]
    if by == "line":
        inner = cls.stack[-1] if cls.stack else "??"
        return [(cls.kernel, "kernel"), (inner, "frame"), (cls.state, "state")]
    # "stack": the kernel, then each frame outermost first with its line: the kernel's own frame names the call
    # site (`barrier_deadlock:18 -> workgroup_barrier:9`), so two call sites of one helper are two branches
    return [(cls.kernel, "kernel"), *((f, "frame") for f in cls.stack), (cls.state, "state")]


@dataclass
class TriageTree:
    root: Node
    summaries: list[CoreSummary]
    by: str

    @property
    def readable(self) -> list[int]:
        return [i for i, s in enumerate(self.summaries) if s.error is None]

    @property
    def intact(self) -> list[int]:
        """Readable cores that are not damaged: the ones a majority is counted over."""
        return [i for i, s in enumerate(self.summaries) if s.error is None and s.damage is None]

    @property
    def damaged(self) -> list[CoreSummary]:
        return [s for s in self.summaries if s.error is None and s.damage is not None]

    @property
    def failed(self) -> list[CoreSummary]:
        return [s for s in self.summaries if s.error is not None]

    def outliers(self) -> list[int]:
        """Cores with at least one wave outside the majority branches, and every damaged core."""
        out = {i for i, s in enumerate(self.summaries) if s.error is None and s.damage is not None}
        for leaf in self.root.leaves():
            if not leaf.majority:
                out.update(leaf.cores)
        return sorted(out)


def merge(summaries: list[CoreSummary], by: str = "stack") -> TriageTree:
    root = Node("all", "root")
    per_leaf: dict[int, tuple[Node, Counter]] = {}  # waves per (core, workgroup) at each leaf
    for i, s in enumerate(summaries):
        if s.error is not None:
            continue
        for cls in s.classes:
            node = root
            node.add(i, cls.count)
            for label, kind in level_labels(cls, by):
                node = node.child(label, kind)
                node.add(i, cls.count)
            counts = per_leaf.setdefault(id(node), (node, Counter()))[1]
            for wg, n in cls.workgroups.items():
                counts[(i, wg)] += n
            if node.sample is None and cls.sample is not None:
                node.sample = dict(cls.sample, core=s.name, path=s.path)
    for node, counts in per_leaf.values():
        node.per_workgroup = Counter(counts.values())
    intact = {i for i, s in enumerate(summaries) if s.error is None and s.damage is None}
    for leaf in root.leaves():
        leaf.majority = bool(intact) and sum(1 for c in leaf.cores if c in intact) * 2 > len(intact)
    return TriageTree(root, summaries, by)


def per_workgroup_text(node: Node) -> str | None:
    """'1 per workgroup' when every workgroup holding these waves holds the same number, else a range."""
    if not node.per_workgroup:
        return None
    values = sorted(node.per_workgroup)
    if len(values) == 1:
        return f"{values[0]} per workgroup"
    return f"{values[0]}-{values[-1]} per workgroup"
