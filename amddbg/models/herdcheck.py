"""Deciding Dat3M/herd-style VULKAN tests: control flow, spin loops, quorum barriers, conditions.

Each thread is run symbolically into *paths*: reads whose value steers control flow or feeds a stored
value branch over the values the location can hold; other reads stay symbolic and get their value
from reads-from. Side-effect-free spin loops are reduced as Dat3M does: only the iteration that exits
is kept, and a failing iteration becomes a *spinning* path whose reads must see final (co-maximal)
values for the thread to hang under fair scheduling. Loops with side effects are unrolled up to
`UNROLL_BOUND` iterations (reported). Control barriers follow Dat3M's semantics: instances are
grouped per workgroup and instance id (and barrier id); without a quorum every member must arrive,
with quorum q the barrier completes once q members arrive, a chosen set of at least q members
synchronizes with every member that passes, and fewer than q arrivals block everyone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations, product

from amddbg.amdgpu import Scope
from amddbg.errors import NotSupported
from amddbg.models import rel as R
from amddbg.models.checker import Scenario, enumerate_executions
from amddbg.models.events import INIT, Event, Kind
from amddbg.models.herdops import herd_cmp as _cmp
from amddbg.models.herdops import herd_fn as _fn
from amddbg.models.litmus.herd import HerdTest, HerdThread
from amddbg.models.memory import Options
from amddbg.models.outcome import Verdict, describe_rf, explain_race
from amddbg.models.scexplore import explore

UNROLL_BOUND = 3
_MAX_PATHS = 20000


@dataclass
class Sym:
    """The value of a read decided by reads-from (index into the path's events)."""

    index: int


@dataclass
class Path:
    tid: int
    events: list[Event]
    status: str  # done, spin, bound
    regs: dict[str, object]
    final_reads: list[int] = field(default_factory=list)


def _needed(t: HerdThread) -> set[str]:
    out = set()
    for ins in t.code:
        for k in ("a", "b", "value", "resource", "quorum"):
            v = ins.args.get(k)
            if isinstance(v, str):
                out.add(v)
    return out


def _event(test: HerdTest, t: HerdThread, ins, kind: Kind) -> Event:
    a = ins.args
    inst = {Scope.WAVEFRONT: (t.qf, t.wg, t.sg), Scope.WORKGROUP: (t.qf, t.wg), Scope.CLUSTER: (t.qf, t.wg),
            Scope.QUEUE_FAMILY: t.qf, Scope.AGENT: 0, Scope.SYSTEM: 0}
    ev = Event(kind=kind, thread=t.tid, instances=inst, label=ins.text, line=ins.line)
    if kind in (Kind.AVDEVICE, Kind.VISDEVICE):
        return ev
    ev.scope = a.get("scope")
    ev.semsc = a.get("semsc", frozenset())
    ev.semav, ev.semvis = a.get("semav", False), a.get("semvis", False)
    ev.acquire, ev.release = a.get("acq", False), a.get("rel", False)
    if kind in (Kind.LOAD, Kind.STORE, Kind.RMW):
        ev.loc = test.location(a["loc"])
        ev.ref = a["loc"]
        ev.storage_class = a["sc"]
        ev.atomic = a["atomic"]
        ev.nonpriv = a["nonpriv"] or a["av"] or a["vis"] or a["atomic"]
        ev.av = a["av"] or (a["atomic"] and kind is not Kind.LOAD)
        ev.vis = a["vis"] or (a["atomic"] and kind is not Kind.STORE)
        if kind is Kind.RMW and not ev.acquire:
            ev.semvis = False
    return ev


def thread_paths(test: HerdTest, t: HerdThread, domains: dict[str, set[int]]) -> tuple[list[Path], bool]:
    """All paths of one thread; the flag says whether the unroll bound cut some path."""
    labels = {ins.args["name"]: k for k, ins in enumerate(t.code) if ins.op == "label"}
    needed = _needed(t)
    out: list[Path] = []
    bounded = False
    regs0 = {r: v for (tid, r), v in test.init_regs.items() if tid == t.tid}

    def val(regs, v):
        if isinstance(v, int):
            return v
        x = regs.get(v, 0)
        return x

    def run(pc: int, regs: dict, events: list[Event], marks: dict[int, tuple[int, int]]):
        nonlocal bounded
        if len(out) > _MAX_PATHS:
            raise NotSupported(f"more than {_MAX_PATHS} control-flow paths in thread P{t.tid}")
        while pc < len(t.code):
            ins = t.code[pc]
            op = ins.op
            if op == "label":
                pc += 1
                continue
            if op in ("goto", "br"):
                if op == "br":
                    a, b = val(regs, ins.args["a"]), val(regs, ins.args["b"])
                    if isinstance(a, Sym) or isinstance(b, Sym):
                        raise NotSupported("branch on a value decided by reads-from")
                    taken = _cmp(ins.args["cond"], a, b)
                else:
                    taken = True
                if not taken:
                    pc += 1
                    continue
                target = labels[ins.args["target"]]
                if target <= pc:  # backward jump: a loop iteration ends
                    start, iters = marks.get(target, (None, 0))
                    body = events[start:] if start is not None else []
                    side = any(e.is_write or e.kind is Kind.CBAR for e in body)
                    if start is not None and not side:
                        # failing iteration of a side-effect-free spin loop: keep it only as a hang witness
                        out.append(Path(t.tid, list(events), "spin", dict(regs),
                                        [k for k in range(start, len(events)) if events[k].is_read]))
                        return
                    if iters >= UNROLL_BOUND:
                        bounded = True
                        return
                    marks = dict(marks)
                    marks[target] = (len(events), iters + 1)
                elif target not in marks:
                    pass
                pc = target
                if pc not in marks:
                    marks = dict(marks)
                    marks[pc] = (len(events), 0)
                continue
            if op == "local":
                a, b = val(regs, ins.args["a"]), val(regs, ins.args["b"])
                if isinstance(a, Sym) or isinstance(b, Sym):
                    raise NotSupported("arithmetic on a value decided by reads-from")
                regs = dict(regs)
                regs[ins.args["rd"]] = _fn(ins.args["fn"], a, b)
                pc += 1
                continue
            if op in ("ld", "rmw"):
                kind = Kind.LOAD if op == "ld" else Kind.RMW
                rd = ins.args["rd"]
                loc = test.location(ins.args["loc"])
                must_branch = rd in needed or (op == "rmw" and ins.args["fn"] is not None)
                if must_branch:
                    for v in sorted(domains[loc]):
                        ev = _event(test, t, ins, kind)
                        ev.read_value = v
                        if op == "rmw":
                            operand = val(regs, ins.args["value"])
                            ev.write_value = _fn(ins.args["fn"], v, operand) if ins.args["fn"] else operand
                        nregs = dict(regs)
                        nregs[rd] = v
                        run(pc + 1, nregs, events + [ev], marks)
                    return
                ev = _event(test, t, ins, kind)
                if op == "rmw":
                    ev.write_value = val(regs, ins.args["value"])
                regs = dict(regs)
                regs[rd] = Sym(len(events))
                events = events + [ev]
                pc += 1
                continue
            if op == "st":
                ev = _event(test, t, ins, Kind.STORE)
                v = val(regs, ins.args["value"])
                if isinstance(v, Sym):
                    raise NotSupported("store of a value decided by reads-from")
                ev.write_value = v
                events = events + [ev]
                pc += 1
                continue
            if op == "membar":
                events = events + [_event(test, t, ins, Kind.FENCE)]
                pc += 1
                continue
            if op == "cbar":
                ev = _event(test, t, ins, Kind.CBAR)
                res = ins.args["resource"]
                quorum = ins.args["quorum"]
                res_v = val(regs, res) if res is not None else None
                q_v = val(regs, quorum) if quorum is not None else None
                ev.barrier = (ins.args["instance"], res is not None, res_v)
                ev.quorum = q_v
                ev.barrier_exec_scope = Scope.WORKGROUP
                events = events + [ev]
                pc += 1
                continue
            if op in ("avdevice", "visdevice"):
                events = events + [_event(test, t, ins, Kind.AVDEVICE if op == "avdevice" else Kind.VISDEVICE)]
                pc += 1
                continue
            raise NotSupported(f"instruction '{ins.text}'")
        out.append(Path(t.tid, events, "done", dict(regs)))

    run(0, dict(regs0), [], {})
    return out, bounded


def _cond_constants(c, acc: set[int]) -> None:
    if c[0] == "int":
        acc.add(c[1])
    for x in c[1:]:
        if isinstance(x, tuple):
            _cond_constants(x, acc)


def value_domains(test: HerdTest) -> dict[str, set[int]]:
    locs = {test.location(ins.args["loc"]) for t in test.threads for ins in t.code if "loc" in ins.args}
    consts: set[int] = set()
    _cond_constants(test.condition, consts)
    if test.filter is not None:
        _cond_constants(test.filter, consts)
    dom = {loc: {test.init_mem.get(loc, 0)} | consts for loc in locs}
    # a value needs a chain of writes to appear; no location is written more often than this
    per_loc: dict[str, int] = {}
    for t in test.threads:
        for ins in t.code:
            if ins.op in ("st", "rmw"):
                loc = test.location(ins.args["loc"])
                per_loc[loc] = per_loc.get(loc, 0) + 1
    for _ in range(max(per_loc.values(), default=0)):
        changed = False
        for t in test.threads:
            paths, _ = thread_paths(test, t, dom)
            for p in paths:
                for e in p.events:
                    if e.is_write and isinstance(e.write_value, int) and e.write_value not in dom[e.loc]:
                        dom[e.loc].add(e.write_value)
                        changed = True
        if not changed:
            break
    return dom


@dataclass
class Combo:
    paths: list[Path]
    cut: list[int]  # events kept per thread (barrier blocking truncates)
    blocked: dict[int, int]  # thread -> index of the barrier it is blocked at
    groups: list[tuple[object, list[tuple[int, int]], int | None]]  # key, members (tid, idx), quorum


def _resolve_barriers(test: HerdTest, paths: list[Path]) -> Combo:
    cut = [len(p.events) for p in paths]
    blocked: dict[int, int] = {}
    # static membership: threads of a workgroup whose code has the instance
    static_members: dict[tuple, set[int]] = {}
    for t in test.threads:
        for ins in t.code:
            if ins.op == "cbar":
                res = ins.args["resource"]
                if isinstance(res, str):
                    raise NotSupported(f"control barrier with a register barrier id (line {ins.line})")
                key = (t.qf, t.wg, ins.args["instance"], res is not None, res)
                static_members.setdefault(key, set()).add(t.tid)
    while True:
        groups: dict[tuple, list[tuple[int, int]]] = {}
        for p in paths:
            t = test.threads[p.tid]
            for k, e in enumerate(p.events[:cut[p.tid]]):
                if e.kind is Kind.CBAR:
                    key = (t.qf, t.wg) + tuple(e.barrier)
                    groups.setdefault(key, []).append((p.tid, k))
        changed = False
        out = []
        for key, members in groups.items():
            ev0 = paths[members[0][0]].events[members[0][1]]
            q = ev0.quorum
            if q is None:
                want = static_members.get(key, set())
                ok = want <= {tid for tid, _ in members}
            else:
                ok = len(members) >= q
            if not ok:
                for tid, k in members:
                    if cut[tid] > k:
                        cut[tid] = k
                        blocked[tid] = k
                        changed = True
            else:
                out.append((key, members, q))
        if not changed:
            return Combo(paths, cut, blocked, out)


def _scenarios(test: HerdTest, combo: Combo):
    events: list[Event] = []
    po_threads = []
    index: dict[tuple[int, int], int] = {}
    for p in combo.paths:
        order = []
        for k, e in enumerate(p.events[:combo.cut[p.tid]]):
            index[(p.tid, k)] = len(events)
            order.append(len(events))
            events.append(e)
        po_threads.append(order)
    n = len(events)
    # barrier pairings: product of the synchronizing sets of every quorum group
    per_group = []
    for _key, members, q in combo.groups:
        ids = [index[m] for m in members]
        if q is None:
            per_group.append([(ids, ids)])
        else:
            per_group.append([(list(s), ids) for size in range(max(q, 0), len(ids) + 1)
                              for s in combinations(ids, size)])
    syncbars = []
    for choice in product(*per_group):
        sb = R.empty(n)
        for sync, passed in choice:
            pm = R.mask_of(passed)
            for i in sync:
                sb[i] |= pm
        syncbars.append(sb)
    # reads-from sources filtered by value
    rf_allowed = {}
    for i, e in enumerate(events):
        if not e.is_read:
            continue
        srcs = []
        init = test.init_mem.get(e.loc, 0)
        if e.read_value is None or e.read_value == init:
            srcs.append(INIT)
        for j, w in enumerate(events):
            if j != i and w.is_write and w.loc == e.loc and (e.read_value is None or w.write_value == e.read_value):
                srcs.append(j)
        rf_allowed[i] = srcs
    final = set()
    for p in combo.paths:
        if p.status == "spin" and p.tid not in combo.blocked:
            final |= {index[(p.tid, k)] for k in p.final_reads if (p.tid, k) in index}
    ssw = []
    for a, b in test.ssw:
        ssw += [(x, y) for x in po_threads[a] for y in po_threads[b]]
    return Scenario(events, po_threads, ssw, rf_allowed, syncbars, final, init_values=dict(test.init_mem)), index


def _eval(c, env) -> bool | None:
    """Three-valued evaluation: None when a needed value is not known yet."""
    op = c[0]
    if op == "const":
        return c[1]
    if op == "not":
        v = _eval(c[1], env)
        return None if v is None else not v
    if op in ("and", "or"):
        a = _eval(c[1], env)
        if op == "and" and a is False or op == "or" and a is True:
            return a
        b = _eval(c[2], env)
        if op == "and":
            return False if b is False else (None if a is None or b is None else True)
        return True if b is True else (None if a is None or b is None else False)
    _, cmp, x, y = c
    vx, vy = env(x), env(y)
    if vx is None or vy is None:
        return None
    return {"==": vx == vy, "!=": vx != vy, "<": vx < vy, ">": vx > vy, "<=": vx <= vy, ">=": vx >= vy}[cmp]


def _side_effect_loops(test: HerdTest) -> bool:
    for t in test.threads:
        labels = {ins.args["name"]: k for k, ins in enumerate(t.code) if ins.op == "label"}
        for j, ins in enumerate(t.code):
            if ins.op in ("goto", "br"):
                i = labels[ins.args["target"]]
                if i <= j and any(x.op in ("st", "rmw", "cbar") for x in t.code[i:j + 1]):
                    return True
    return False


def _race_possible(test: HerdTest) -> bool:
    """False when every conflicting pair is a pair of mutually ordered atomics in every execution."""
    acc = [(t, ins) for t in test.threads for ins in t.code if ins.op in ("ld", "st", "rmw")]
    for k, (t1, a) in enumerate(acc):
        for t2, b in acc[k + 1:]:
            if t1.tid == t2.tid or test.location(a.args["loc"]) != test.location(b.args["loc"]):
                continue
            if a.op == "ld" and b.op == "ld":
                continue
            if not (a.args["atomic"] and b.args["atomic"]) or a.args["loc"] != b.args["loc"]:
                return True
            lv = min(a.args["scope"], b.args["scope"])
            key1 = {Scope.WAVEFRONT: (t1.qf, t1.wg, t1.sg), Scope.WORKGROUP: (t1.qf, t1.wg),
                    Scope.QUEUE_FAMILY: t1.qf}.get(lv, 0)
            key2 = {Scope.WAVEFRONT: (t2.qf, t2.wg, t2.sg), Scope.WORKGROUP: (t2.qf, t2.wg),
                    Scope.QUEUE_FAMILY: t2.qf}.get(lv, 0)
            if key1 != key2:
                return True
    return False


def decide_herd(test: HerdTest, nochains: bool = False) -> Verdict:
    dom = value_domains(test)
    per_thread = []
    bounded = False
    for t in test.threads:
        ps, b = thread_paths(test, t, dom)
        bounded |= b
        ps.sort(key=lambda p: (p.status != "done", len(p.events)))  # short terminating paths first
        per_thread.append(ps)
    side_loops = _side_effect_loops(test)
    sc = explore(test) if side_loops else None
    race_possible = _race_possible(test)
    opts = Options(chains=not nochains, fr_via_locord_rf=True)
    want_sat = test.quantifier != "forall"  # search for phi (exists, ~exists) or for ~phi (forall)
    found_cond = None  # witness text for the decisive execution
    any_race = None
    hang = None
    executions = 0
    terminating = 0
    goal = test.condition if want_sat else ("not", test.condition)
    if test.filter is not None:
        goal = ("and", test.filter, goal)
    summaries = [[_summary(test, p) for p in ps] for ps in per_thread]
    for choice in product(*(range(len(ps)) for ps in per_thread)):
        need_race = race_possible and any_race is None
        need_hang = hang is None and not (sc is not None and sc.hang)
        if found_cond is not None and not need_race and not need_hang:
            break
        if not _values_possible([summaries[t][k] for t, k in enumerate(choice)]):
            continue
        paths = [per_thread[t][k] for t, k in enumerate(choice)]
        spin_any = any(p.status == "spin" for p in paths)
        if found_cond is not None and not need_race and not spin_any:
            continue
        combo = _resolve_barriers(test, list(paths))
        spinning = [p.tid for p in paths if p.status == "spin" and p.tid not in combo.blocked]
        terminates = not spinning and not combo.blocked
        if not terminates and not need_race and not need_hang:
            continue
        if terminates and found_cond is not None and not need_race:
            continue
        scn, index = _scenarios(test, combo)
        if any(not srcs for srcs in scn.rf_allowed.values()):
            continue
        for ex in enumerate_executions(scn, opts, only_consistent=True):
            if found_cond is not None and not (race_possible and any_race is None) and (
                    terminates or hang is not None):
                break
            executions += 1
            if not ex.consistent:
                continue
            if any_race is None and ex.races and (
                    test.filter is None or _search_condition(test, combo, scn, index, ex, test.filter) is not None):
                a, b = ex.races[0]
                any_race = explain_race(ex, a, b) + ["  in the execution:"] + [
                    "    " + x for x in describe_rf(ex, ex.witness_rf())]
            if not terminates:
                if hang is None:
                    hang = _hang_text(test, combo, spinning, ex)
                continue
            terminating += 1
            if found_cond is None:
                w = _search_condition(test, combo, scn, index, ex, goal)
                if w is not None:
                    found_cond = w
    holds = (found_cond is not None) if test.quantifier == "exists" else (found_cond is None)
    if hang is None and sc is not None and sc.hang:
        hang = [sc.hang]
    if hang is not None:
        term: bool | None = False
    elif sc is not None:
        term = True if sc.complete else None
    else:
        term = None if bounded else True
    v = Verdict(test.path, test.name, holds, any_race is not None, term, executions=executions,
                unroll_bound=UNROLL_BOUND if bounded else None)
    q = test.quantifier
    if found_cond is not None:
        kind = "satisfies" if want_sat else "violates"
        v.explanation.append(f"condition `{test.condition_text}`: a terminating consistent execution {kind} it:")
        v.explanation += ["  " + x for x in found_cond]
    else:
        what = "satisfies" if want_sat else "violates"
        v.explanation.append(f"condition `{test.condition_text}`: no terminating consistent execution {what} it "
                             f"({terminating} terminating consistent executions checked)")
    v.explanation.append(f"=> condition {'holds' if holds else 'does not hold'} ({q})")
    if any_race:
        v.explanation += any_race
    else:
        v.explanation.append("no consistent execution has a data race")
    if hang:
        v.explanation += hang
    elif term is None:
        v.explanation.append("termination undecided: loops with side effects and a state space larger than "
                             "the exploration limit")
    elif sc is not None:
        v.explanation.append(f"every execution terminates under fair scheduling (spin loops: final values checked "
                             f"in the memory model; loops with side effects: all {sc.states} interleaving "
                             f"states explored, no fair cycle or deadlock)")
    else:
        v.explanation.append("every execution terminates under fair scheduling")
    if bounded:
        v.explanation.append(f"note: loops with side effects were unrolled up to {UNROLL_BOUND} iterations")
    return v


def _summary(test: HerdTest, p: Path) -> tuple[list[tuple[str, int]], set[tuple[str, int]]]:
    reads = [(e.loc, e.read_value) for e in p.events if e.is_read and e.read_value is not None
             and e.read_value != test.init_mem.get(e.loc, 0)]
    writes = {(e.loc, e.write_value) for e in p.events if e.is_write}
    return reads, writes


def _values_possible(summaries) -> bool:
    """Cheap filter: every value a path insists on reading must be written by some path."""
    written = set()
    for _, w in summaries:
        written |= w
    return all(r in written for reads, _ in summaries for r in reads)


def _hang_text(test: HerdTest, combo: Combo, spinning: list[int], ex) -> list[str]:
    out = []
    groups: dict[tuple, list[int]] = {}
    for tid, k in sorted(combo.blocked.items()):
        e = combo.paths[tid].events[k]
        t = test.threads[tid]
        groups.setdefault((t.qf, t.wg) + tuple(e.barrier), []).append(tid)
    for key, tids in groups.items():
        e = combo.paths[tids[0]].events[combo.blocked[tids[0]]]
        wg_threads = [t.tid for t in test.threads if (t.qf, t.wg) == key[:2]]
        missing = [t for t in wg_threads if t not in tids]
        need = f"expects {e.quorum} arrivals" if e.quorum is not None else "expects every thread of the workgroup"
        line = (f"does not terminate: barrier `{e.describe()}` (line {e.line}, workgroup {key[1]}) never "
                f"completes: {need}, only {len(tids)} arrive ({', '.join(f'P{t}' for t in tids)})")
        if e.quorum is not None:
            line += f"; {e.quorum - len(tids)} arrival(s) missing"
        if missing:
            line += f"; P{', P'.join(map(str, missing))} never arrive"
        else:
            line += "; no other thread exists to arrive"
        out.append(line)
    for tid in spinning:
        p = combo.paths[tid]
        reads = ", ".join(f"`{p.events[k].describe()}`" for k in p.final_reads)
        out.append(f"does not terminate: P{tid} can spin forever on {reads}: with the final values "
                   f"of memory the loop's exit condition stays false")
    return out


def _search_condition(test: HerdTest, combo: Combo, sc: Scenario, index, ex, goal):
    """Find reads-from completions (and final memory values) whose final state satisfies `goal`."""
    want = True
    events = sc.events
    regmap = {}
    for p in combo.paths:
        for r, v in p.regs.items():
            if isinstance(v, Sym):
                regmap[(p.tid, r)] = ("read", index.get((p.tid, v.index)))
            else:
                regmap[(p.tid, r)] = ("const", v)
    init_regs = test.init_regs
    cond_reads: set[int] = {i for kind, i in regmap.values() if kind == "read" and i is not None}
    locs = list(ex.feasible.items())
    rf_fixed = dict(ex.rf_atomic)
    # distinct projections per location onto the reads the condition may look at
    projections = []
    for _m, sols in locs:
        seen = {}
        for s in sols:
            key = tuple(sorted((r, w) for r, w in s.items() if r in cond_reads))
            seen.setdefault(key, s)
        projections.append(list(seen.values()))

    def value_of(r: int, rf: dict[int, int]):
        w = rf.get(r)
        if w is None:
            return None
        if w == INIT:
            return test.init_mem.get(events[r].loc, 0)
        return events[w].write_value

    def env_for(rf):
        def env(atom):
            if atom[0] == "int":
                return atom[1]
            if atom[0] == "reg":
                key = (atom[1], atom[2])
                if key not in regmap:
                    return init_regs.get(key, 0)
                kind, x = regmap[key]
                if kind == "const":
                    return x
                if x is None:
                    return init_regs.get(key, 0)
                if events[x].read_value is not None:
                    return events[x].read_value
                return value_of(x, rf)
            if atom[0] == "mem":
                return mem_final.get(test.location(atom[1]))
            return None
        return env

    def search(k: int, rf: dict[int, int]):
        val = _eval(goal, env_for(rf))
        if val is not None:
            if val == want:
                full = dict(rf)
                for sols in projections[k:]:
                    full.update(sols[0])
                return full
            return None
        if k == len(projections):
            return None
        for s in projections[k]:
            nrf = dict(rf)
            nrf.update(s)
            got = search(k + 1, nrf)
            if got is not None:
                return got
        return None

    # final value of a location: the value of a write that can be last in coherence order
    mem_locs = sorted({test.location(x) for x in _cond_locations(goal)})
    cands = []
    for loc in mem_locs:
        ws = [i for i, e in enumerate(events) if e.is_write and e.loc == loc]
        last = [i for i in ws if not ex.asmo[i]]
        vals = sorted({events[i].write_value for i in last}) if ws else [test.init_mem.get(loc, 0)]
        cands.append(vals)
    mem_final: dict[str, object] = {}
    for choice in product(*cands):
        mem_final.clear()
        mem_final.update(zip(mem_locs, choice, strict=True))
        rf = search(0, rf_fixed)
        if rf is not None:
            text = describe_rf(ex, rf)
            if mem_locs:
                text.append("final memory: " + ", ".join(f"{k} = {v}" for k, v in mem_final.items()))
            return text
    return None


def _cond_locations(c) -> set[str]:
    if c[0] == "mem":
        return {c[1]}
    out: set[str] = set()
    for x in c[1:]:
        if isinstance(x, tuple):
            out |= _cond_locations(x)
    return out
