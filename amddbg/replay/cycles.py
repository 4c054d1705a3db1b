"""A barrier deadlock whose missing waves spin on a flag the waiting waves write only after the barrier.

Static analysis and replay find the two halves separately: a `barrier_deadlock` per workgroup (its missing waves
are spinning) and a `spin_forever` / `writer_blocked` (the spinners' only writers wait at that barrier). Neither
alone says what the user must change; together they are one cycle -- the waiter is the writer the spinners wait
for, and the spinners are the arrivals the waiter waits for. `merge_cycles` makes the barrier deadlocks one finding
that states the cycle with both lines (the barrier, the poll, the write after the barrier), for every workgroup
caught in it (the spin finding stays: its polled value and address are its own);
`group_barriers` folds barrier deadlocks that are the same in several workgroups into one finding.
"""

from __future__ import annotations

import os

from amddbg.replay.code import loop_of
from amddbg.replay.findings import Finding
from amddbg.replay.replay import Assumption, replay
from amddbg.replay.where import location, place, wave_call_place, wave_location, who


def _key(w: dict) -> tuple:
    return tuple(w.get("workgroup") or ()), w.get("wave_in_group")


def _at(loc: dict, program=None) -> str:
    if program is not None and loc.get("pc"):
        return place(program, int(loc["pc"], 16)).text()
    return f"{os.path.basename(loc['file'])}:{loc['line']}" if loc.get("file") else loc.get("pc", "?")


def _first(f, role: str) -> dict | None:
    return next((loc for loc in f.locations if loc["role"] == role), None)


def _last(f, role: str) -> dict | None:
    """The outermost location of a role: the user's call site when the code was inlined (`inlined_from` entries
    follow the innermost one)."""
    return next((loc for loc in reversed(f.locations) if loc["role"] == role), None)


def _who(ws: list) -> str:
    """Waves of a finding (JSON wave documents) named as everywhere in explain: workgroup, waves, thread ids."""
    from types import SimpleNamespace

    return who(SimpleNamespace(workgroup=tuple(w.get("workgroup") or ()), wave_in_group=w.get("wave_in_group"),
                               number=w.get("thread")) for w in ws)


def merge_cycles(findings: list, program=None) -> list:
    """Replace the barrier deadlocks whose missing waves are the spinners of a `writer_blocked` spin by one
    `barrier_deadlock` finding per (barrier, poll, write) that states the cycle, with the barrier's, the poll's and
    the write's locations (each with its inlined call sites). The spin finding stays, for its own details. With
    `program`, the summary names the user's lines through inlining (`where.place`)."""
    bars = [f for f in findings if f.kind == "barrier_deadlock" and f.details.get("arrived") is not None
            and not f.details.get("cycle")]
    # (a SIMT lock's writers are lanes of the spinning wave itself, not the waves at the barrier: no cycle)
    spins = [f for f in findings if f.kind == "spin_forever" and f.cause == "writer_blocked"
             and f.details.get("why") != "same_wave"]
    if not bars or not spins:
        return findings
    merged: dict[tuple, Finding] = {}
    dropped: set = set()
    for b in bars:
        arrived = b.details["arrived"]
        waiting, missing = b.waves[:arrived], b.waves[arrived:]
        gone = {_key(w) for w in missing}
        for s in spins:
            mine = [w for w in s.waves if _key(w) in gone]
            write = _first(s, "write that never lands")
            poll = _first(s, "polling load")
            bar = _first(b, "waiting at barrier")
            if not mine or write is None or poll is None or bar is None:
                continue
            k = (bar["pc"], poll["pc"], write["file"], write["line"], b.cause)
            m = merged.get(k)
            if m is None:
                locs = list(b.locations) + [loc for loc in s.locations
                                            if loc["role"] in ("polling load", "write that never lands")]
                m = merged[k] = Finding("barrier_deadlock", "missing_arrivals", "", [], locs,
                                        {"cycle": True, "expected": b.details.get("expected"), "arrived": 0,
                                         "workgroups": [], "address": s.details.get("address"),
                                         "variable": s.details.get("variable"), "value": s.details.get("value"),
                                         "barrier_at": _at(_last(b, "waiting at barrier"), program),
                                         "poll_at": _at(_last(s, "polling load"), program),
                                         "write_at": list(dict.fromkeys(
                                             _at(loc, program) for loc in s.locations
                                             if loc["role"] == "write that never lands" and "inlined_from" not in loc)),
                                         "_first": b})
            else:
                m.locations += [loc for loc in b.locations if loc["role"] == "missing wave" and not any(
                    x["role"] == "missing wave" and (x["file"], x["line"]) == (loc["file"], loc["line"])
                    for x in m.locations)]
            m.waves += waiting + mine
            m.details["arrived"] += arrived
            m.details["workgroups"].append(list(tuple(waiting[0]["workgroup"] or ())) if waiting else None)
            m.details.setdefault("_parts", []).append((waiting, mine))
            dropped.add(id(b))
    if not merged:
        return findings
    for m in merged.values():
        parts = m.details.pop("_parts")
        first = m.details.pop("_first")
        wgs = [tuple(p[0][0]["workgroup"] or ()) for p in parts if p[0]]
        flag = m.details.get("variable") or m.details.get("address") or "the flag"
        writes = ", ".join(m.details["write_at"])
        waiters = [w for p in parts for w in p[0]]
        spinners = [w for p in parts for w in p[1]]
        names = [f"({','.join(map(str, g))})" for g in wgs]
        where = (f"workgroup {names[0]}" if len(wgs) == 1 else
                 f"{len(wgs)} workgroups ({', '.join(names[:4])}{', ...' if len(wgs) > 4 else ''})")
        each = "" if len(wgs) == 1 else " in each"
        one = "s" if len(waiters) == 1 else ""
        m.summary = (f"{where}: a cycle{each} -- {_who(waiters)} wait{one} at the barrier at {m.details['barrier_at']} "
                     f"and write{one} {flag} only after it ({writes}); {_who(spinners)} "
                     f"poll{'s' if len(spinners) == 1 else ''} {flag} at {m.details['poll_at']} and never reach the "
                     f"barrier, so it never gets their arrival and the write never happens. "
                     + ("" if len(wgs) == 1 else f"In workgroup {names[0]}: ") + first.summary)
    out = []
    for f in findings:
        if id(f) not in dropped:
            out.append(f)
    return list(merged.values()) + out


def group_barriers(findings: list) -> list:
    """Barrier deadlocks that are the same in several workgroups (same barrier, same places the missing waves are,
    same cause) become one finding naming the workgroups: a grid barrier's every workgroup waits at its
    __syncthreads() for the wave that polls the grid's count."""
    groups: dict[tuple, list] = {}
    order: list = []
    for f in findings:
        if (f.kind != "barrier_deadlock" or f.details.get("cycle") or f.details.get("arrived") is None
                or "cluster" in f.details):  # (a cluster barrier finding is one cluster's, each named)
            order.append(f)
            continue
        # (where in its loop each missing wave was caught does not matter; the first of each line is kept)
        k = (f.cause, tuple(sorted({(loc["role"], loc["file"], loc["line"]) if loc.get("line") else
                                     (loc["role"], loc["pc"], None) for loc in f.locations
                                     if loc["role"] != "missing wave"})))
        if k not in groups:
            groups[k] = []
            order.append(k)
        groups[k].append(f)
    out = []
    for item in order:
        if isinstance(item, Finding):
            out.append(item)
            continue
        fs = groups[item]
        if len(fs) == 1:
            out.append(fs[0])
            continue
        first = fs[0]
        wgs = [tuple(f.waves[0]["workgroup"] or ()) for f in fs if f.waves]
        details = dict(first.details)
        details.update(arrived=sum(f.details["arrived"] for f in fs), ended=sum(f.details.get("ended", 0) for f in fs),
                       workgroups=[list(w) for w in wgs])
        locs = list(first.locations)
        for f in fs[1:]:
            locs += [loc for loc in f.locations if loc["role"] == "missing wave" and not any(
                x["role"] == "missing wave" and (x["file"], x["line"]) == (loc["file"], loc["line"]) for x in locs)]
        if any(x["role"] == "missing wave" and x["line"] for x in locs):  # a wave caught on compiler-made code
            locs = [x for x in locs if x["role"] != "missing wave" or x["line"]]
        out.append(Finding("barrier_deadlock", first.cause,
                           f"{len(fs)} workgroups ({', '.join('(' + ','.join(map(str, g)) + ')' for g in wgs[:4])}"
                           f"{', ...' if len(wgs) > 4 else ''}) "
                           f"the same way; {first.summary}", [w for f in fs for w in f.waves], locs, details))
    return out


def cycle_writes(program, findings: list, dispatch, budget: int, info: dict, symmetry: bool = True) -> None:
    """Which of the stores after the barrier write the polled flag: the code scan lists every store the waiting
    waves may still execute (`out[i] = ...` too, when its address registers are redefined on the way). Replay the
    what-if with the barrier removed (`skip-barrier@LINE`): the waiters run on, and the PCs that then write the flag
    are the writes that never land. Keeps the scan's list when the what-if shows none."""
    from amddbg.errors import AmddbgError, UsageError

    bars = [f for f in findings if f.kind == "barrier_deadlock"]
    threads = {t.number: t for t in program.waves}
    for s in findings:
        # (a `no_writer` spin too: the code scan misses a write after the barrier it cannot tell aims at the flag,
        # such as -O0's generic store to an LDS variable)
        if s.kind != "spin_forever" or s.cause not in ("writer_blocked", "no_writer") or \
                s.details.get("why") == "same_wave":
            continue
        address = str(s.details.get("address") or "")
        if address.startswith("0x"):
            target = int(address, 16)
        elif address.startswith("local#"):
            target = ("local", int(address[len("local#"):], 16))
        else:
            continue
        spinning = {_key(w) for w in s.waves}
        bar = next((b for b in bars if any(_key(w) in spinning for w in b.waves)), None)
        loc = _first(bar, "waiting at barrier") if bar is not None else None
        waiter = next((threads.get(w.get("thread")) for w in (bar.waves if bar else [])
                       if w.get("thread") in threads), None)
        if loc is None or not loc.get("file") or waiter is None:
            continue
        try:
            skip = Assumption.parse(f"skip-barrier@{loc['file']}:{loc['line']}")
            r = replay(program, dispatch=dispatch, assume=[skip], max_instructions=budget, coherent=True,
                       symmetry=symmetry)
        except (AmddbgError, UsageError):
            continue
        info["wave_instructions"] = info.get("wave_instructions", 0) + r.total_instructions
        # the spinners' own atomics in their poll loop (a CAS lock's failed exchanges) are not the waiters' write
        loops = [loop_of(program, t.pc)[0] for t in (threads.get(w.get("thread")) for w in s.waves) if t is not None]
        hits = sorted(pc for pc, hit in r.store_targets.items() if hit is not None and target in hit
                      and not any(lp is not None and lp[0] <= pc <= lp[1] for lp in loops))
        if not hits:
            continue
        writes = []
        for pc in hits:
            called = wave_call_place(waiter, pc)  # -O0: the write is in a helper the waiter calls
            w = location(program, "write that never lands", pc, called) if called else \
                wave_location(waiter, "write that never lands", pc)
            if not any(x["line"] == w["line"] and x["file"] == w["file"] for x in writes):
                writes.append(w)
        if s.cause == "no_writer":  # the only writers wait at the barrier: a cycle after all
            s.cause = "writer_blocked"
            s.summary = s.summary.split(": replay ran every other wave on")[0].split(" and no live wave")[0] + (
                f": its only writers wait at the barrier at {_at(loc)}, which these waves must reach first")
        s.locations = [x for x in s.locations if x["role"] != "write that never lands"] + writes
        s.details["writes_found_by"] = "replay with the barrier removed"
