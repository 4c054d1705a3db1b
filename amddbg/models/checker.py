"""Exhaustive enumeration of candidate executions over a fixed set of events.

The API is events in, executions out: `Scenario` carries the events (from a litmus test or, later,
lifted from real waves), program order, system-synchronizes-with pairs, the allowed reads-from
sources of every read, and the alternative barrier pairings. `enumerate_executions` yields one
`Execution` per choice of scoped modification order, barrier pairing and reads-from of the atomic
reads (the choices that can change happens-before); reads-from of the non-atomic reads is then
decided per location, since every consistency axiom relates same-location events only. Each
`Execution` knows whether some consistent completion exists, its data races, and the feasible
reads-from assignments per location.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import permutations, product

from amddbg.errors import AmddbgError
from amddbg.models import rel as R
from amddbg.models.events import INIT, Event
from amddbg.models.memory import Dynamic, Options, StaticModel

# Limit of feasible reads-from assignments kept per location for condition evaluation and witnesses.
_MAX_FEASIBLE = 4096


@dataclass
class Scenario:
    events: list[Event]
    po_threads: list[list[int]]
    ssw: list[tuple[int, int]] = field(default_factory=list)
    rf_allowed: dict[int, list[int]] = field(default_factory=dict)  # read -> sources (INIT = -1)
    syncbars: list[R.Rel] | None = None  # alternative barrier pairings (None: no barriers)
    final_reads: set[int] = field(default_factory=set)  # reads whose sources must be co-maximal
    ill_formed: str | None = None  # a static fact of the model the program violates
    init_values: dict[str, object] = field(default_factory=dict)

    def init_value(self, loc: str | None) -> object:
        return self.init_values.get(loc, 0) if loc is not None else None


@dataclass
class Execution:
    scenario: Scenario
    static: StaticModel
    dyn: Dynamic
    asmo: R.Rel
    syncbar: R.Rel
    rf_atomic: dict[int, int]
    feasible: dict[int, list[dict[int, int]]]  # location mask -> feasible rf completions
    failure: str | None  # why no consistent completion exists (None if consistent)

    @property
    def consistent(self) -> bool:
        return self.failure is None

    @property
    def races(self) -> list[tuple[int, int]]:
        return [(a, b) for a, b in R.pairs(self.dyn.dr) if a < b]

    def witness_rf(self) -> dict[int, int]:
        rf = dict(self.rf_atomic)
        for sols in self.feasible.values():
            if sols:
                rf.update(sols[0])
        return rf


def location_classes(s: StaticModel) -> list[int]:
    seen = 0
    out = []
    for i in range(s.n):
        m = s.sloc[i]
        if m and not (seen >> i) & 1:
            out.append(m)
            seen |= m
    return out


def _merges(seqs: list[list[int]]) -> Iterator[list[int]]:
    """All interleavings of the sequences (each kept in order)."""
    seqs = [q for q in seqs if q]
    if not seqs:
        yield []
        return
    for k, q in enumerate(seqs):
        rest = seqs[:k] + [q[1:]] + seqs[k + 1:]
        for tail in _merges(rest):
            yield [q[0]] + tail


def _loc_orders(s: StaticModel, ws: list[int], mo: list[int], po_ordered: bool = False) -> Iterator[R.Rel]:
    seen = set()
    if po_ordered:  # same-thread writes keep program order (else po-loc;asmo would be cyclic)
        by_thread: dict[int, list[int]] = {}
        for w in ws:
            by_thread.setdefault(s.events[w].thread, []).append(w)
        orders = _merges([sorted(v, key=lambda w: bin(s.po[w]).count("1"), reverse=True)
                          for v in by_thread.values()])
    else:
        orders = permutations(ws)
    for perm in orders:
        rel = R.empty(s.n)
        for i, a in enumerate(perm):
            for b in perm[i + 1:]:
                if (mo[a] >> b) & 1:
                    rel[a] |= 1 << b
        if R.closure(rel) != rel:
            continue
        key = tuple(rel)
        if key not in seen:
            seen.add(key)
            yield rel


def asmo_choices(s: StaticModel, po_ordered: bool = False) -> Iterator[R.Rel]:
    """Strict partial orders whose symmetric closure is mutordatom over atomic writes (spirv.als).

    Generated lazily: a location with many mutually ordered writes has factorially many orders, and
    callers usually stop early or prune most of them with the coherence pre-check."""
    n = s.n
    aw = s.A & s.W
    mo = [s.mutordatom[i] & aw for i in range(n)]
    locs = []
    for locm in location_classes(s):
        ws = list(R.bits(locm & aw))
        if any(mo[w] for w in ws):
            locs.append(ws)
    if not locs:
        yield R.empty(n)
        return

    def rec(k: int, acc: R.Rel) -> Iterator[R.Rel]:
        if k == len(locs):
            yield acc
            return
        for part in _loc_orders(s, locs[k], mo, po_ordered):
            yield from rec(k + 1, R.union(acc, part))

    yield from rec(0, R.empty(n))


# The search is exhaustive, so its cost grows as the product of every read's possible sources and
# every location's store orders: three threads of two stores and two loads reach millions of
# candidates. It is bounded: past the bound the search stops with `SearchBound` (no verdict is
# better than a wrong one), and the bound is reported. AMDDBG_LITMUS_LIMIT or `--limit` raise it.
DEFAULT_EXECUTION_LIMIT = 50_000  # about 20 s and 50 MB at the measured 2,500 candidates per second
PROGRESS_EVERY = 2048


class SearchBound(AmddbgError):
    """The candidate-execution search reached its bound before finishing."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"search stopped at its bound of {limit} candidate executions without a verdict "
                         "(raise it with --limit N or AMDDBG_LITMUS_LIMIT)")
        self.limit = limit


class SearchBudget:
    """How many candidates the searches of one test may visit in total, and who hears of progress."""

    def __init__(self, limit: int | None = None, progress=None) -> None:
        import os

        if limit is None:
            try:
                limit = int(os.environ.get("AMDDBG_LITMUS_LIMIT", DEFAULT_EXECUTION_LIMIT))
            except ValueError:
                limit = DEFAULT_EXECUTION_LIMIT
        self.limit = max(1, limit)
        self.visited = 0
        self.progress = progress  # called with the running count every PROGRESS_EVERY candidates

    def tick(self) -> None:
        self.visited += 1
        if self.visited > self.limit:
            raise SearchBound(self.limit)
        if self.progress is not None and self.visited % PROGRESS_EVERY == 0:
            self.progress(self.visited, self.limit)


# The budget of the test being decided (set by `verdict.decide`); None: the default bound per search.
current_budget: SearchBudget | None = None


def enumerate_executions(sc: Scenario, options: Options | None = None, need_completion: bool = True,
                         only_consistent: bool = False) -> Iterator[Execution]:
    """Candidate executions of `sc`. `only_consistent` lets a cheap coherence pre-check drop choices
    that cannot be consistent before the model is evaluated (callers that also ask questions about
    inconsistent candidates, like alloy queries without consistent[X], keep it False).

    Bounded by `current_budget` (or a fresh default budget): raises `SearchBound` past it."""
    s = StaticModel(sc.events, sc.po_threads, sc.ssw, options)
    budget = current_budget or SearchBudget()
    for ex in _enumerate(sc, s, need_completion, only_consistent):
        budget.tick()
        yield ex


def _enumerate(sc: Scenario, s: StaticModel, need_completion: bool, only_consistent: bool = False
               ) -> Iterator[Execution]:
    if sc.ill_formed:
        return
    reads = [i for i in range(s.n) if (s.R >> i) & 1]
    atomic_reads = [r for r in reads if (s.A >> r) & 1]
    plain_reads = [r for r in reads if not (s.A >> r) & 1]

    def sources(r: int) -> list[int]:
        if r in sc.rf_allowed:
            return sc.rf_allowed[r]
        return [INIT] + [w for w in R.bits(s.sloc[r] & s.W) if w != r]

    locs = location_classes(s)
    syncbars = sc.syncbars or [R.empty(s.n)]
    asmos = asmo_choices(s, po_ordered=only_consistent)
    atomic_srcs = [sources(r) for r in atomic_reads]
    plain_by_loc = {m: [r for r in plain_reads if (m >> r) & 1] for m in locs}
    # po between same-location same-reference accesses is always in locord: a cheap coherence pre-check
    po_loc = R.inter(R.inter(s.po, s.sloc), s.sref)
    finals = sc.final_reads

    def rf_choices(asmo: R.Rel, base: R.Rel) -> Iterator[dict[int, int]]:
        """Reads-from of the atomic reads, depth first, pruned by the coherence pre-check."""
        n_a = len(atomic_reads)
        rf: dict[int, int] = {}

        def rec(k: int, g: R.Rel) -> Iterator[dict[int, int]]:
            if k == n_a:
                yield dict(rf)
                return
            r = atomic_reads[k]
            for w in atomic_srcs[k]:
                if r in finals and ((w == INIT and s.sloc[r] & s.W) or (w != INIT and asmo[w])):
                    continue
                if only_consistent:
                    g2 = list(g)
                    if w == INIT:
                        g2[r] |= s.sloc[r] & s.W & ~(1 << r)
                    else:
                        g2[w] |= 1 << r
                        g2[r] |= asmo[w] & ~(1 << r)
                    if not R.is_acyclic(g2):
                        continue
                else:
                    g2 = g
                rf[r] = w
                yield from rec(k + 1, g2)
                del rf[r]

        yield from rec(0, base)

    for asmo in asmos:
        coh_base = R.union(po_loc, asmo)
        for syncbar in syncbars:
            for rf_a in rf_choices(asmo, coh_base):
                dyn = Dynamic(s, rf_a, asmo, syncbar)
                feasible: dict[int, list[dict[int, int]]] = {}
                failure = None
                if need_completion:
                    for m in locs:
                        prs = plain_by_loc[m]
                        sols = []
                        base = {r: w for r, w in rf_a.items() if (m >> r) & 1}
                        for pc in product(*(sources(r) for r in prs)):
                            rf = dict(base)
                            rf.update(zip(prs, pc, strict=True))
                            if not _final_ok(sc, s, asmo, rf):
                                continue
                            ok, _why = dyn.location_consistent(rf, m)
                            if ok:
                                sols.append(dict(zip(prs, pc, strict=True)))
                                if len(sols) >= _MAX_FEASIBLE:
                                    break
                        feasible[m] = sols
                        if not sols:
                            failure = _describe_failure(sc, s, dyn, base, prs, m, sources)
                            break
                yield Execution(sc, s, dyn, asmo, syncbar, rf_a, feasible, failure)


def _final_ok(sc: Scenario, s: StaticModel, asmo: R.Rel, rf: dict[int, int]) -> bool:
    """Reads of a loop iteration that spins forever must see co-maximal (final) values."""
    for r in sc.final_reads:
        if r not in rf:
            continue
        w = rf[r]
        if w == INIT:
            if s.sloc[r] & s.W:
                return False
        elif asmo[w]:
            return False
    return True


def _describe_failure(sc: Scenario, s: StaticModel, dyn: Dynamic, base: dict[int, int], prs: list[int],
                      m: int, sources) -> str:
    ev = sc.events
    names = sorted({ev[i].loc for i in R.bits(m) if ev[i].loc})
    return f"no reads-from choice for location {', '.join(names)} is consistent (coherence cycle)"
