"""Slow checks in bounded form: one knob (AMDDBG_SLOW_LIMIT) and one way to pick a corpus matrix's sample.

The corpora under corefiles/ are built by clang-19 and clang-22 for six targets (gfx90a and gfx942 wave64, gfx1100
and gfx1200 wave32 and wave64) at -O0 and -O2: 24 objects. A test that runs every kernel on every object is a
matrix of hundreds of emulator runs; CI (2 cores, a 15-minute budget) runs it in bounded form:

- the *fast* cases (each test file names them: a few objects, or one object per kernel) always run, unmarked;
- every other case is marked `slow`; of those, by default only a *representative sample* runs: the cover, the
  fewest cases that with the fast ones run every kernel class, target, compiler and -O level somewhere, picked
  in the rotation over classes, targets and (compiler, level) pairs that `rounds` orders (`cover`; the older
  "cells" sample, one case for every (kernel class, target) the fast cases leave out, is `sample="cells"`);
- AMDDBG_SLOW_LIMIT=0 runs every case; AMDDBG_SLOW_LIMIT=N runs N slow cases per matrix (the sample first, then
  the next rotations, so N grows the coverage evenly).

Count-bounded slow checks (a corpus walk over N objects or files, N fuzz mutants per seed) use `count`: their own
default when the variable is unset, everything for 0 (a fuzzer, which has no "everything", keeps its default),
N otherwise. The choice depends only on the names and the variable: every run picks the same cases.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

ENV = "AMDDBG_SLOW_LIMIT"
_NAME = re.compile(r"-llvm(\d+)-(gfx\w+?)-w(\d+)-(O\d)\.co$")


def limit() -> int | None:
    """AMDDBG_SLOW_LIMIT: None when unset or empty (the bounded default), 0 for everything, N > 0 for N."""
    raw = os.environ.get(ENV, "").strip()
    if not raw:
        return None
    n = int(raw)
    if n < 0:
        raise ValueError(f"{ENV}={raw}: want 0 (everything) or a positive count")
    return n


def count(default: int, everything: int | None = None) -> int:
    """How many items a count-bounded slow check takes: `default` when AMDDBG_SLOW_LIMIT is unset, `everything`
    (the whole corpus; `default` for checks that have no whole, such as fuzzers) for 0, N for N."""
    n = limit()
    if n is None:
        return default
    if n == 0:
        return default if everything is None else everything
    return n


def spread(items: Sequence, n: int) -> list:
    """`n` of `items` spread evenly over the sequence (the first, then every len/n-th), in order; all when n is
    at least their number."""
    if n >= len(items):
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def axes(obj: str | Path) -> tuple[str, str, str]:
    """(compiler, target with wave size, -O level) of a corpus object name: `x-llvm22-gfx1100-w32-O2.co` ->
    ('22', 'gfx1100-w32', 'O2')."""
    m = _NAME.search(Path(obj).name)
    if m is None:
        raise ValueError(f"{obj}: not a corpus object name (<corpus>-llvm<N>-<gfx>-w<wave>-O<n>.co)")
    return m.group(1), f"{m.group(2)}-w{m.group(3)}", m.group(4)


def _target_key(target: str) -> tuple[int, int]:
    gfx, wave = target.split("-w")
    return int(re.sub(r"\D", "", gfx) or 0, 16), int(wave)


@dataclass(frozen=True)
class Case:
    kernel: str | None
    obj: str | Path
    slow: bool


def matrix(objects: Iterable[str | Path], kernels: Sequence[str | None] = (None,),
           fast: Callable[[str | None, str], bool] | Iterable[str] = (),
           classes: Callable[[str | None], str] | None = None, sample: str = "axes",
           avoid: Callable[[str | None, str], bool] | None = None) -> list[Case]:
    """The cases of a corpus matrix that this run takes, in the order kernels x objects: every (kernel, object)
    for which `fast(kernel, object name)` is true (or whose object name is in the set `fast`), and the slow cases
    AMDDBG_SLOW_LIMIT selects (the module's docstring): by default the sample.

    `classes` maps a kernel to its class (kernels whose checks take the same path: the sample takes one case per
    class and target, rotating over the class's kernels); by default each kernel is its own class.

    `sample` says what the default sample covers with the fast cases. "axes" (`cover(...)`, every corpus's
    choice): every kernel class, every target, every compiler and every -O level, each somewhere, which takes a
    handful of cases where "cells" takes one per class and target; with AMDDBG_SLOW_LIMIT=N the cover comes first,
    then the rounds' other cases. "cells" (`rounds(...)[0]`): every (kernel class, target). The cover takes no
    case for which `avoid(kernel, object name)` is true (known failures: an xfail cannot fail the run, so it
    covers nothing)."""
    objects = sorted(objects, key=lambda o: Path(o).name)
    if not callable(fast):
        names = set(fast)
        fast = lambda _k, name: name in names  # noqa: E731
    every = [(k, o) for k in kernels for o in objects]
    is_fast = {c: bool(fast(c[0], Path(c[1]).name)) for c in every}
    order = rounds([c for c in every if not is_fast[c]], [c for c in every if is_fast[c]], classes)
    if sample == "axes":
        first = cover([c for r in order for c in r if not (avoid and avoid(c[0], Path(c[1]).name))],
                      [c for c in every if is_fast[c]], classes)
        order = [first, *([c for c in r if c not in first] for r in order)]
    elif sample != "cells":
        raise ValueError(f"sample={sample!r}: want 'cells' or 'axes'")
    n = limit()
    if n is None:
        picked = set(order[0])
    elif n == 0:
        picked = {c for r in order for c in r}
    else:  # whole rounds while they fit, then a round's cases spread over its cells
        picked = set()
        for r in order:
            picked |= set(spread(r, n - len(picked)))
    return [Case(k, o, not is_fast[(k, o)]) for k, o in every if is_fast[(k, o)] or (k, o) in picked]


def rounds(slow: Sequence[tuple], fast: Sequence[tuple] = (),
           classes: Callable[[str | None], str] | None = None) -> list[list[tuple]]:
    """The slow (kernel, object) cases in sampling rounds. The cells are (kernel class, target), classes in the
    kernels' order, targets by processor and wave size. Round 0, the default sample, takes one case of every cell
    the fast cases leave uncovered: its (compiler, -O level) pair is the next of (19,O0) (22,O2) (19,O2) (22,O0)
    (any two successive picks differ in both), its kernel the next of its class. Round r > 0 takes the next
    candidate of every cell, each step moving both the pair and the kernel. Together the rounds are all of `slow`."""
    classes = classes or (lambda k: "" if k is None else k)
    everything = [*fast, *slow]
    kernels = list(dict.fromkeys(k for k, _ in everything))
    class_order = list(dict.fromkeys(classes(k) for k in kernels))
    members = {c: [k for k in kernels if classes(k) == c] for c in class_order}
    targets = sorted({axes(o)[1] for _, o in everything}, key=_target_key)
    compilers = sorted({axes(o)[0] for _, o in everything}, key=int)
    opts = sorted({axes(o)[2] for _, o in everything})
    npairs = len(compilers) * len(opts)
    pairs = [(compilers[i % len(compilers)], opts[(i + i // len(compilers)) % len(opts)]) for i in range(npairs)]
    covered = {(classes(k), axes(o)[1]) for k, o in fast}
    cells = []
    # where each cell's rotation starts, counted apart for the cells round 0 samples and for the covered ones (whose
    # first candidate comes in round 1): [pair, kernel of the class]
    step = {False: [0, 0], True: [0, 0]}
    for cls in class_order:
        ks = members[cls]
        for s in step.values():
            s[1] = 0
        for target in targets:
            here = [c for c in slow if classes(c[0]) == cls and axes(c[1])[1] == target]
            if not here:
                continue
            s = step[(cls, target) in covered]

            def rank(case, p0=s[0], k0=s[1], ks=ks):
                comp, _, opt = axes(case[1])
                p = (pairs.index((comp, opt)) - p0) % npairs
                k = (ks.index(case[0]) - k0) % len(ks)
                return (p - k) % npairs, k  # the diagonal first: kernel and pair both move each step

            here.sort(key=rank)
            cells.append([None, *here] if (cls, target) in covered else here)
            s[0], s[1] = s[0] + 1, s[1] + 1
    out = []
    for r in range(max((len(c) for c in cells), default=0)):
        out.append([c[r] for c in cells if r < len(c) and c[r] is not None])
    return out or [[]]


def cover(candidates: Sequence[tuple], fast: Sequence[tuple] = (),
          classes: Callable[[str | None], str] | None = None) -> list[tuple]:
    """The fewest of the slow (kernel, object) `candidates` that, with the `fast` cases, run every kernel class,
    target, compiler and -O level of the matrix somewhere (a greedy cover: each pick adds the most of what is still
    missing, the earliest candidate on ties). Given in `rounds` order, the picks rotate as the sample does: round 0
    moves the class, the target and the (compiler, level) pair together."""
    classes = classes or (lambda k: "" if k is None else k)

    def items(case: tuple) -> set[tuple[str, str]]:
        comp, target, opt = axes(case[1])
        return {("class", classes(case[0])), ("target", target), ("compiler", comp), ("level", opt)}

    missing = set().union(*map(items, candidates)) - set().union(*map(items, fast))
    picked: list[tuple] = []
    while missing:
        best = max(candidates, key=lambda c: len(items(c) & missing))
        missing -= items(best)
        picked.append(best)
    return picked


def params(cases: Iterable[Case], ids: Callable[[Case], str], marks: Callable[[Case], list] | None = None,
           kernel: bool = True) -> list:
    """pytest.param((kernel, obj) or obj) for each case, the slow ones marked `slow`, plus `marks(case)`."""
    out = []
    for c in cases:
        m = ([pytest.mark.slow] if c.slow else []) + (list(marks(c)) if marks else [])
        values = (c.kernel, c.obj) if kernel else (c.obj,)
        out.append(pytest.param(*values, marks=m, id=ids(c)))
    return out
