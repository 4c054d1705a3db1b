#!/usr/bin/env python3
"""Score `amddbg` on the freshhangs corpus the way issue 20's held-out check does: run status, verdict, kind/cause,
the tagged source lines, waves, details, and `bt`, for every kernel on every object.

    python3 corefiles/freshhangs/score.py                      # every kernel x 24 objects, 2 jobs
    python3 corefiles/freshhangs/score.py -k lock_member -o llvm22-gfx90a-w64-O2 -v
    python3 corefiles/freshhangs/score.py --json scores.json   # also write every check

Each case runs `amddbg run OBJ --kernel K ... --core CORE --json` (a hang, trap or fault writes the core), then
`amddbg explain CORE --json` and `amddbg --json -batch -ex 'thread apply all bt' CORE`, all through the CLI. A kernel
that completes is run again with `--max-instructions` set to half of what it needed, and the part-way core must
explain as `no_hang` (no invented hang). The expectations (EXPECT below) were written from the semantics of each
kernel (see the comments in freshhangs.hip), before amddbg was run on them; the lines come from the source's
markers. `bt`'s lines are checked against llvm-addr2line-22 -i (an oracle no one here wrote) and must name a
marked line. The table printed at the end gives checks held / checks per class and target.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE.name  # the objects' prefix: <corpus>-llvm{19,22}-<target>-w{32,64}-O{0,2}.co
SOURCE = HERE / f"{CORPUS}.hip"
OBJECTS = sorted(p.stem[len(CORPUS) + 1:] for p in HERE.glob(f"{CORPUS}-llvm*.co"))
ADDR2LINE = shutil.which("llvm-addr2line-22")
RUN_LIMIT = 3_000_000  # wave-instructions per run: the counting loops are proven stuck after ~110k


def markers() -> tuple[dict, dict]:
    """(kernel -> {marker: {lines}}, helper NAME -> line) from the source's `// @...` comments."""
    kernels: dict = {}
    helpers: dict = {}
    kernel = None
    for n, text in enumerate(SOURCE.read_text().splitlines(), 1):
        m = re.match(r"__global__ void (\w+)\(", text)
        if m:
            kernel = m.group(1)
        if "//" not in text:
            continue
        for mark in re.findall(r"@([\w:]+)", text.split("//", 1)[1]):
            if mark.startswith("helper:"):
                helpers[mark[len("helper:"):]] = n
            elif kernel is not None:
                kernels.setdefault(kernel, {}).setdefault(mark, set()).add(n)
    return kernels, helpers


MARKS, HELPERS = markers()


def M(kernel: str, *names: str) -> set:
    """The lines of the kernel's markers and helpers named (`helper:NAME` or a marker)."""
    out: set = set()
    for name in names:
        if name.startswith("helper:"):
            out.add(HELPERS[name[len("helper:"):]])
        else:
            out |= MARKS.get(kernel, {}).get(name, set())
    return out


# ---------------------------------------------------------------------------------------------- the cases
# kernel -> (class, --kernel name, grid, block, [args]); the class is the section-3 class it checks
CASES = {
    "lock_member": ("simt_lock", "lock_member", "64", "64", ["buf:i32:2", "buf:i32:8"]),
    "ttas_lock_2d": ("simt_lock", "ttas_lock_2d", "32,2", "32,2", ["buf:i32:1", "buf:f32:1", "buf:f32:64:iota"]),
    "ticket_tmpl": ("simt_lock", "ticket_tmpl<unsigned int>", "64", "64", ["buf:u32:1", "buf:u32:1", "buf:u32:64"]),
    "lock_then_sync": ("wave_states", "lock_then_sync", "128", "128", ["buf:i32:1", "buf:i32:129"]),
    "queue_pop_counting": ("counting", "queue_pop_counting", "64", "64", ["buf:u32:64", "buf:i32:64", "buf:u32:64"]),
    "deadline_poll": ("no_invented", "deadline_poll", "64", "64", ["buf:i32:1", "buf:i32:64", "u64:3000"]),
    "xwg_slot_2d": ("not_visible", "xwg_slot_2d", "64,2", "64,1", ["buf:i32:2", "buf:i32:64:iota", "buf:i32:128"]),
    "grid_sync_2d": ("grid_barrier", "grid_sync_2d", "128,2", "64,1", ["buf:u32:16", "buf:f32:256:iota"]),
    "hoist_device_global": ("hoisted", "hoist_device_global", "128", "64",
                            ["buf:i32:64:iota", "buf:i32:128", "buf:f32:64"]),
    "ballot_ready_lanes": ("never_true", "ballot_ready_lanes", "64", "64", ["buf:i32:64", "buf:i32:64"]),
    "arrive_off_by_one_2d": ("never_true", "arrive_off_by_one_2d", "16,4", "16,4", ["buf:u32:1", "buf:i32:64"]),
    "bd_handoff": ("cycle", "bd_handoff", "128", "128", ["buf:i32:2", "buf:i32:128"]),
    "early_return_reduce": ("no_invented", "early_return_reduce", "256", "256",
                            ["buf:f32:256:iota", "buf:f32:1", "u32:100"]),
    "divergent_sync_arms": ("no_invented", "divergent_sync_arms", "128", "128", ["buf:i32:128"]),
    "grid_rmw_poll": ("no_invented", "grid_rmw_poll", "256", "64", ["buf:u32:1", "buf:i32:256"]),
    "assert_bounds_2d": ("trap", "assert_bounds_2d", "16,4", "16,4", ["buf:i32:64:iota", "buf:f32:64", "i32:60"]),
    "fault_null_row": ("fault", "fault_null_row", "64,2", "64,1", ["buf:u64:2", "buf:f32:128"]),
}


class Checks:
    """The checks of one case: (name, held, what was seen)."""

    def __init__(self) -> None:
        self.items: list[tuple[str, bool, str]] = []

    def __call__(self, name: str, ok: bool, seen: object = "") -> bool:
        self.items.append((name, bool(ok), "" if ok else str(seen)[:400]))
        return bool(ok)


def _roles(f: dict) -> dict:
    out: dict = {}
    for loc in f.get("locations", []):
        out.setdefault(loc["role"], set()).add(loc["line"])
    return out


def _waves(f: dict) -> set:
    return {(tuple(w["workgroup"]), w["wave_in_group"], w["lanes"]) for w in f.get("waves", [])}


def _lanes(text: str) -> set:
    out: set = set()
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        out |= set(range(int(a), int(b or a) + 1))
    return out


def _lane_set(waves) -> set:
    """{(workgroup, wave, lane)} of a finding's waves."""
    return {(wg, w, lane) for wg, w, lanes in waves for lane in _lanes(lanes)}


def _all_lanes(n_items: int, wave: int, wg=(0, 0, 0)) -> set:
    return {(wg, i // wave, i % wave) for i in range(n_items)}


def _line_check(c: Checks, name: str, got: set | None, allowed: set, required: set | None = None) -> None:
    """A role's lines: named (no line 0), all among `allowed`, and naming one of `required` (default allowed)."""
    got = got or set()
    c(f"{name}: named", bool(got) and all(got), got)
    c(f"{name}: the tagged lines", got <= allowed and bool(got & (required or allowed)),
      f"got {sorted(got, key=str)}, allowed {sorted(allowed)}")


def _one(c: Checks, doc: dict, kind: str, cause: str) -> dict | None:
    got = [f for f in doc.get("findings", []) if f["kind"] == kind and f["cause"] == cause]
    c(f"{kind}/{cause}", len(got) == 1, [(f["kind"], f["cause"]) for f in doc.get("findings", [])])
    return got[0] if got else None


def _lock(kernel: str, poll: set, release: set, n_items: int, barrier: bool = False):
    """A SIMT lock: every lane but one (the holder, in a spinning wave) spins; the holder's release never lands."""
    def expect(c: Checks, status: str, doc: dict, ctx: dict) -> None:
        c("run status", status == "hang", status)
        c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
        f = _one(c, doc, "spin_forever", "writer_blocked")
        if f is None:
            return
        d = f.get("details", {})
        c("why same_wave", d.get("why") == "same_wave", d.get("why"))
        holders = _lane_set((tuple(h["workgroup"]), h["wave_in_group"], h["lanes"]) for h in d.get("holders", []))
        c("one holder lane", len(holders) == 1, d.get("holders"))
        spinners = _all_lanes(min(n_items, ctx["wave"]) if barrier else n_items, ctx["wave"])
        c("waves", _lane_set(_waves(f)) == spinners - holders, sorted(_waves(f)))
        roles = _roles(f)
        _line_check(c, "polling load", roles.get("polling load"), poll, MARKS[kernel]["poll"])
        _line_check(c, "release line", roles.get("write that never lands"), release, MARKS[kernel]["release"])
        if barrier:
            b = _one(c, doc, "barrier_deadlock", "missing_arrivals")
            if b is not None:
                _line_check(c, "waiting at barrier", _roles(b).get("waiting at barrier"),
                            M(kernel, "barrier", "helper:barrier"), M(kernel, "barrier"))
                at = _all_lanes(n_items, ctx["wave"]) - _all_lanes(min(n_items, ctx["wave"]), ctx["wave"])
                c("barrier waves", _lane_set(_waves(b)) >= at, sorted(_waves(b)))
                c("true wave state", "halted" not in b["summary"] and "spinning" in b["summary"], b["summary"])
                # the lock's holder is a lane of the spinning wave: the waiters' stores after the barrier are no
                # write the spinners wait for, so no cycle (and no "write that never lands" on the barrier)
                c("no invented cycle", not b.get("details", {}).get("cycle") and "write that never lands" not in
                  _roles(b), b.get("details"))
    return expect


def _no_invented(c: Checks, status: str, doc: dict | None, ctx: dict) -> None:
    c("run status", status == "completed", status)
    if doc is not None:
        c("part-way core: verdict", doc.get("verdict") == "no_hang", doc.get("verdict"))
        c("part-way core: slow_not_stuck", [f["cause"] for f in doc.get("findings", [])] == ["slow_not_stuck"],
          [(f["kind"], f["cause"]) for f in doc.get("findings", [])])


def _counting(c: Checks, status: str, doc: dict, ctx: dict) -> None:
    k = "queue_pop_counting"
    c("run status", status == "hang", status)
    c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
    f = _one(c, doc, "spin_forever", "no_writer")
    if f is not None:
        c("waves", _lane_set(_waves(f)) == _all_lanes(64, ctx["wave"]), sorted(_waves(f)))
        _line_check(c, "polling load", _roles(f).get("polling load"), M(k, "poll", "loop"), M(k, "poll"))


def _not_visible(kernel: str, write: set, poll: set, barrier: bool):
    def expect(c: Checks, status: str, doc: dict, ctx: dict) -> None:
        c("run status", status == "hang", status)
        c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
        f = _one(c, doc, "spin_forever", "not_visible")
        if f is None:
            return
        stuck, at_barrier = ctx["stuck"], ctx["at_barrier"]
        c("waves", {(wg, w) for wg, w, _ in _waves(f)} == stuck, (sorted(_waves(f)), sorted(stuck)))
        roles = _roles(f)
        _line_check(c, "polling load", roles.get("polling load"), poll, poll - M(kernel, "loop"))
        _line_check(c, "writer's line", roles.get("write that never becomes visible"), write)
        d = f.get("details", {})
        c("needed scope", d.get("needed_scope") == "agent", d.get("needed_scope"))
        c("load scope", d.get("load_scope") in ("wavefront", "workgroup"), d.get("load_scope"))
        c("fix verified", d.get("fix_verified") is True, d.get("fix_verified"))
        if barrier and at_barrier:
            b = _one(c, doc, "barrier_deadlock", "missing_arrivals")
            if b is not None:
                c("barrier waves", {(wg, w) for wg, w, _ in _waves(b)} >= at_barrier, sorted(_waves(b)))
                _line_check(c, "waiting at barrier", _roles(b).get("waiting at barrier"),
                            M(kernel, "barrier", "helper:barrier", "helper:grid_barrier"))
    return expect


def _hoisted(c: Checks, status: str, doc: dict | None, ctx: dict) -> None:
    k = "hoist_device_global"
    spinners = {(wg, w, lane) for wg, w, lane in _all_lanes(64, ctx["wave"], (1, 0, 0))}
    if ctx["opt"] == "O0":  # a plain load every iteration: it may keep its stale line (or see the write)
        if status == "completed":
            c("run status", True)
            return
        c("run status", status in ("hang", "limit"), status)
        c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
        f = _one(c, doc, "spin_forever", "not_visible")
        if f is not None:
            c("waves", _lane_set(_waves(f)) == spinners, sorted(_waves(f)))
            roles = _roles(f)
            _line_check(c, "polling load", roles.get("polling load"), M(k, "poll"))
            _line_check(c, "writer's line", roles.get("write that never becomes visible"), M(k, "write"))
        return
    c("run status", status in ("hang", "limit"), status)  # the loop writes a new float each time round
    c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
    f = _one(c, doc, "spin_forever", "poll_hoisted")
    if f is not None:
        c("waves", _lane_set(_waves(f)) == spinners, sorted(_waves(f)))
        roles = _roles(f)
        _line_check(c, "polling load", roles.get("polling load"), M(k, "poll"))
        d = f.get("details", {})
        c("variable", d.get("variable") == "g_go", d.get("variable"))
        c("value", d.get("value") == 1 and d.get("atomic") is False, (d.get("value"), d.get("atomic")))
        c("needed scope", d.get("needed_scope") == "agent", d.get("needed_scope"))


def _ballot(c: Checks, status: str, doc: dict | None, ctx: dict) -> None:
    if ctx["wave"] == 64:  # every lane's bit is set: the 64-bit ballot is all ones on wave64
        _no_invented(c, status, doc, ctx)
        return
    c("run status", status == "hang", status)
    c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
    f = _one(c, doc, "spin_forever", "never_true")
    if f is not None:
        c("waves", _lane_set(_waves(f)) == _all_lanes(64, 32), sorted(_waves(f)))
        roles = _roles(f)
        if "polling load" in roles:
            _line_check(c, "polling load", roles["polling load"], M("ballot_ready_lanes", "poll", "helper:all_lanes"),
                        M("ballot_ready_lanes", "poll"))
        c("a line named", bool(roles) and all(all(v) for v in roles.values()), roles)
        c("waits for nothing", f.get("details", {}).get("waits_for") is None, f.get("details"))


def _off_by_one(c: Checks, status: str, doc: dict, ctx: dict) -> None:
    k = "arrive_off_by_one_2d"
    c("run status", status == "hang", status)
    c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
    f = _one(c, doc, "spin_forever", "never_true")
    if f is not None:
        c("waves", _lane_set(_waves(f)) == _all_lanes(64, ctx["wave"]), sorted(_waves(f)))
        _line_check(c, "polling load", _roles(f).get("polling load"), M(k, "poll"))
        d = f.get("details", {})
        c("value 64, waits for 65", (d.get("value"), d.get("waits_for")) == (64, 65), d)


def _cycle(c: Checks, status: str, doc: dict, ctx: dict) -> None:
    k = "bd_handoff"
    c("run status", status == "hang", status)
    c("verdict", doc.get("verdict") == "hang", doc.get("verdict"))
    f = _one(c, doc, "barrier_deadlock", "missing_arrivals")
    others = [(g["kind"], g["cause"]) for g in doc.get("findings", []) if g is not f]
    c("no other finding (but the spinners' writer_blocked)",
      all(o == ("spin_forever", "writer_blocked") for o in others), others)
    if f is None:
        return
    c("cycle", f.get("details", {}).get("cycle") is True, f.get("details"))
    c("waves", _lane_set(_waves(f)) == _all_lanes(128, ctx["wave"]), sorted(_waves(f)))
    roles = _roles(f)
    _line_check(c, "waiting at barrier", roles.get("waiting at barrier"), M(k, "barrier", "helper:barrier"),
                M(k, "barrier"))
    _line_check(c, "polling load", roles.get("polling load"), M(k, "poll"))
    _line_check(c, "write that never lands", roles.get("write that never lands"), M(k, "write", "helper:signal"),
                M(k, "write"))


def _trap(c: Checks, status: str, doc: dict, ctx: dict) -> None:
    k = "assert_bounds_2d"
    c("run status", status == "trap", status)
    c("verdict", doc.get("verdict") == "trap", doc.get("verdict"))
    f = _one(c, doc, "trap", "assert_trap")
    if f is not None:
        c("lanes", _lane_set(_waves(f)) == {((0, 0, 0), i // ctx["wave"], i % ctx["wave"]) for i in range(60, 64)},
          sorted(_waves(f)))
        _line_check(c, "trap line", _roles(f).get("trap"), M(k, "trap", "helper:check"), M(k, "trap"))


def _fault(c: Checks, status: str, doc: dict, ctx: dict) -> None:
    k = "fault_null_row"
    c("run status", status == "fault", status)
    c("verdict", doc.get("verdict") == "fault", doc.get("verdict"))
    got = [f for f in doc.get("findings", []) if f["kind"] == "memory_violation"]
    c("memory_violation", bool(got), [(f["kind"], f["cause"]) for f in doc.get("findings", [])])
    if got:
        f = got[0]
        _line_check(c, "faulting access", _roles(f).get("faulting access"), M(k, "fault"))
        c("origin names rows", "rows" in json.dumps(f.get("details", {}).get("origin", "")) or "rows" in f["summary"],
          f["summary"])


EXPECT = {
    "lock_member": _lock("lock_member", M("lock_member", "poll", "helper:mutex_lock"),
                         M("lock_member", "release", "helper:mutex_unlock"), 64),
    "ttas_lock_2d": _lock("ttas_lock_2d", M("ttas_lock_2d", "poll", "loop", "helper:try_lock"),
                          M("ttas_lock_2d", "release"), 64),
    "ticket_tmpl": _lock("ticket_tmpl", M("ticket_tmpl", "poll"), M("ticket_tmpl", "release"), 64),
    "lock_then_sync": _lock("lock_then_sync", M("lock_then_sync", "poll", "helper:spin_acquire"),
                            M("lock_then_sync", "release"), 128, barrier=True),
    "queue_pop_counting": _counting,
    "deadline_poll": _no_invented,
    "xwg_slot_2d": _not_visible("xwg_slot_2d", M("xwg_slot_2d", "write", "helper:publish"),
                                M("xwg_slot_2d", "poll"), barrier=False),
    "grid_sync_2d": _not_visible("grid_sync_2d", M("grid_sync_2d", "poll", "helper:grid_arrive"),
                                 M("grid_sync_2d", "poll", "helper:grid_poll"), barrier=True),
    "hoist_device_global": _hoisted,
    "ballot_ready_lanes": _ballot,
    "arrive_off_by_one_2d": _off_by_one,
    "bd_handoff": _cycle,
    "early_return_reduce": _no_invented,
    "divergent_sync_arms": _no_invented,
    "grid_rmw_poll": _no_invented,
    "assert_bounds_2d": _trap,
    "fault_null_row": _fault,
}
# the lines a stuck wave's bt may name (besides the helpers' own lines)
BT_MARKS = ("poll", "loop", "barrier", "trap", "fault", "release", "write")



def retarget(here: Path, cases: dict, bt_marks: tuple = BT_MARKS) -> None:
    """Point this scorer at another corpus folder (corefiles/freshhangs2/score.py loads its own copy of this module
    and calls this, then sets EXPECT): the source `<folder>.hip`, its markers and objects, the cases and the marker
    names a stuck wave's `bt` may name. The run, explain, `bt`/addr2line checks and the table stay this file's."""
    global HERE, CORPUS, SOURCE, OBJECTS, MARKS, HELPERS, CASES, BT_MARKS
    HERE, CORPUS = here, here.name
    SOURCE = here / f"{CORPUS}.hip"
    OBJECTS = sorted(p.stem[len(CORPUS) + 1:] for p in here.glob(f"{CORPUS}-llvm*.co"))
    MARKS, HELPERS = markers()
    CASES, BT_MARKS = cases, bt_marks


# ---------------------------------------------------------------------------------------------- running a case
def _amddbg(*argv, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout)


def _run(obj: str, kernel: str, core: Path, limit: int = RUN_LIMIT) -> tuple[str, dict, str]:
    _, name, grid, block, args = CASES[kernel]
    cmd = ["run", HERE / f"{CORPUS}-{obj}.co", "--kernel", name, "--grid", grid, "--block", block, "--json",
           "--core", core, "--max-instructions", limit]
    for a in args:
        cmd += ["--arg", a]
    p = _amddbg(*cmd)
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        return f"error: {p.stderr.strip()[-300:]}", {}, p.stderr
    return doc.get("status", "?"), doc, p.stderr


def _explain(core: Path) -> tuple[dict, str]:
    p = _amddbg("explain", core, "--json")
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {"error": p.stderr.strip()[-300:]}, p.stderr
    want = {"hang": 3, "no_hang": 0, "unknown": 0, "fault": 4, "trap": 4}.get(doc.get("verdict"))
    doc["_exit_ok"] = p.returncode == want
    return doc, p.stderr


def _core_waves(core: Path) -> tuple[set, set]:
    """(waves not at a barrier, waves at a barrier) of the core, as (workgroup, wave_in_group)."""
    import amddbg
    from amddbg.session.threads import WaveState

    prog = amddbg.open(str(core))
    try:
        at = {(tuple(t.workgroup), t.wave_in_group) for t in prog.waves if t.state is WaveState.AT_BARRIER}
        return {(tuple(t.workgroup), t.wave_in_group) for t in prog.waves} - at, at
    finally:
        prog.close()


def _addr2line(obj: str, rel: int) -> list[tuple[str, int]]:
    out = subprocess.run([ADDR2LINE, "-i", "-f", "-C", "-e", str(HERE / f"{CORPUS}-{obj}.co"), hex(rel)],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    pairs = zip(out[::2], out[1::2], strict=False)
    return [(fn.split("(")[0], int(where.rsplit(":", 1)[1].split()[0] or 0)) for fn, where in pairs]


def _fname(fn: str) -> str:
    """addr2line's function name as bt spells it: a template instance's demangled name starts with its return
    type (`void ticket_tmpl<unsigned int>`, `unsigned int look_back<3>`), which bt leaves out."""
    return re.sub(r"^(?:[\w:]+(?: [*&]+)? )+(?=[\w:]+<)", "", fn)


def _bt(c: Checks, core: Path, obj: str, kernel: str, trapped: bool) -> None:
    """`thread apply all bt`: every frame has a line; frame 0's inline chain is llvm-addr2line-22 -i's; some frame
    of every wave names a marked line of the kernel (or a helper it calls)."""
    r = _amddbg("--json", "-batch", "-ex", "thread apply all bt", core)
    if not c("bt runs", r.returncode == 0 and "Traceback" not in r.stderr, r.stderr[-300:]):
        return
    import amddbg

    prog = amddbg.open(str(core))
    load = prog.code_objects[0].load_address
    prog.close()
    marked = M(kernel, *BT_MARKS) | set(HELPERS.values())
    docs = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    lines_ok = oracle_ok = marked_ok = True
    seen = ""
    for doc in docs:
        frames = doc.get("frames", [])
        if not frames or not all(f.get("line") for f in frames if f.get("file")):
            lines_ok, seen = False, frames
            continue
        oracle = []
        if ADDR2LINE:
            pc = frames[0]["pc"]
            chain = [f for f in frames if f["pc"] == pc]
            oracle = _addr2line(obj, pc - load - (4 if trapped else 0))
            got = [(f["function"].split("(")[0], f["line"]) for f in chain]
            if [fn for fn, _ in got] != [_fname(fn) for fn, _ in oracle] or any(
                    line and g != line for (_, g), (_, line) in zip(got, oracle, strict=False)):
                oracle_ok, seen = False, (got, oracle)
        # (a PC whose row says line 0, -O0 spill code in the loop, gets the preceding row's line, as gdb does:
        # that line need not be a marked one)
        if not any(f.get("line") in marked for f in frames) and not (oracle and oracle[0][1] == 0):
            marked_ok, seen = False, [(f["function"], f["line"]) for f in frames]
    c("bt: a line for every frame", lines_ok, seen)
    c("bt: frame 0 as llvm-addr2line -i", oracle_ok, seen)
    c("bt: names the tagged lines", marked_ok, seen)


def score_case(obj: str, kernel: str, workdir: Path) -> list[tuple[str, bool, str]]:
    """Every check of one kernel on one object (through the CLI), as (name, held, what was seen)."""
    c = Checks()
    ctx = {"wave": int(re.search(r"-w(\d+)-", obj).group(1)), "opt": obj.rsplit("-", 1)[1], "obj": obj}
    core = workdir / f"{kernel}-{obj}.gpu"
    status, run, err = _run(obj, kernel, core)
    if status.startswith("error"):
        c("run status", False, status)
        return c.items
    doc = None
    if status == "completed":
        n = int(run.get("wave_instructions") or 0)
        part = workdir / f"{kernel}-{obj}-part.gpu"
        pstatus, _, _ = _run(obj, kernel, part, limit=max(1, n // 2))
        if pstatus == "limit" and part.exists():
            doc, _ = _explain(part)
        else:
            c("part-way core written", False, pstatus)
    elif core.exists():
        doc, _ = _explain(core)
        c("explain exit code", doc.get("_exit_ok", False), doc.get("error") or doc.get("verdict"))
        stuck, at = _core_waves(core)
        ctx["stuck"], ctx["at_barrier"] = stuck, at
    else:
        c("core written", False, status)
        return c.items
    try:
        EXPECT[kernel](c, status, doc if doc is not None else {}, ctx)
    except Exception as exc:  # noqa: BLE001 - a malformed answer is a failed check, not a crash of the scorer
        c("expectation evaluated", False, repr(exc))
    if status != "completed" and core.exists():
        if doc is not None:
            locs = [loc for f in doc.get("findings", []) for loc in f.get("locations", [])]
            c("no line 0 in explain", all(loc.get("line") != 0 for loc in locs), locs)
        _bt(c, core, obj, kernel, trapped=status == "trap")
    return c.items


# ---------------------------------------------------------------------------------------------- the table
def _target(obj: str) -> str:
    return re.search(r"(gfx\w+?-w\d+)", obj).group(1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", "--kernel", action="append", help="only these kernels")
    ap.add_argument("-o", "--object", action="append", help="only these objects (e.g. llvm22-gfx90a-w64-O2)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failed check")
    ap.add_argument("--json", help="write every check to this file")
    args = ap.parse_args(argv)
    kernels = args.kernel or list(CASES)
    objects = args.object or OBJECTS
    work = Path(tempfile.mkdtemp(prefix=f"{CORPUS}-"))
    todo = [(o, k) for k in kernels for o in objects]
    results: dict = {}
    with ThreadPoolExecutor(args.jobs) as pool:
        for (o, k), items in zip(todo, pool.map(lambda ok: score_case(ok[0], ok[1], work), todo), strict=True):
            results[(o, k)] = items
            bad = [i for i in items if not i[1]]
            print(f"{k:22s} {o:24s} {len(items) - len(bad):3d}/{len(items):<3d}"
                  + ("" if not bad else "  FAIL: " + "; ".join(n for n, _, _ in bad)), flush=True)
            if args.verbose:
                for n, _, seen in bad:
                    print(f"      {n}: {seen}")
    shutil.rmtree(work, ignore_errors=True)
    table: dict = {}
    for (o, k), items in results.items():
        for key in ((CASES[k][0], _target(o)), (CASES[k][0], "all"), ("all", _target(o)), ("all", "all")):
            held, total = table.get(key, (0, 0))
            table[key] = (held + sum(1 for i in items if i[1]), total + len(items))
    classes = sorted({k for k, _ in table if k != "all"}) + ["all"]
    targets = sorted({t for _, t in table if t != "all"}) + ["all"]
    print("\nchecks held / checks, per class and target\n" + f"{'class':14s}" + "".join(f"{t:>15s}" for t in targets))
    for cl in classes:
        row = f"{cl:14s}"
        for t in targets:
            h, n = table.get((cl, t), (0, 0))
            row += f"{f'{h}/{n}':>15s}" if n else f"{'-':>15s}"
        print(row)
    h, n = table[("all", "all")]
    cases_ok = sum(all(i[1] for i in items) for items in results.values())
    print(f"\n{h}/{n} checks hold ({100 * h / max(n, 1):.1f}%); {cases_ok}/{len(results)} cases with every check")
    if args.json:
        Path(args.json).write_text(json.dumps([{"object": o, "kernel": k, "checks": items}
                                               for (o, k), items in results.items()], indent=1))
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONPATH", str(HERE.parents[1]))  # the checkout's amddbg, in-process and in the CLI
    sys.path.insert(0, os.environ["PYTHONPATH"].split(os.pathsep)[0])
    raise SystemExit(main())
