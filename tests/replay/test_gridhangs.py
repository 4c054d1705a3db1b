"""Hand-made grid barriers, cross-workgroup flags and barrier deadlocks whose missing waves spin
(corefiles/gridhangs/gridhangs.hip, clang-19 and clang-22, gfx90a, gfx942, gfx1100 and gfx1200 wave32/wave64, -O0 and
-O2), through the user's door: `amddbg run ... --core` writes the core of each kernel's hang, `amddbg explain --json`
must say why, and the `--assume` fix it prints must end the hang.

Expected lines come from markers in the source (@poll, @loop, @write, @maybe, @barrier, @helper:NAME), the
expected waves from the core (every wave not waiting at a barrier is stuck in the poll: the run proved the hang).
Four objects run every kernel by default (every target, both compilers, -O0 and -O2); the other twenty are marked
slow, and CI runs their cover (tests/bounded.py: the few cases that, with the four, run every kernel class, target,
compiler and level somewhere, rotating; AMDDBG_SLOW_LIMIT=0 runs all of them).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import amddbg
from amddbg.session.threads import WaveState
from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
GRID = ROOT / "corefiles" / "gridhangs"
SOURCE = GRID / "gridhangs.hip"
OBJECTS = sorted(GRID.glob("gridhangs-llvm*.co"))
DEFAULT = {"gridhangs-llvm22-gfx90a-w64-O2.co", "gridhangs-llvm19-gfx942-w64-O0.co",
           "gridhangs-llvm19-gfx1100-w32-O2.co", "gridhangs-llvm22-gfx1200-w64-O0.co"}

# kernel -> (arguments, what the hang is): "not_visible" (a poll that cannot see another workgroup's write; grid
# barriers also leave their other waves at __syncthreads()), "cycle" (a barrier deadlock whose missing waves spin on
# a flag the waiter writes after the barrier), "completes" (the fixed twin)
COUNT = ["buf:i32:1", "buf:i32:512", "i32:4"]
FLAG = ["buf:i32:1", "buf:i32:64:iota", "buf:i32:512", "i32:3"]
KERNELS = {
    "gb_fence_block": (COUNT, "not_visible"),
    "gb_fence_block_unsigned": (["buf:u32:1", "buf:i32:512", "u32:4"], "not_visible"),
    "gb_relaxed_sleep": (COUNT, "not_visible"),
    "gb_generation": (["buf:i32:1", "buf:i32:1", "buf:i32:512", "i32:4"], "not_visible"),
    "gb_sense": (["buf:i32:1", "buf:i32:1", "buf:i32:512", "i32:4"], "not_visible"),
    "gb_volatile": (COUNT, "completes"),
    "xwg_relaxed_signed": (FLAG, "not_visible"),
    "xwg_acquire_unsigned": (["buf:u32:1", "buf:i32:64:iota", "buf:i32:512", "u32:3"], "not_visible"),
    "xwg_acquire_sleep": (FLAG, "not_visible"),
    "bd_global_flag": (["buf:i32:1", "buf:i32:512"], "cycle"),
    "bd_volatile_flag": (["buf:i32:1", "buf:i32:512"], "cycle"),
    "bd_lds_count": (["buf:i32:512", "i32:5"], "cycle"),
}


# polls by an atomic load at workgroup scope: on GFX11 that load has `glc`, which misses both the L0 and the GL1
# (LLVM's AMDGPUUsage cache-control rows; docs/emulator.md), so it sees the other workgroups' writes: no hang there
ATOMIC_POLL = {"gb_relaxed_sleep", "gb_generation", "xwg_relaxed_signed", "xwg_acquire_unsigned", "xwg_acquire_sleep"}


def _completes(obj: Path, kernel: str) -> bool:
    return KERNELS[kernel][1] == "completes" or ("-gfx11" in obj.name and kernel in ATOMIC_POLL)


def _class(kernel: str) -> str:
    """The sample's kernel classes (tests/bounded.py): grid barriers that poll with a plain load, those that poll
    with an atomic load (GFX11 sees the write there), cross-workgroup flags, barrier deadlocks, the fixed twin."""
    if kernel.startswith("gb_") and kernel != "gb_volatile":
        return "gb_atomic" if kernel in ATOMIC_POLL else "gb_plain"
    return kernel.split("_")[0] if kernel != "gb_volatile" else kernel


def _cases(kernels: list[str]) -> list:
    """(kernel, object): every kernel on the DEFAULT objects, and the slow sample of the rest."""
    cases = bounded.matrix(OBJECTS, kernels, fast=DEFAULT, classes=_class)
    return bounded.params(cases, ids=lambda c: f"{c.obj.stem[len('gridhangs-'):]}-{c.kernel}")


def _markers() -> dict:
    """kernel -> {marker: {lines}}, and "helper:NAME" -> line, read from the source."""
    out: dict = {}
    kernel = None
    for n, text in enumerate(SOURCE.read_text().splitlines(), 1):
        m = re.match(r"__global__ void (\w+)\(", text)
        if m:
            kernel = m.group(1)
        for mark in re.findall(r"@([\w:]+)", text.split("//", 1)[1] if "//" in text else ""):
            if mark.startswith("helper:"):
                out[mark] = n
            elif kernel is not None:
                out.setdefault(kernel, {}).setdefault(mark, set()).add(n)
                if mark in ("write", "maybe") and "atomic_add(" in text:
                    out[kernel].setdefault("via_helper", set()).add("helper:atomic_add")
    return out


MARKS = _markers()


def _amddbg(*argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, argv)], capture_output=True, text=True)


def _run(tmp_path, obj: Path, kernel: str, *extra) -> tuple[str, Path]:
    args, _ = KERNELS[kernel]
    core = tmp_path / f"{kernel}.gpu"
    cmd = ["run", obj, "--kernel", kernel, "--grid", "512", "--block", "128", "--json", "--core", core, *extra]
    for a in args:
        cmd += ["--arg", a]
    p = _amddbg(*cmd)
    assert p.returncode in (0, 3), p.stderr
    return json.loads(p.stdout)["status"], core


def _explain(core: Path, *assume) -> tuple[int, dict]:
    argv = ["explain", core, "--json"]
    for a in assume:
        argv += ["--assume", a]
    p = _amddbg(*argv)
    assert "Traceback" not in p.stderr, p.stderr
    return p.returncode, json.loads(p.stdout)


def _lines(f: dict, role: str) -> set:
    return {loc["line"] for loc in f["locations"] if loc["role"] == role}


def _in_source(f: dict) -> None:
    for loc in f["locations"]:
        assert loc["line"], loc  # no line 0 reaches a user
        assert loc["file"] is None or loc["file"].endswith("gridhangs.hip"), loc


def _stuck_waves(core: Path) -> tuple[set, set]:
    """(waves stuck in the poll, waves at a barrier) of the core, as (workgroup, wave_in_group)."""
    prog = amddbg.open(str(core))
    try:
        at = {(tuple(t.workgroup), t.wave_in_group) for t in prog.waves if t.state is WaveState.AT_BARRIER}
        return {(tuple(t.workgroup), t.wave_in_group) for t in prog.waves} - at, at
    finally:
        prog.close()


def _waves(f: dict) -> set:
    return {(tuple(w["workgroup"]), w["wave_in_group"]) for w in f["waves"]}


def test_the_kernels_are_built_for_every_target():
    assert len(OBJECTS) == 24
    assert DEFAULT <= {p.name for p in OBJECTS}
    assert {re.search(r"gfx\w+?(?=-)", n).group() for n in DEFAULT} == {"gfx90a", "gfx942", "gfx1100", "gfx1200"}
    assert {n[-5:-3] for n in DEFAULT} == {"O0", "O2"}
    assert {re.search(r"llvm(\d+)", n).group(1) for n in DEFAULT} == {"19", "22"}


@pytest.mark.parametrize("kernel,obj", _cases(sorted(k for k, (_, what) in KERNELS.items() if what == "not_visible")))
def test_a_poll_that_cannot_see_the_write(tmp_path, obj, kernel):
    """A grid barrier or cross-workgroup flag read at workgroup scope (or with a plain load): `spin_forever` /
    `not_visible` for exactly the waves stuck in the poll, at the poll's line and the write's, the missing scope
    named, and the fix it prints verified by replay and by `--assume` through the CLI."""
    if _completes(obj, kernel):
        _slow_not_stuck(tmp_path, obj, kernel)
        return
    status, core = _run(tmp_path, obj, kernel)
    assert status == "hang"
    code, doc = _explain(core)
    assert code == 3 and doc["verdict"] == "hang", doc
    marks = MARKS[kernel]
    nv = [f for f in doc["findings"] if f["kind"] == "spin_forever"]
    assert [f["cause"] for f in nv] == ["not_visible"], doc["findings"]
    f = nv[0]
    _in_source(f)
    stuck, at_barrier = _stuck_waves(core)
    assert _waves(f) == stuck
    assert _lines(f, "polling load") == marks["poll"]
    writes = _lines(f, "write that never becomes visible")
    allowed = marks["write"] | marks.get("maybe", set()) | {MARKS[h] for h in marks.get("via_helper", ())}
    assert writes <= allowed, (writes, allowed)
    # at -O0 every pointer comes from the stack: of several stores that may be the writer (the sense-reversal and
    # generation barriers reset the count too; out[tid()] before the flag) the one through the polling load's own
    # stack slot is named (analysis.likely_writers, slicing.same_location), never none and never a guess
    assert writes, (writes, allowed)
    d = f["details"]
    assert d["load_scope"] in ("wavefront", "workgroup") and d["needed_scope"] == "agent"
    assert d["fix_verified"] is True
    poll = next(iter(marks["poll"]))
    assert f"acquire:agent@/amddbg/gridhangs.hip:{poll}" in d["fix"]
    # a grid barrier's other waves wait at its __syncthreads() for the wave that polls
    bars = [b for b in doc["findings"] if b["kind"] == "barrier_deadlock"]
    if at_barrier:
        assert len(bars) == 1 and bars[0]["cause"] == "missing_arrivals"
        assert _waves(bars[0]) == stuck | at_barrier
        assert _lines(bars[0], "waiting at barrier") <= marks["barrier"] | {MARKS["helper:barrier"]}
        # (at -O0 a wave may be caught inside the __threadfence_block() its loop calls)
        assert _lines(bars[0], "missing wave") <= marks["poll"] | marks.get("loop", set()) | {MARKS["helper:fence"]}
    else:
        assert not bars
    code, fixed = _explain(core, *d["fix"])
    assert code == 0 and fixed["verdict"] == "no_hang", fixed
    assert fixed["findings"][0]["cause"] == "assumption_fixes_it"


@pytest.mark.parametrize("kernel,obj", _cases(sorted(k for k, (_, what) in KERNELS.items() if what == "cycle")))
def test_a_barrier_deadlock_whose_missing_waves_spin(tmp_path, obj, kernel):
    """The waiter writes the flag only after the barrier the spinners never reach: one barrier finding states the
    cycle, with the barrier's, the poll's and the write's lines, for every wave of every workgroup."""
    status, core = _run(tmp_path, obj, kernel)
    assert status == "hang"
    code, doc = _explain(core)
    assert code == 3 and doc["verdict"] == "hang", doc
    bars = [f for f in doc["findings"] if f["kind"] == "barrier_deadlock"]
    assert [f["cause"] for f in bars] == ["missing_arrivals"], doc["findings"]
    f = bars[0]
    # (the spin finding of the same waves may stay, for its polled value; nothing else)
    assert all((g["kind"], g["cause"]) == ("spin_forever", "writer_blocked") and _waves(g) <= _waves(f)
               for g in doc["findings"] if g is not f), doc["findings"]
    _in_source(f)
    marks = MARKS[kernel]
    stuck, at_barrier = _stuck_waves(core)
    assert _waves(f) == stuck | at_barrier and stuck and at_barrier
    assert f["details"]["cycle"] is True and "cycle" in f["summary"]
    assert _lines(f, "waiting at barrier") <= marks["barrier"] | {MARKS["helper:barrier"]}
    assert _lines(f, "waiting at barrier")
    assert _lines(f, "polling load") == marks["poll"]
    assert _lines(f, "write that never lands") == marks["write"]
    assert _lines(f, "missing wave") <= marks["poll"] | marks.get("loop", set())


@pytest.mark.parametrize("kernel,obj", _cases(["gb_volatile"]))
def test_the_fixed_twin_is_slow_not_stuck(tmp_path, obj, kernel):
    """A volatile poll goes past the CU's cache on every target: the run completes, and a core taken while the
    waves still poll is `no_hang` (no invented not_visible)."""
    _slow_not_stuck(tmp_path, obj, kernel)


def _slow_not_stuck(tmp_path, obj: Path, kernel: str) -> None:
    status, _ = _run(tmp_path, obj, kernel)
    assert status == "completed"
    status, core = _run(tmp_path, obj, kernel, "--max-instructions", "400")
    assert status == "limit"
    code, doc = _explain(core)
    assert code == 0 and doc["verdict"] == "no_hang", doc
    assert [f["cause"] for f in doc["findings"]] == ["slow_not_stuck"]
