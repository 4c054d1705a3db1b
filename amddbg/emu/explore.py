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
