"""Bounded exploration of schedules and visibility orders (docs/emulator.md "Exploration").

One emulator run is one execution: the deterministic round-robin (seed 0) and the deterministic cache
policy give one interleaving and one visibility order. Litmus-style questions ("can the reader see the flag
but not the data?") need the other executions the hardware may take, so `explore` reruns a freshly built
machine under

* seeded schedules: `Machine(..., seed=s)` with s != 0 launches the waves at different times (odd seeds one
  after another in the (s // 2)-th order, even seeds overlapped), shuffles the turn order of the ready waves
  every round and draws each turn's length (1..16 instructions) from the seed;
* visibility orders (`Visibility`): lines that a CU's L1 (and GL1) already holds when the waves start
  (a stale copy for every later load that does not bypass or invalidate), delayed write-through (a store
  waits in its CU's in-order write path and reaches L2 at a point the explorer draws, at the latest when the
  writing wave gets past a wait on its store counter, where every release wider than the CU waits), and
  evictions (a cache may drop a line at any time).

Each of these is a behaviour the AMDGPU memory model allows the hardware, so an outcome the model forbids
must never appear; the exploration is bounded (seeds x visibilities runs), so an allowed outcome may be
missed, and the caller says which allowed outcomes the machine cannot produce at all.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from amddbg.emu.machine import Machine, RunResult


@dataclass(frozen=True)
class Visibility:
    """One choice of visibility order.

    `prefill`: (workgroup index, buffer argument index, byte offset) — the line is in the L1 of the CU (GFX10+:
    the WGP's L0 and the shader array's GL1) that runs that workgroup, filled from L2 before the waves start.
    `delay`: stores are delayed in the CU's write path; after every instruction one CU's oldest store
    reaches L2 with probability `drain`. `evict`: after every instruction one random L1 line is dropped with
    that probability. `seed` draws those choices (one seed reproduces one visibility order).
    """

    prefill: tuple[tuple[int, int, int], ...] = ()
    delay: bool = False
    drain: float = 0.25
    evict: float = 0.0
    seed: int = 0
    name: str = field(default="", compare=False)

    def label(self) -> str:
        if self.name:
            return self.name
        parts = []
        if self.prefill:
            parts.append(f"prefill{len(self.prefill)}")
        if self.delay:
            parts.append(f"delay{self.drain:g}")
        if self.evict:
            parts.append(f"evict{self.evict:g}")
        return "+".join(parts) + (f"#{self.seed}" if self.seed else "") if parts else "none"


NONE = Visibility()


def apply_visibility(machine: Machine, vis: Visibility) -> None:
    """Put a dispatched machine in the visibility order `vis` (before `run`)."""
    caches = machine.caches
    for group, arg, offset in vis.prefill:
        buf = next((b for b in machine.buffers if b["arg"] == arg), None)
        if buf is None:
            raise ValueError(f"prefill names argument {arg}, which is not a buffer")
        caches.prefill(_GroupKey(group), buf["address"] + offset)
    if vis.delay or vis.evict:
        caches.configure(delay=vis.delay, drain_probability=vis.drain, evict_probability=vis.evict,
                         rng=random.Random(0x5EED ^ vis.seed))


@dataclass(frozen=True)
class _GroupKey:
    """What the cache model needs of a wave to place it on a CU: its workgroup's index."""

    group_key: int


class Run(NamedTuple):
    """(seed, visibility, RunResult, outcome): a tuple, with names."""

    seed: int
    visibility: Visibility
    result: RunResult
    outcome: object


def explore(make: Callable[[int, Visibility], Machine], *, seeds: Iterable[int] = range(8),
            visibilities: Iterable[Visibility] = (NONE,), max_instructions: int | None = 20_000,
            outcome: Callable[[Machine, RunResult], object] | None = None) -> list[Run]:
    """Run `make(seed, visibility)` (a dispatched machine built with that seed) under every seed and
    visibility; `outcome(machine, result)` reads what the caller compares (default: every buffer's values).
    Returns one `Run` (seed, visibility, RunResult, outcome) per pair, in order."""
    from amddbg.emu.args import read_buffer

    def default(m: Machine, _r: RunResult) -> object:
        return tuple(tuple(read_buffer(m, b)) for b in m.buffers)

    read = outcome or default
    runs = []
    vis_list = list(visibilities)
    for seed in seeds:
        for vis in vis_list:
            m = make(seed, vis)
            apply_visibility(m, vis)
            r = m.run(max_instructions=max_instructions)
            runs.append(Run(seed, vis, r, read(m, r)))
    return runs


def outcomes(runs: list[Run]) -> dict[object, list[Run]]:
    """The distinct outcomes and the runs that reached each."""
    out: dict[object, list[Run]] = {}
    for r in runs:
        out.setdefault(r.outcome, []).append(r)
    return out


# -- `amddbg run --explore N`: one dispatch under N schedules and cache choices ---------------------------------

# Exit status of a run outcome, worst last (`amddbg run --explore` exits with the worst outcome's): the codes
# `amddbg explain` uses for the same situations (0 nothing wrong found, 3 hang, 4 fault or trap), 1 for a run the
# emulator could not finish (an instruction it does not emulate).
STATUS_EXIT = {"completed": 0, "limit": 0, "unsupported": 1, "hang": 3, "fault": 4, "trap": 4}
_WORST = ("completed", "limit", "unsupported", "hang", "trap", "fault")


# A pre-filled choice puts the first PREFILL_BYTES of every buffer argument in every CU's L1 (and GFX10+ GL1), as
# an access of that CU right after the dispatch's acquire would have: the flags and counters a poll reads sit at the
# start of small buffers, and a line a reader holds before the writer writes is what makes a publication at too
# narrow a scope hang (without waiting for a schedule that has the reader read first).
PREFILL_BYTES = 1024


def choice_for(seed: int, prefill: tuple = ()) -> Visibility:
    """The cache choice that goes with schedule `seed` in `explore_dispatch`: seed 0 is the default run
    (round-robin, caches as docs/emulator.md describes them); odd seeds change the schedule only (launch orders);
    even seeds also delay every store in its CU's write path (drained at random points drawn from the seed, at the
    latest at the writer's wait on its store counter), a visibility order the memory model allows; and seeds
    4, 8, 12, ... start with the lines `prefill` names (`prefill_lines`) already in the CUs' caches."""
    if seed == 0 or seed % 2:
        return NONE
    if seed % 4 == 0 and prefill:
        return Visibility(prefill=tuple(prefill), delay=True, drain=0.25, seed=seed)
    return Visibility(delay=True, drain=0.25, seed=seed)


def prefill_lines(m: Machine) -> tuple[tuple[int, int, int], ...]:
    """(workgroup index, buffer argument, offset) for the first PREFILL_BYTES of each buffer argument of the
    dispatched machine `m`, once per CU and shader array (workgroup indices 0..lcm(CUS, ARRAYS)-1 reach them all)."""
    from math import lcm

    from amddbg.emu.args import TYPES
    from amddbg.emu.caches import ARRAYS, CUS, LINE

    groups = min(len(m.groups), lcm(CUS, ARRAYS))
    out = []
    for b in m.buffers:
        size = TYPES.get(b.get("type"), ("", 4))[1] * int(b.get("count", 0))
        for off in range(0, min(size, PREFILL_BYTES), LINE):
            out += [(g, b["arg"], off) for g in range(groups)]
    return tuple(out)


@dataclass
class Outcome:
    """One outcome of an exploration: a run status and the seeds that ended with it (ascending)."""

    status: str
    seeds: list[int]
    reason: str  # the first such run's reason

    def to_json(self) -> dict:
        return {"status": self.status, "seeds": list(self.seeds), "reason": self.reason}


@dataclass
class Exploration:
    """What `explore_dispatch` found: every run (seed order), the outcomes grouped by status (worst first), the
    first hang's seed (None: no run hung) and the path of its core if one was written."""

    runs: list[Run]
    outcomes: list[Outcome]
    first_hang: int | None = None
    core: str | None = None

    @property
    def exit_code(self) -> int:
        return max((STATUS_EXIT.get(o.status, 1) for o in self.outcomes), default=0)

    @property
    def schedule_dependent(self) -> bool:
        """Some seeds hang and others do not: the hang depends on the schedule or the cache choices."""
        statuses = {o.status for o in self.outcomes}
        return "hang" in statuses and len(statuses) > 1

    def summary(self) -> str:
        """`completed: 7 seeds, hang: 1 seed (3)`: each outcome with its seeds (listed when few)."""
        parts = []
        for o in self.outcomes:
            n = len(o.seeds)
            listed = f" ({', '.join(map(str, o.seeds))})" if n <= 8 and o.status != "completed" else ""
            parts.append(f"{o.status}: {n} seed{'s' if n != 1 else ''}{listed}")
        return ", ".join(parts)

    def to_json(self) -> dict:
        return {"outcomes": [o.to_json() for o in self.outcomes],
                "runs": [{"seed": r.seed, "visibility": r.visibility.label(), "status": r.result.status,
                          "reason": r.result.reason, "wave_instructions": r.result.wave_instructions}
                         for r in self.runs],
                "first_hang": self.first_hang, "core": self.core, "schedule_dependent": self.schedule_dependent,
                "exit_code": self.exit_code}


def explore_dispatch(code_object, kernel: str, grid, block, args=(), *, runs: int = 8,
                     max_instructions: int | None = None, core: str | None = None, layout: str = "split",
                     launch: dict | None = None) -> Exploration:
    """Dispatch `kernel` `runs` times, under seeds 0..runs-1 (`choice_for(seed)` gives each its cache choice),
    each run bounded by `max_instructions`; write the first hanging run's final state to `core` (a core `amddbg
    explain` opens; `Exploration.first_hang` says which seed). `code_object`: a path or a loaded CodeObject."""
    from amddbg.codeobj import CodeObject

    co = CodeObject.from_path(code_object) if isinstance(code_object, str) or hasattr(
        code_object, "__fspath__") else code_object
    found: dict[str, list] = {}
    state = {"first_hang": None}

    def make(seed: int, _vis: Visibility) -> Machine:
        m = Machine(co, seed=seed)
        m.dispatch(kernel, grid, block, args, **(launch or {}))
        return m

    def outcome(m: Machine, r: RunResult) -> object:
        if r.status == "hang" and state["first_hang"] is None:
            state["first_hang"] = m.seed
            if core:
                m.write_core(core, layout=layout)
        found.setdefault(r.status, [m.seed, r.reason])
        return r.status

    done = []
    prefill: tuple = ()
    if runs > 4:  # (the lines are the same for every seed: buffers are laid out before any wave runs)
        prefill = prefill_lines(make(0, NONE))
    for seed in range(runs):
        done += explore(make, seeds=[seed], visibilities=[choice_for(seed, prefill)],
                        max_instructions=max_instructions, outcome=outcome)
    by_status: dict[str, list[int]] = {}
    for run in done:
        by_status.setdefault(run.outcome, []).append(run.seed)
    order = sorted(by_status, key=lambda s: _WORST.index(s) if s in _WORST else len(_WORST))
    outs = [Outcome(s, by_status[s], found[s][1]) for s in order]
    return Exploration(done, outs, state["first_hang"], core if state["first_hang"] is not None and core else None)
