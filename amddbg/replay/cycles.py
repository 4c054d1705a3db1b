"""A barrier deadlock whose missing waves spin on a flag the waiting waves write only after the barrier.

Static analysis and replay find the two halves separately: a `barrier_deadlock` per workgroup (its missing waves
are spinning) and a `spin_forever` / `writer_blocked` (the spinners' only writers wait at that barrier). Neither
alone says what the user must change; together they are one cycle -- the waiter is the writer the spinners wait
for, and the spinners are the arrivals the waiter waits for. `merge_cycles` makes them one finding that states
the cycle with both lines (the barrier, the poll, the write after the barrier), for every workgroup caught in it;
`group_barriers` folds barrier deadlocks that are the same in several workgroups into one finding.
"""

from __future__ import annotations

import os


def _key(w: dict) -> tuple:
    return tuple(w.get("workgroup") or ()), w.get("wave_in_group")


def _at(loc: dict) -> str:
    return f"{os.path.basename(loc['file'])}:{loc['line']}" if loc.get("file") else loc.get("pc", "?")


def _first(f, role: str) -> dict | None:
    return next((loc for loc in f.locations if loc["role"] == role), None)


def _waves_text(ws: list) -> str:
    from amddbg.teach.divergence import lane_ranges

    mask = 0
    for w in ws:
        mask |= 1 << w["wave_in_group"]
    n = len(ws)
    return f"wave{'s' if n > 1 else ''} {lane_ranges(mask, max(w['wave_in_group'] for w in ws) + 1)}"


def merge_cycles(findings: list) -> list:
    """Replace each barrier deadlock whose missing waves are the spinners of a `writer_blocked` spin (and that spin)
    by one `barrier_deadlock` finding per (barrier, poll, write) that states the cycle."""
    from amddbg.replay.explain import Finding

    bars = [f for f in findings if f.kind == "barrier_deadlock" and f.details.get("arrived") is not None]
    spins = [f for f in findings if f.kind == "spin_forever" and f.cause == "writer_blocked"]
    if not bars or not spins:
        return findings
    merged: dict[tuple, Finding] = {}
    covered: set = set()  # spinning waves now in a cycle finding
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
                locs = [bar, poll] + [loc for loc in s.locations if loc["role"] == "write that never lands"]
                locs += [loc for loc in b.locations if loc["role"] in ("missing wave", "divergent branch")
                         and not any(x["role"] == loc["role"] and x["line"] == loc["line"] for x in locs)]
                m = merged[k] = Finding("barrier_deadlock", "missing_arrivals", "", [], locs,
                                        {"cycle": True, "expected": b.details.get("expected"), "arrived": 0,
                                         "workgroups": [], "address": s.details.get("address"),
                                         "variable": s.details.get("variable"), "value": s.details.get("value"),
                                         "barrier_at": _at(bar), "poll_at": _at(poll),
                                         "write_at": [_at(loc) for loc in locs
                                                      if loc["role"] == "write that never lands"]})
            m.waves += waiting + mine
            m.details["arrived"] += arrived
            m.details["workgroups"].append(list(tuple(waiting[0]["workgroup"] or ())) if waiting else None)
            m.details.setdefault("_parts", []).append((waiting, mine))
            covered |= {_key(w) for w in mine}
            dropped.add(id(b))
    if not merged:
        return findings
    for m in merged.values():
        parts = m.details.pop("_parts")
        wgs = [tuple(p[0][0]["workgroup"] or ()) for p in parts if p[0]]
        flag = m.details.get("variable") or m.details.get("address") or "the flag"
        writes = ", ".join(m.details["write_at"])
        w0, s0 = parts[0]
        where = (f"workgroup {wgs[0]}" if len(wgs) == 1 else
                 f"{len(wgs)} workgroups ({', '.join(map(str, wgs[:4]))}{', ...' if len(wgs) > 4 else ''})")
        each = "" if len(wgs) == 1 else " in each"
        one = "s" if len(w0) == 1 else ""
        m.summary = (f"{where}: a cycle{each} -- {_waves_text(w0)} wait{one} at the barrier "
                     f"at {m.details['barrier_at']} and write{one} {flag} only after it "
                     f"({writes}); {_waves_text(s0)} poll{'s' if len(s0) == 1 else ''} {flag} at "
                     f"{m.details['poll_at']} before {'it reaches' if len(s0) == 1 else 'they reach'} the barrier, "
                     f"so the barrier never gets their arrival and the write never happens")
    out = []
    for f in findings:
        if id(f) in dropped:
            continue
        if f.kind == "spin_forever" and f.cause == "writer_blocked" and f.waves and \
                all(_key(w) in covered for w in f.waves):
            continue
        out.append(f)
    return list(merged.values()) + out


def group_barriers(findings: list) -> list:
    """Barrier deadlocks that are the same in several workgroups (same barrier, same places the missing waves are,
    same cause) become one finding naming the workgroups: a grid barrier's every workgroup waits at its
    __syncthreads() for the wave that polls the grid's count."""
    from amddbg.replay.explain import Finding

    groups: dict[tuple, list] = {}
    order: list = []
    for f in findings:
        if f.kind != "barrier_deadlock" or f.details.get("cycle") or f.details.get("arrived") is None:
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
                           f"{len(fs)} workgroups ({', '.join(map(str, wgs[:4]))}{', ...' if len(wgs) > 4 else ''}) "
                           f"the same way; {first.summary}", [w for f in fs for w in f.waves], locs, details))
    return out


def cycle_writes(program, findings: list, dispatch, budget: int, info: dict, symmetry: bool = True) -> None:
    """Which of the stores after the barrier write the polled flag: the code scan lists every store the waiting
    waves may still execute (`out[i] = ...` too, when its address registers are redefined on the way). Replay the
    what-if with the barrier removed (`skip-barrier@LINE`): the waiters run on, and the PCs that then write the flag
    are the writes that never land. Keeps the scan's list when the what-if shows none."""
    from amddbg.errors import AmddbgError, UsageError
    from amddbg.replay.explain import _loc
    from amddbg.replay.replay import Assumption, replay

    bars = [f for f in findings if f.kind == "barrier_deadlock"]
    threads = {t.number: t for t in program.waves}
    for s in findings:
        # (a `no_writer` spin too: the code scan misses a write after the barrier it cannot tell aims at the flag,
        # such as -O0's generic store to an LDS variable)
        if s.kind != "spin_forever" or s.cause not in ("writer_blocked", "no_writer"):
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
        hits = sorted(pc for pc, hit in r.store_targets.items() if hit is not None and target in hit)
        if not hits:
            continue
        writes = []
        for pc in hits:
            w = _loc(waiter, "write that never lands", pc)
            if not any(x["line"] == w["line"] and x["file"] == w["file"] for x in writes):
                writes.append(w)
        if s.cause == "no_writer":  # the only writers wait at the barrier: a cycle after all
            s.cause = "writer_blocked"
            s.summary = s.summary.split(": replay ran every other wave on")[0].split(" and no live wave")[0] + (
                f": its only writers wait at the barrier at {_at(loc)}, which these waves must reach first")
        s.locations = [x for x in s.locations if x["role"] != "write that never lands"] + writes
        s.details["writes_found_by"] = "replay with the barrier removed"
