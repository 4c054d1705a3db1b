"""Async operations: async marks per function body (AMDGPU) and FIFO async queues (TVM RFC).

AMDGPU (amdgpu-async-operations.rst): an async mark covers every async operation program-ordered
before it in the same function body; `wait.asyncmark(N)` waits until at most N marks are outstanding,
so the oldest ones complete, and an operation is completed at a point when some completed mark
follows it. An async operation A before an overlapping access X happens-before X only if A is
completed before X; X before an overlapping A always happens-before A.

TVM (`async_commit_queue(q)` / `async_wait_queue(q, N)`): committed groups complete in FIFO order per
queue, and a wait leaves at most the N most recent groups of that queue in flight.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AsyncMarks:
    """The mark sequence of one function body, fed in program order."""

    unmarked: list[object] = field(default_factory=list)  # ops issued since the last mark
    marks: list[list[object]] = field(default_factory=list)  # outstanding marks, oldest first
    completed: list[object] = field(default_factory=list)

    def op(self, op: object) -> None:
        self.unmarked.append(op)

    def asyncmark(self) -> None:
        self.marks.append(self.unmarked)
        self.unmarked = []

    def wait(self, n: int) -> list[object]:
        """wait.asyncmark(n): returns the operations this wait completes (oldest marks first)."""
        done = []
        while len(self.marks) > max(n, 0):
            done += self.marks.pop(0)
        self.completed += done
        return done

    def outstanding(self) -> list[object]:
        return [op for m in self.marks for op in m] + list(self.unmarked)

    def is_completed(self, op: object) -> bool:
        return op in self.completed


@dataclass
class AsyncQueues:
    """TVM async queues: groups committed to a queue complete in FIFO order."""

    pending: dict[int, list[object]] = field(default_factory=dict)  # ops not yet committed, per queue
    groups: dict[int, list[list[object]]] = field(default_factory=dict)  # in-flight groups, oldest first
    completed: list[object] = field(default_factory=list)

    def op(self, queue: int, op: object) -> None:
        self.pending.setdefault(queue, []).append(op)

    def commit(self, queue: int) -> None:
        self.groups.setdefault(queue, []).append(self.pending.pop(queue, []))

    def wait(self, queue: int, n: int) -> list[object]:
        """async_wait_queue(queue, n): only the n most recent groups stay in flight."""
        q = self.groups.setdefault(queue, [])
        done = []
        while len(q) > max(n, 0):
            done += q.pop(0)
        self.completed += done
        return done

    def in_flight(self, queue: int) -> int:
        return len(self.groups.get(queue, []))


def async_happens_before(trace: list[tuple[str, object]]) -> list[tuple[object, object]]:
    """Happens-before edges between async ops and overlapping accesses of one function body.

    `trace` is program order: ("async", (op, location)), ("access", (x, location)), ("mark", None),
    ("wait", N). Returns (a, b) pairs: access before an overlapping async op, and async op before an
    overlapping access only when the op has completed by then.
    """
    marks = AsyncMarks()
    seen_async: list[tuple[object, object]] = []
    seen_access: list[tuple[object, object]] = []
    edges = []
    for kind, payload in trace:
        if kind == "async":
            op, loc = payload
            edges += [(x, op) for x, xl in seen_access if xl == loc]
            marks.op(op)
            seen_async.append((op, loc))
        elif kind == "access":
            x, loc = payload
            edges += [(op, x) for op, ol in seen_async if ol == loc and marks.is_completed(op)]
            seen_access.append((x, loc))
        elif kind == "mark":
            marks.asyncmark()
        elif kind == "wait":
            marks.wait(int(payload))
        else:
            raise ValueError(f"unknown async trace item {kind!r}")
    return edges
