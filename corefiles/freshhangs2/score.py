#!/usr/bin/env python3
"""Score `amddbg` on the freshhangs2 corpus as issue 20's held-out check does: run status, verdict, kind/cause, the
tagged source lines, waves, details and `bt`, for every kernel on every object.

    python3 corefiles/freshhangs2/score.py                      # every kernel x 24 objects, 2 jobs
    python3 corefiles/freshhangs2/score.py -k rwlock_upgrade -o llvm22-gfx90a-w64-O2 -v
    python3 corefiles/freshhangs2/score.py --json scores.json   # also write every check

The machinery (running `amddbg run ... --core`, `amddbg explain --json`, `thread apply all bt` against
llvm-addr2line-22 -i, the part-way core of a kernel that completes, the table) is corefiles/freshhangs/score.py's,
loaded as a module of its own and pointed at this folder (`retarget`). What is this file's: the cases (grid, block,
arguments) and the expectations, written from the semantics of each kernel (the comments in freshhangs2.hip and
the causes of docs/explain.md) before amddbg was run on them; the lines come from the source's markers.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _base():
    """A private copy of corefiles/freshhangs/score.py (its globals are retargeted here; freshhangs' own stays)."""
    spec = importlib.util.spec_from_file_location("freshhangs2_scorer", HERE.parent / "freshhangs" / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


B = _base()

# kernel -> (class, --kernel name, grid, block, [args])
CASES = {
    "persistent_queue_tail": ("never_true", "persistent_queue_tail", "192", "64", ["buf:u32:66", "buf:i32:192"]),
    "ring_buffer_full": ("never_true", "ring_buffer_full", "128", "64", ["buf:u32:18", "buf:i32:64"]),
    "early_exit_grid_sync": ("never_true", "early_exit_grid_sync", "256", "64",
                             ["buf:u32:1", "buf:f32:256:iota", "u32:3"]),
    "atomicinc_barrier": ("grid_barrier", "atomicinc_barrier", "256", "64", ["buf:u32:2", "buf:f32:256:iota"]),
    "vote_spin_any": ("no_writer", "vote_spin_any", "128", "64", ["buf:i32:64", "buf:i32:64", "i32:48"]),
    "rwlock_upgrade": ("simt_lock", "rwlock_upgrade", "64", "64", ["buf:i32:2", "buf:i32:64"]),
    "bucket_locks": ("simt_lock", "bucket_locks", "64", "64", ["buf:i32:4", "buf:i32:4", "buf:i32:64:iota"]),
    "streamk_fixup_flag": ("not_visible", "streamk_fixup_flag", "128", "64",
                           ["buf:i32:1", "buf:f32:64", "buf:f32:4096:iota", "buf:f32:64"]),
    "lookback_scan_narrow": ("not_visible", "lookback_scan_narrow", "128", "64",
                             ["buf:u32:2", "buf:u32:128:iota", "buf:u32:128"]),
    "hoist_done_arg": ("hoisted", "hoist_done_arg", "128", "64",
                       ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128", "buf:f32:64"]),
    "splitk_semaphore": ("no_invented", "splitk_semaphore", "192", "64",
                         ["buf:i32:1", "buf:f32:64", "buf:f32:3072:iota"]),
    "lookback_scan_agent": ("no_invented", "lookback_scan_agent", "256", "64",
                            ["buf:u32:4", "buf:u32:256:iota", "buf:u32:256"]),
    "ticket_lock_leader": ("no_invented", "ticket_lock_leader", "256", "64",
                           ["buf:u32:1", "buf:u32:1", "buf:i32:1", "buf:i32:256:iota"]),
    "syncthreads_or_loop": ("no_invented", "syncthreads_or_loop", "128", "128", ["buf:i32:128:iota", "buf:i32:128"]),
}
B.retarget(HERE, CASES)
M, Checks = B.M, B.Checks
_one, _roles, _waves, _lane_set, _line_check = B._one, B._roles, B._waves, B._lane_set, B._line_check


def _wave_lanes(wg: tuple, threads, wave: int) -> set:
    """{(workgroup, wave, lane)} of the work-items `threads` of workgroup `wg`."""
    return {(wg, t // wave, t % wave) for t in threads}


def _whole_waves(wg: tuple, threads, wave: int) -> set:
    """Every lane of the waves that hold any of `threads` (a block of 64 work-items)."""
    waves = {t // wave for t in threads}
    return {(wg, w, lane) for w in waves for lane in range(min(wave, 64))}


def _hang(c: Checks, status: str, doc: dict) -> None:
    c("run status", status == "hang", status)
    c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))


def _spin(kernel: str, causes: tuple, lanes, poll: tuple = ("poll", "loop"), required: tuple = ("poll",),
          value=None, waits_for=None, barrier: tuple | None = None):
    """A spin that a final or unwritten value keeps going: one spin_forever finding whose cause is one of `causes`,
    whose lanes are `lanes(ctx)` (a set, or a predicate on the set), the polling load at the markers `poll` naming one
    of `required`, and the polled value / the value it waits for where the semantics fix them. `barrier`: the markers
    a barrier finding's waiting waves may name, when the core has waves at a barrier."""
    def expect(c: Checks, status: str, doc: dict, ctx: dict) -> None:
        _hang(c, status, doc)
        got = [f for f in doc.get("findings", []) if f["kind"] == "spin_forever"]
        c(f"spin_forever/{'|'.join(causes)}", len(got) == 1 and got[0]["cause"] in causes,
          [(f["kind"], f["cause"]) for f in doc.get("findings", [])])
        if len(got) != 1:
            return
        f = got[0]
        want = lanes(ctx)
        seen = _lane_set(_waves(f))
        c("waves", want(seen) if callable(want) else seen == want, sorted(_waves(f)))
        _line_check(c, "polling load", _roles(f).get("polling load"), M(kernel, *poll), M(kernel, *required))
        d = f.get("details", {})
        if value is not None:
            c(f"value {value}", d.get("value") == value, d)
        if waits_for is not None and f["cause"] == "never_true":
            c(f"waits for {waits_for}", d.get("waits_for") == waits_for, d)
        if barrier and ctx["at_barrier"]:
            b = _one(c, doc, "barrier_deadlock", "missing_arrivals")
            if b is not None:
                c("barrier waves", {(wg, w) for wg, w, _ in _waves(b)} >= ctx["at_barrier"], sorted(_waves(b)))
                _line_check(c, "waiting at barrier", _roles(b).get("waiting at barrier"), M(kernel, *barrier),
                            M(kernel, "barrier"))
    return expect


def _simt(kernel: str, spinners, holders):
    """A SIMT lock: spin_forever/writer_blocked (why same_wave) over the lanes `spinners(ctx)`, the lanes that hold
    the lock (or locks) and cannot reach their release `holders(ctx)` (a set, or a predicate on the set), the
    polling load at @poll and the write that never lands at @release. Several locks (one per address) may be
    several findings: the checks are on their union."""
    def expect(c: Checks, status: str, doc: dict, ctx: dict) -> None:
        _hang(c, status, doc)
        got = [f for f in doc.get("findings", []) if f["kind"] == "spin_forever"]
        c("spin_forever/writer_blocked", bool(got) and all(f["cause"] == "writer_blocked" for f in got),
          [(f["kind"], f["cause"]) for f in doc.get("findings", [])])
        if not got:
            return
        c("why same_wave", all(f.get("details", {}).get("why") == "same_wave" for f in got),
          [f.get("details", {}).get("why") for f in got])
        held = set()
        for f in got:
            held |= _lane_set((tuple(h["workgroup"]), h["wave_in_group"], h["lanes"])
                              for h in f.get("details", {}).get("holders", []))
        want = holders(ctx)
        c("holder lanes", want(held) if callable(want) else held == want, sorted(held))
        seen = set().union(*(_lane_set(_waves(f)) for f in got))
        c("waves", seen == spinners(ctx), sorted(seen))
        polls = set().union(*(_roles(f).get("polling load", set()) for f in got))
        releases = set().union(*(_roles(f).get("write that never lands", set()) for f in got))
        _line_check(c, "polling load", polls, M(kernel, "poll", "loop"), M(kernel, "poll"))
        _line_check(c, "release line", releases, M(kernel, "release"))
    return expect


def _not_visible(kernel: str, poll: tuple, write: tuple, barrier: tuple = (), may_complete: tuple = ()):
    """A publication the poller cannot see: spin_forever/not_visible over the waves the core has spinning, the poll
    (allowed markers `poll`, naming the kernel's @poll), the writer (`write`, naming @write), the scopes (needed:
    agent; the load's: wavefront or workgroup) and a verified fix; waves at a barrier (wave32): a barrier finding.
    `may_complete`: targets on which the load misses the per-CU cache (GFX11/12 compile a workgroup-scope load with
    glc / scope bits), so only a stale line in the shader array's GL1 keeps it spinning, which depends on where
    the workgroups run: there the run may complete (and its part-way core must not be a hang)."""
    def expect(c: Checks, status: str, doc: dict, ctx: dict) -> None:
        if status == "completed" and ctx["obj"].split("-")[1] in may_complete:
            B._no_invented(c, status, doc, ctx)
            return
        _hang(c, status, doc)
        f = _one(c, doc, "spin_forever", "not_visible")
        if f is None:
            return
        c("waves", {(wg, w) for wg, w, _ in _waves(f)} == ctx["stuck"], (sorted(_waves(f)), sorted(ctx["stuck"])))
        roles = _roles(f)
        _line_check(c, "polling load", roles.get("polling load"), M(kernel, *poll), M(kernel, "poll"))
        _line_check(c, "writer's line", roles.get("write that never becomes visible"), M(kernel, *write),
                    M(kernel, "write"))
        d = f.get("details", {})
        c("needed scope", d.get("needed_scope") == "agent", d.get("needed_scope"))
        c("load scope", d.get("load_scope") in ("wavefront", "workgroup"), d.get("load_scope"))
        c("fix verified", d.get("fix_verified") is True, d.get("fix_verified"))
        if barrier and ctx["at_barrier"]:
            b = _one(c, doc, "barrier_deadlock", "missing_arrivals")
            if b is not None:
                c("barrier waves", {(wg, w) for wg, w, _ in _waves(b)} >= ctx["at_barrier"], sorted(_waves(b)))
                _line_check(c, "waiting at barrier", _roles(b).get("waiting at barrier"), M(kernel, *barrier),
                            M(kernel, "barrier"))
    return expect


def _hoisted(c: Checks, status: str, doc: dict | None, ctx: dict) -> None:
    """hoist_done_arg: -O2 reads *done once before the loop (poll_hoisted, the variable named); -O0 reads it every
    iteration with a plain load, which may keep the stale line (not_visible) or see the write (completes)."""
    k = "hoist_done_arg"
    spinners = _wave_lanes((1, 0, 0), range(64), ctx["wave"])
    if ctx["opt"] == "O0":
        if status == "completed":
            c("run status", True)
            return
        c("run status", status in ("hang", "limit"), status)
        c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
        f = _one(c, doc, "spin_forever", "not_visible")
        if f is not None:
            c("waves", _lane_set(_waves(f)) == spinners, sorted(_waves(f)))
            _line_check(c, "polling load", _roles(f).get("polling load"), M(k, "poll", "loop"), M(k, "poll"))
            _line_check(c, "writer's line", _roles(f).get("write that never becomes visible"), M(k, "write"))
        return
    c("run status", status in ("hang", "limit"), status)  # the loop stores a new float every iteration
    c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
    f = _one(c, doc, "spin_forever", "poll_hoisted")
    if f is not None:
        c("waves", _lane_set(_waves(f)) == spinners, sorted(_waves(f)))
        _line_check(c, "polling load", _roles(f).get("polling load"), M(k, "poll"))
        d = f.get("details", {})
        c("variable", "done" in str(d.get("variable")), d.get("variable"))
        c("value", d.get("value") == 1 and d.get("atomic") is False, (d.get("value"), d.get("atomic")))
        c("needed scope", d.get("needed_scope") == "agent", d.get("needed_scope"))


def _queue_lanes(ctx: dict):
    """persistent_queue_tail: the 64 claims past the tail, whole waves of the two worker workgroups (which waves got
    which claims is the schedule's choice)."""
    def ok(seen: set) -> bool:
        wgs = {(1, 0, 0), (2, 0, 0)}
        waves = {(wg, w) for wg, w, _ in seen}
        return (len(seen) == 64 and all(wg in wgs for wg, _, _ in seen)
                and seen == {(wg, w, lane) for wg, w in waves for lane in range(ctx["wave"])})
    return ok


def _bucket_holders(ctx: dict):
    """bucket_locks: one holder per bucket (key & 3, keys iota: lane & 3), all in wave 0 of workgroup 0."""
    def ok(held: set) -> bool:
        return len(held) == 4 and {lane & 3 for _, _, lane in held} == {0, 1, 2, 3} and all(
            wg == (0, 0, 0) and w == 0 for wg, w, _ in held)
    return ok


WG0 = (0, 0, 0)
EXPECT = {
    "persistent_queue_tail": _spin("persistent_queue_tail", ("never_true",), _queue_lanes, value=64),
    "ring_buffer_full": _spin("ring_buffer_full", ("never_true",),
                              lambda ctx: {(WG0, 0, 0)}, value=16, waits_for=17),
    "early_exit_grid_sync": _spin("early_exit_grid_sync", ("never_true",),
                                  lambda ctx: set().union(*(_wave_lanes((g, 0, 0), range(64), ctx["wave"])
                                                            for g in range(3))), value=3, waits_for=4),
    # the sense flag is final at 1 and the loop waits for 0: docs/explain.md calls a final value that 0 would end
    # no_writer ("a lock held from launch"), a final non-zero value never_true; either, with the value
    "atomicinc_barrier": _spin("atomicinc_barrier", ("no_writer", "never_true"),
                               lambda ctx: {((g, 0, 0), 0, 0) for g in range(4)},
                               poll=("poll", "helper:sense_poll", "helper:sense_loop"), value=1, waits_for=0,
                               barrier=("barrier", "helper:sense_sync", "helper:barrier")),
    "vote_spin_any": _spin("vote_spin_any", ("no_writer",),
                           lambda ctx: _whole_waves((1, 0, 0), range(48, 64), ctx["wave"])),
    "rwlock_upgrade": _simt("rwlock_upgrade", lambda ctx: {(WG0, 0, 0)},
                            lambda ctx: _wave_lanes(WG0, range(1, min(64, ctx["wave"])), ctx["wave"])),
    "bucket_locks": _simt("bucket_locks", lambda ctx: _wave_lanes(WG0, range(32), ctx["wave"]) - {
        (WG0, 0, lane) for lane in range(4)}, _bucket_holders),
    "streamk_fixup_flag": _not_visible("streamk_fixup_flag", ("poll", "loop"), ("write",)),
    "lookback_scan_narrow": _not_visible(
        "lookback_scan_narrow", ("poll", "helper:look_back", "helper:lookback_poll", "helper:lookback_loop"),
        ("write", "helper:publish_p"), ("barrier", "helper:scan_sync", "helper:barrier"),
        may_complete=("gfx1100", "gfx1200")),
    "hoist_done_arg": _hoisted,
    "splitk_semaphore": B._no_invented,
    "lookback_scan_agent": B._no_invented,
    "ticket_lock_leader": B._no_invented,
    "syncthreads_or_loop": B._no_invented,
}
B.EXPECT = EXPECT
MARKS, HELPERS, OBJECTS = B.MARKS, B.HELPERS, B.OBJECTS
score_case = B.score_case

if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(HERE.parents[1]))  # the checkout's amddbg, in-process and in the CLI
    sys.path.insert(0, os.environ["PYTHONPATH"].split(os.pathsep)[0])
    raise SystemExit(B.main())
