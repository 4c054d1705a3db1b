"""Hang causes real bug reports show (issue 20, section 3), on corefiles/causehangs/causehangs.hip built by clang-19
and clang-22 for gfx90a, gfx942, gfx1100 and gfx1200 (wave32 and wave64) and by clang-22 for gfx1250 (wave32) at -O0
and -O2 (26 objects, build.py).

Each test runs a kernel with `amddbg run ... --core` (a hang ends the run and writes the core) and explains the core
with `amddbg explain --json`, as a user would, then asserts the run's status, the verdict and exit code, the kind
and cause, the waves (workgroup, wave, lanes) and every line the finding names, from the source text. By default
each kernel runs on one object (together they cover both compilers, the four targets, both wave sizes and both
optimisation levels); the rest of the matrix is marked slow, and CI runs its cover (tests/bounded.py: the slow cases
that, with the defaults, run every kernel class, target, compiler and level somewhere: none, the defaults already
do; AMDDBG_SLOW_LIMIT=0 runs all of it, =N N cases rotating over classes, targets, compilers and levels).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
CH = ROOT / "corefiles" / "causehangs"
SRC = (CH / "causehangs.hip").read_text().splitlines()
OBJECTS = sorted(p.stem[len("causehangs-"):] for p in CH.glob("causehangs-llvm*.co"))

# kernel -> (grid, block, args)
KERNELS = {
    "lock_outside": ("64", "64", ["buf:i32:1", "buf:i32:1"]),
    "lock_sleep": ("64", "64", ["buf:i32:1", "buf:i32:1"]),
    "lock_done": ("64", "64", ["buf:i32:1", "buf:i32:1"]),
    "ticket_lock": ("64", "64", ["buf:i32:1", "buf:i32:1", "buf:i32:1"]),
    "lock_barrier": ("128", "128", ["buf:i32:1", "buf:i32:192"]),
    "hoist_restrict": ("128", "64", ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128"]),
    "hoist_bool": ("128", "64", ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128"]),
    "hoist_field": ("128", "64", ["buf:i32:2", "buf:i32:64:iota", "buf:i32:128"]),
    "ballot_all": ("64", "64", ["buf:i32:1", "buf:i32:64"]),
    "ballot_count": ("64", "64", ["buf:i32:1", "buf:i32:64"]),
    "count_above": ("64", "64", ["buf:i32:1", "buf:i32:64"]),
    "count_const": ("64", "64", ["buf:i32:1", "buf:i32:64"]),
    "publish_plain": ("128", "64", ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128"]),
    "publish_add": ("128", "64", ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128"]),
    "publish_wave": ("128", "64", ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128"]),
}
# the default run: one object per kernel
DEFAULT = {
    "lock_outside": "llvm22-gfx90a-w64-O2", "lock_sleep": "llvm19-gfx1100-w32-O0", "lock_done": "llvm22-gfx1200-w32-O2",
    "ticket_lock": "llvm19-gfx942-w64-O0", "lock_barrier": "llvm19-gfx90a-w64-O0",
    "hoist_restrict": "llvm22-gfx942-w64-O2", "hoist_bool": "llvm19-gfx1200-w64-O2",
    "hoist_field": "llvm22-gfx1100-w32-O2", "ballot_all": "llvm22-gfx1200-w32-O2",
    "ballot_count": "llvm19-gfx1100-w32-O0", "count_above": "llvm22-gfx90a-w64-O0",
    "count_const": "llvm19-gfx1200-w32-O2", "publish_plain": "llvm22-gfx1200-w32-O2",
    "publish_add": "llvm19-gfx1100-w64-O2", "publish_wave": "llvm22-gfx90a-w64-O2",
}


def line(kernel: str, text: str) -> int:
    """The source line of `text` in `kernel`'s body (1-based)."""
    start = next(n for n, s in enumerate(SRC) if f"void {kernel}(" in s)
    return next(n + 1 for n in range(start, len(SRC)) if text in SRC[n])


CAS = next(n + 1 for n, s in enumerate(SRC) if "__hip_atomic_compare_exchange_strong(" in s)  # the lock's CAS


def _class(kernel: str) -> str:
    """The sample's kernel classes (tests/bounded.py): the kernels one expectation below checks (EXPECT's
    _lock, _lock_barrier, _hoist, _ballot, _count, _publish)."""
    if kernel in ("lock_outside", "lock_sleep", "lock_done", "ticket_lock"):
        return "lock"
    return kernel if kernel == "lock_barrier" else kernel.split("_")[0]


def _cases():
    """Each kernel on its DEFAULT object, and the slow sample of the rest of the matrix."""
    cases = bounded.matrix([f"causehangs-{o}.co" for o in OBJECTS], list(KERNELS),
                           fast=lambda k, name: name == f"causehangs-{DEFAULT[k]}.co", classes=_class)
    return [pytest.param(c.kernel, c.obj[len("causehangs-"):-3], marks=[pytest.mark.slow] if c.slow else [],
                         id=f"{c.kernel}-{c.obj[len('causehangs-'):-3]}") for c in cases]


def _run(tmp_path, obj: str, kernel: str) -> tuple[str, str]:
    grid, block, args = KERNELS[kernel]
    core = str(tmp_path / f"{kernel}-{obj}.gpu")
    cmd = [sys.executable, "-m", "amddbg", "run", str(CH / f"causehangs-{obj}.co"), "--kernel", kernel, "--grid",
           grid, "--block", block, "--core", core, "--json", "--max-instructions", "300000"]
    for a in args:
        cmd += ["--arg", a]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert p.returncode in (0, 3, 4), p.stderr
    return json.loads(p.stdout)["status"], core


def _explain(core: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "amddbg", "explain", core, "--json"], capture_output=True, text=True,
                       timeout=600)
    out = json.loads(p.stdout)
    assert p.returncode == {"hang": 3, "no_hang": 0, "unknown": 0}.get(out["verdict"], 4), p.stderr
    return out


def _waves(f) -> list:
    return sorted((tuple(w["workgroup"]), w["wave_in_group"], w["lanes"]) for w in f["waves"])


def _lines(f) -> dict:
    out: dict = {}
    for loc in f["locations"]:
        assert loc["line"], loc  # no line 0, no missing line
        assert loc["file"].endswith("causehangs.hip"), loc
        out.setdefault(loc["role"], set()).add(loc["line"])
    return out


def _all_lanes(wave: int) -> str:
    return f"0-{wave - 1}"


def _lock_waves(wave: int, items: int = 64) -> list:
    """The waves of a lock kernel's spinning lanes: wave 0 without its lane 0 (the holder), the rest whole."""
    out = [((0, 0, 0), 0, f"1-{wave - 1}")]
    out += [((0, 0, 0), k, _all_lanes(wave)) for k in range(1, items // wave)]
    return out


def _one(exp: dict, kind: str, cause: str) -> dict:
    got = [f for f in exp["findings"] if f["kind"] == kind and f["cause"] == cause]
    assert len(got) == 1, [(f["kind"], f["cause"], f["summary"]) for f in exp["findings"]]
    return got[0]


@pytest.mark.parametrize("kernel,obj", _cases())
def test_cause_explained(tmp_path, kernel, obj):
    wave = int(obj.split("-w")[1][:2])
    opt = obj.rsplit("-", 1)[1]
    status, core = _run(tmp_path, obj, kernel)
    expect = EXPECT[kernel]
    expect(status, _explain(core) if status != "completed" or kernel.startswith(("ballot", "lock_done", "publish"))
           else None,
           wave=wave, opt=opt, obj=obj)


# ------------------------------------------------------------------------------------------- expectations


def _check_poll(f, kernel: str, opt: str, poll: int | None) -> None:
    """The polling load's lines: the CAS in the `cas` helper (or `poll`), and where -O2 inlined the helper, the
    kernel line that calls it (an entry with `inlined_from`)."""
    lines = _lines(f)
    assert set(lines) == {"polling load", "write that never lands"}, lines
    if poll is not None:
        assert lines["polling load"] == {poll}
        return
    call = line(kernel, "cas(lock")
    assert CAS in lines["polling load"] and lines["polling load"] <= {CAS, call}, lines
    if opt == "O2":
        assert call in lines["polling load"]
        assert any(x.get("inlined_from", {}).get("line") == CAS for x in f["locations"] if x["line"] == call)


def _lock(kernel: str, release: str, poll: int | None = None):
    def check(status, exp, *, wave, opt, obj):
        if kernel == "lock_done" and opt == "O0":  # the critical section stays inside the loop: no hang
            assert status == "completed" and exp["verdict"] == "no_hang"
            return
        assert status == "hang" and exp["verdict"] == "hang"
        f = _one(exp, "spin_forever", "writer_blocked")
        assert _waves(f) == _lock_waves(wave)
        _check_poll(f, kernel, opt, poll)
        assert _lines(f)["write that never lands"] == {line(kernel, release)}
        assert f["details"]["why"] == "same_wave"
        assert [(h["wave_in_group"], h["lanes"]) for h in f["details"]["holders"]] == [(0, "0")]
        assert "EXEC keeps that wave in the loop" in f["summary"]
    return check


def _lock_barrier(status, exp, *, wave, opt, obj):
    assert status == "hang" and exp["verdict"] == "hang"
    f = _one(exp, "spin_forever", "writer_blocked")
    assert _waves(f) == _lock_waves(wave)
    _check_poll(f, "lock_barrier", opt, None)
    assert _lines(f)["write that never lands"] == {line("lock_barrier", "STORE(lock, 0")}
    assert f["details"]["why"] == "same_wave"
    b = _one(exp, "barrier_deadlock", "missing_arrivals")
    assert line("lock_barrier", "__builtin_amdgcn_s_barrier") in _lines(b)["waiting at barrier"]
    at = sorted((w["wave_in_group"], w["lanes"]) for w in b["waves"] if (w["wave_in_group"] + 1) * wave > 64)
    assert at == [(k, _all_lanes(wave)) for k in range(64 // wave, 128 // wave)]
    assert "halted" not in b["summary"] and "spinning at" in b["summary"], b["summary"]


def _hoist(kernel: str, poll: str, write: str, variable: str):
    def check(status, exp, *, wave, opt, obj):
        spinners = [((1, 0, 0), k, _all_lanes(wave)) for k in range(64 // wave)]
        if status == "completed":  # -O0 on some targets: the plain load sees the write (the line was refreshed)
            assert opt == "O0" and exp is None
            return
        assert exp["verdict"] == "hang"
        if opt == "O0":  # a load every iteration, at wavefront scope: it may keep its stale line
            assert status == "hang"
            f = _one(exp, "spin_forever", "not_visible")
            assert _lines(f) == {"polling load": {line(kernel, poll)},
                                 "write that never becomes visible": {line(kernel, write)}}
        else:  # -O2 reads the flag once, before the loop
            assert status in ("hang", "limit")  # limit: the loop counts its spins, so the state never repeats
            f = _one(exp, "spin_forever", "poll_hoisted")
            lines = _lines(f)
            assert lines["polling load"] == {line(kernel, poll)}
            assert set(lines) == {"polling load", "loop that cannot exit"}
            d = f["details"]
            assert d["variable"] == variable and d["value"] == 1 and d["atomic"] is False
            assert d["needed_scope"] == "agent"
            assert d["fix"] == [f"acquire:agent@/amddbg/causehangs.hip:{line(kernel, poll)}"]
            assert "atomic load at agent scope" in f["summary"]
        assert _waves(f) == spinners
    return check


def _ballot(kernel: str):
    def check(status, exp, *, wave, opt, obj):
        if wave == 64:  # the condition holds on wave64: every wave ends
            assert status == "completed" and exp["verdict"] == "no_hang"
            return
        assert status == "hang" and exp["verdict"] == "hang"
        f = _one(exp, "spin_forever", "never_true")
        assert _waves(f) == [((0, 0, 0), 0, "0-31"), ((0, 0, 0), 1, "0-31")]
        lines = _lines(f)
        assert lines.get("polling load", {line(kernel, "while (")}) == {line(kernel, "while (")}
        d = f["details"]
        assert d["waits_for"] is None
        if d["condition"] == "final_value":  # the loop still compares: show the 64-bit all-ones it waits for
            assert d["value"] == 1 and lines["polling load"]
            if kernel == "ballot_all":
                assert "0xffffffffffffffff" in d["compared_with"], d
        else:  # the compiler folded the comparison: the loop has no exit
            assert d["condition"] == "constant" and "loop that cannot exit" in lines
    return check


def _count(kernel: str, value, waits_for: int):
    def check(status, exp, *, wave, opt, obj):
        assert status == "hang" and exp["verdict"] == "hang"
        f = _one(exp, "spin_forever", "never_true")
        assert _waves(f) == [((0, 0, 0), k, _all_lanes(wave)) for k in range(64 // wave)]
        assert _lines(f) == {"polling load": {line(kernel, "while (")}}
        d = f["details"]
        assert d["condition"] == "final_value" and d["value"] == value(wave) and d["waits_for"] == waits_for, d
        assert d["variable"] in ("count", None)
        assert f"waits for {waits_for}" in f["summary"]
    return check


def _publish(kernel: str, write: str):
    def check(status, exp, *, wave, opt, obj):
        if "gfx1100" in obj and kernel != "publish_wave":
            # GFX11 (WGP mode): a workgroup-scope acquire load is `glc`, which misses L0 and GL1 and reads L2, where
            # the other workgroup's store went: the publication works there
            assert status == "completed" and exp["verdict"] == "no_hang"
            return
        assert status == "hang" and exp["verdict"] == "hang"
        f = _one(exp, "spin_forever", "not_visible")
        assert _waves(f) == [((1, 0, 0), k, _all_lanes(wave)) for k in range(64 // wave)]
        assert _lines(f) == {"polling load": {line(kernel, "while (")},
                             "write that never becomes visible": {line(kernel, write)}}
        d = f["details"]
        if kernel == "publish_wave":  # singlethread in the source: gfx90a's bytes are also a workgroup load
            assert d["load_scope"] in ("wavefront", "workgroup")
            if "gfx90a" in obj:
                assert d["load_scope"] == "workgroup" and "workgroup scope or narrower" in f["summary"]
        else:
            assert d["load_scope"] == "workgroup"  # never narrower than the source's workgroup scope
        assert d["fix_verified"] is True
    return check


EXPECT = {
    "lock_outside": _lock("lock_outside", "STORE(lock, 0"),
    "lock_sleep": _lock("lock_sleep", "STORE(lock, 0"),
    "lock_done": _lock("lock_done", "STORE(lock, 0"),
    "ticket_lock": _lock("ticket_lock", "ADD(serving, 1)", poll=line("ticket_lock", "while (LOAD(serving")),
    "lock_barrier": _lock_barrier,
    "hoist_restrict": _hoist("hoist_restrict", "while (*flag", "*flag = 1", "flag"),
    "hoist_bool": _hoist("hoist_bool", "while (!*ready", "*ready = true", "ready"),
    "hoist_field": _hoist("hoist_field", "while (ctl->ready", "ctl->ready = 1", "ctl"),
    "ballot_all": _ballot("ballot_all"),
    "ballot_count": _ballot("ballot_count"),
    "count_above": _count("count_above", lambda wave: 64, 128),
    "count_const": _count("count_const", lambda wave: 2, 100),
    "publish_plain": _publish("publish_plain", "*(volatile int *)flag = 1"),
    "publish_add": _publish("publish_add", "__hip_atomic_fetch_add(flag, 1"),
    "publish_wave": _publish("publish_wave", "STORE(flag, 1, SINGLETHREAD)"),
}


def test_the_corpus_is_built_for_every_target():
    assert len(OBJECTS) == 26 and set(DEFAULT.values()) <= set(OBJECTS) and set(DEFAULT) == set(KERNELS)
    assert {o for o in OBJECTS if "gfx1250" in o} == {"llvm22-gfx1250-w32-O0", "llvm22-gfx1250-w32-O2"}
    # the sample's classes are the expectations' families
    assert all("_" + _class(k) == EXPECT[k].__qualname__.split(".")[0] for k in KERNELS)
