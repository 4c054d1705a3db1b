"""corefiles/explorehangs through the user's door (`amddbg run`, `amddbg run --explore`, `amddbg explain`).

- Spin loops that count (atomic, volatile, sleeping, back-off polls of a flag nothing writes) hang: the state
  never repeats, and the loop proof (amddbg/emu/loopproof.py) shows the exit condition can never change; the
  twin with a real timeout completes, and with a timeout too long to reach ends at the instruction limit, never
  as a hang. explain on the hang's core gives spin_forever at the polling line.
- Waves that return before a barrier, and a barrier in a divergent branch, complete (an ended wave drops out of
  the workgroup barrier); a core taken part-way is explained no_hang.
- A publication at workgroup scope hangs under some seeds only: `--explore` reports each outcome with its seeds,
  writes the first hang's core, exits 3; explain on that core says the hang depends on the schedule.
Four objects (both compilers, every target, -O0 and -O2) run every check by default; the other twenty objects are
marked slow, and CI runs their cover (tests/bounded.py: the cases that, with the four, run every kernel, target,
compiler and level somewhere, rotating; AMDDBG_SLOW_LIMIT=0 runs all 24 objects).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.corpus_cli import amddbg as _amddbg
from tests.corpus_cli import matrix_params
from tests.corpus_cli import wave_of as _wave

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "corefiles" / "explorehangs"
SRC = (DIR / "explorehangs.hip").read_text().splitlines()
OBJECTS = sorted(p.name for p in DIR.glob("explorehangs-*.co"))
QUICK = {"explorehangs-llvm22-gfx90a-w64-O2.co", "explorehangs-llvm19-gfx1100-w32-O0.co",
         "explorehangs-llvm22-gfx1200-w64-O0.co", "explorehangs-llvm19-gfx942-w64-O2.co"}


def _params(kernels=None) -> list:
    """The objects (or (kernel, object) pairs) a check runs on: QUICK, and the slow sample of the others."""
    return matrix_params(OBJECTS, kernels, fast=QUICK)


def _line(text: str, after: str | None = None) -> int:
    """The 1-based line of the source that contains `text` (after the line containing `after`)."""
    start = next(i for i, s in enumerate(SRC) if after in s) if after else 0
    return next(i + 1 for i in range(start, len(SRC)) if text in SRC[i])


# `amddbg run --json` output by command line: a run is deterministic (same object, arguments and options, same
# document), so a run two tests need (a kernel's full run, then a core taken part-way) is made once per session
_RUNS: dict[tuple, str] = {}


def _run(obj: str, kernel: str, grid: int, block: int, *args, extra=(), ok=(0,)) -> dict:
    cmd = ["run", DIR / obj, "--kernel", kernel, "--grid", grid, "--block", block, "--json"]
    for a in args:
        cmd += ["--arg", a]
    key = tuple(map(str, [*cmd, *extra, ok]))
    if "--core" in key:  # writes a file: always run
        return json.loads(_amddbg(*cmd, *extra, ok=ok).stdout)
    if key not in _RUNS:
        _RUNS[key] = _amddbg(*cmd, *extra, ok=ok).stdout
    return json.loads(_RUNS[key])


COUNTERS = {  # kernel -> (args, the polling line's text, after)
    "count_atomic": (["buf:i32:1", "buf:i32:128"], "while (__hip_atomic_load(go", "void count_atomic"),
    "count_volatile": (["buf:i32:1", "buf:i64:128"], "while (*go == 0)", "void count_volatile"),
    "count_sleep": (["buf:i32:1", "buf:i32:128"], "while (__hip_atomic_load(go", "void count_sleep"),
    "count_backoff": (["buf:i32:1", "buf:i32:128"], "while (__hip_atomic_load(go", "void count_backoff"),
}


@pytest.mark.parametrize("kernel,obj", _params(sorted(COUNTERS)))
def test_counting_spin_hangs(obj, kernel):
    """Every wave counts while it polls: run proves the hang (the state never repeats) well before the limit."""
    args, _text, _after = COUNTERS[kernel]
    doc = _run(obj, kernel, 128, 64, *args)
    assert doc["status"] == "hang", doc["reason"]
    assert "loop forever" in doc["reason"] and "exit condition" in doc["reason"]
    assert doc["wave_instructions"] < 200_000
    assert all(w["state"] in ("ready", "sleeping", "at waitcnt") for w in doc["waves"])
    assert len(doc["waves"]) == 128 // _wave(obj)


@pytest.mark.parametrize("obj", _params())
def test_timeout_twin_is_no_invented_hang(obj):
    """The same poll with a real timeout: completes with a small limit; with one too large to reach it ends at
    the instruction limit, never as a proven hang (the counter is in the exit condition)."""
    small = _run(obj, "count_timeout", 128, 64, "buf:i32:1", "buf:i32:128", "i32:40")
    assert small["status"] == "completed"
    assert small["buffers"][1]["values"] == [40] * 64 + [0] * 64  # out[threadIdx.x]: both workgroups write 0..63
    big = _run(obj, "count_timeout", 128, 64, "buf:i32:1", "buf:i32:128", "i32:100000000",
               extra=["--max-instructions", "150000"])
    assert big["status"] == "limit", big["reason"]


@pytest.mark.parametrize("obj", _params())
def test_heartbeat_spin_hangs(obj):
    """The poll stores its count to global memory every iteration: the same word, read by no one: still a hang."""
    doc = _run(obj, "count_heartbeat", 128, 64, "buf:i32:1", "buf:i32:64")
    assert doc["status"] == "hang" and "loop forever" in doc["reason"], doc["reason"]
    assert 0 < min(doc["buffers"][1]["values"])  # every work-item's heartbeat was written


@pytest.mark.parametrize("obj", _params())
def test_late_writer_is_no_invented_hang(obj):
    """The pollers count while one wave counts to n before it sets the flag: the proof must not call it a hang
    (the writer's loop makes progress); the run completes."""
    wv = _wave(obj)
    doc = _run(obj, "late_writer", 256, 128, "buf:i32:1", "buf:i32:256", "i32:2000")
    assert doc["status"] == "completed", doc["reason"]
    acc = [sum(i ^ t for i in range(2000)) for t in range(wv)]
    assert doc["buffers"][1]["values"][:wv] == acc


@pytest.mark.parametrize("obj", _params())
def test_clock_timeout_is_no_invented_hang(obj):
    """A poll that gives up on the clock reads the clock in its exit condition: never a proven hang, and it times
    out: gfx9's s_memtime and the GFX11/12 cycle counter (s_getreg SHADER_CYCLES, SHADER_CYCLES_LO/HI) follow the
    emulated clock (the counter read 0 before, so a deadline poll there never ended)."""
    doc = _run(obj, "clock_timeout", 128, 64, "buf:i32:1", "buf:i32:64", "u64:100000",
               extra=["--max-instructions", "400000"])
    assert doc["status"] == "completed" and doc["buffers"][1]["values"] == [1] * 64, doc["reason"]


@pytest.mark.parametrize("obj", sorted(QUICK))
def test_counting_spin_core_is_spin_forever(obj, tmp_path):
    core = tmp_path / "count.gpu"
    _run(obj, "count_atomic", 128, 64, "buf:i32:1", "buf:i32:128", extra=["--core", core])
    r = _amddbg("explain", core, "--json", ok=(3,))
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "hang"
    spins = [f for f in doc["findings"] if f["kind"] == "spin_forever"]
    assert spins and spins[0]["cause"] == "no_writer", doc["findings"]
    assert all(f["cause"] == "no_writer" for f in spins)
    polled = {(w["workgroup"][0], w["wave_in_group"]) for f in spins for w in f["waves"]}
    assert polled and polled <= {(g, i) for g in range(2) for i in range(64 // _wave(obj))}
    line = _line("while (__hip_atomic_load(go", "void count_atomic")
    assert any(loc["role"] == "polling load" and loc["line"] == line for f in spins for loc in f["locations"])


LEAVERS = {  # kernel -> (grid, block(wave) , args(wave), what out holds)
    "early_return": lambda wv: (512, 256, ["buf:i32:512"]),
    "early_return_late": lambda wv: (256, 256, ["buf:i32:256", "i32:5", f"u32:{wv}"]),
    "divergent_barrier": lambda wv: (256, 256, ["buf:i32:256", "u32:32"]),
    "divergent_barrier_lanes": lambda wv: (256, 256, ["buf:i32:256"]),
}


def _expected(kernel: str, wv: int) -> list[int]:
    if kernel == "early_return":
        out = [0] * 512
        for g in range(2):
            for t in range(wv):
                out[g * wv + t] = wv - 1 - t
        return out
    if kernel == "early_return_late":
        return [sum(t * i for i in range(5)) + (1 if t < wv else 0) for t in range(256)]
    if kernel == "divergent_barrier":
        return [31 - t if t < 32 else -1 for t in range(256)]
    return [2 * (t ^ 1) if t & 1 else 0 for t in range(256)]


@pytest.mark.parametrize("kernel,obj", _params(sorted(LEAVERS)))
def test_waves_leaving_before_a_barrier_complete(obj, kernel):
    wv = _wave(obj)
    grid, block, args = LEAVERS[kernel](wv)
    doc = _run(obj, kernel, grid, block, *args)
    assert doc["status"] == "completed", doc["reason"]
    assert doc["buffers"][0]["values"] == _expected(kernel, wv)


@pytest.mark.parametrize("obj", sorted(QUICK))
@pytest.mark.parametrize("kernel", sorted(LEAVERS))
def test_core_taken_midway_is_no_hang(obj, kernel, tmp_path):
    """A core written part-way (some waves ended, others at the barrier or before it) is not a hang."""
    wv = _wave(obj)
    grid, block, args = LEAVERS[kernel](wv)
    full = _run(obj, kernel, grid, block, *args)["wave_instructions"]
    core = tmp_path / "mid.gpu"
    doc = _run(obj, kernel, grid, block, *args, extra=["--max-instructions", full * 2 // 3, "--core", core])
    assert doc["status"] == "limit"
    r = _amddbg("explain", core, "--json", ok=(0,))
    ex = json.loads(r.stdout)
    assert ex["verdict"] == "no_hang", ex
    assert ex["findings"][0]["kind"] == "no_hang" and ex["findings"][0]["cause"] == "slow_not_stuck"


def _racy(obj: str, extra=(), ok=(0,)) -> subprocess.CompletedProcess:
    wv = _wave(obj)
    return _amddbg("run", DIR / obj, "--kernel", "racy_publish", "--grid", 2 * wv, "--block", wv, "--arg",
                   "buf:i32:1", "--arg", f"buf:i32:{2 * wv}", "--arg", "i32:0", *extra, ok=ok)


@pytest.mark.parametrize("obj", _params())
def test_racy_publication_depends_on_the_seed(obj, tmp_path):
    """Seed 0 completes (the writer runs first), seed 3 launches the reader first: it caches the old line and
    hangs. --explore 8 reports both outcomes with their seeds, writes the first hang's core, exits 3."""
    assert json.loads(_racy(obj, ["--json"]).stdout)["status"] == "completed"
    assert json.loads(_racy(obj, ["--json", "--seed", "3"]).stdout)["status"] == "hang"
    core = tmp_path / "racy.gpu"
    doc = json.loads(_racy(obj, ["--explore", "8", "--json", "--core", core], ok=(3,)).stdout)
    outcomes = {o["status"]: o["seeds"] for o in doc["outcomes"]}
    assert set(outcomes) == {"completed", "hang"}
    assert 0 in outcomes["completed"] and 3 in outcomes["hang"]
    assert sorted(outcomes["completed"] + outcomes["hang"]) == list(range(8))
    assert doc["first_hang"] == min(outcomes["hang"]) and core.exists()
    text = _racy(obj, ["--explore", "8"], ok=(3,)).stdout
    assert re.search(rf"completed: {len(outcomes['completed'])} seeds?, hang: {len(outcomes['hang'])} seeds? "
                     rf"\({', '.join(map(str, outcomes['hang']))}\)", text), text
    ex = json.loads(_amddbg("explain", core, "--json", ok=(3,)).stdout)
    assert ex["verdict"] == "hang" and ex["replay"]["schedule_dependent"] is True
    f = next(f for f in ex["findings"] if f["kind"] == "spin_forever")
    assert f["cause"] == "not_visible" and f["details"]["schedule_dependent"] is True
    assert {loc["role"]: loc["line"] for loc in f["locations"]} == {
        "polling load": _line("while (__hip_atomic_load(flag", "void racy_publish"),
        "write that never becomes visible": _line("__hip_atomic_store(flag, 1", "void racy_publish")}
    assert "depends on the schedule" in _amddbg("explain", core, ok=(3,)).stdout


def test_explore_errors_and_completed_exit():
    obj = "explorehangs-llvm22-gfx90a-w64-O2.co"
    r = _racy(obj, ["--explore", "0"], ok=(2,))
    assert r.stderr.startswith("amddbg: error:") and "--explore 0" in r.stderr
    r = _racy(obj, ["--explore", "2", "--seed", "3"], ok=(2,))
    assert "--explore" in r.stderr
    doc = _run(obj, "count_timeout", 128, 64, "buf:i32:1", "buf:i32:128", "i32:10", extra=["--explore", "3"])
    assert doc["outcomes"] == [{"status": "completed", "seeds": [0, 1, 2], "reason": "every wave ended"}]


def test_run_has_a_default_limit():
    """Without --max-instructions a run is bounded (amddbg.cli.run.DEFAULT_MAX_INSTRUCTIONS), documented in
    --help; --max-instructions 0 removes the bound, a negative one is an error."""
    from amddbg.cli.run import DEFAULT_MAX_INSTRUCTIONS

    assert DEFAULT_MAX_INSTRUCTIONS >= 10_000_000
    assert f"{DEFAULT_MAX_INSTRUCTIONS:,}" in _amddbg("run", "--help").stdout.replace("\n", " ").replace("  ", " ")
    r = _amddbg("run", DIR / "explorehangs-llvm22-gfx90a-w64-O2.co", "--kernel", "count_timeout", "--grid", 64,
                "--block", 64, "--arg", "buf:i32:1", "--arg", "buf:i32:64", "--arg", "i32:5",
                "--max-instructions", "-1", ok=(2,))
    assert "--max-instructions" in r.stderr


@pytest.mark.parametrize("obj", _params())
def test_explore_prefilled_stale_line(obj):
    """--explore's cache choices include lines pre-filled in every CU's caches (seeds 4, 8, ...): racy_publish's
    reader holds the flag's old line whatever the schedule, so seed 4 hangs, and it is the pre-filled line that does
    it (the seed's schedule completes alone, and with its delayed stores alone); a correct publication (late_writer:
    agent-scope acquire polls) completes under every choice."""
    from amddbg.codeobj import CodeObject
    from amddbg.emu.args import parse_arg
    from amddbg.emu.explore import NONE, Visibility, explore, prefill_lines
    from amddbg.emu.machine import Machine

    wv = _wave(obj)
    doc = json.loads(_racy(obj, ["--explore", "8", "--json"], ok=(3,)).stdout)
    run4 = next(r for r in doc["runs"] if r["seed"] == 4)
    assert run4["visibility"].startswith("prefill") and run4["status"] == "hang", run4
    assert json.loads(_racy(obj, ["--json", "--seed", "4"]).stdout)["status"] == "completed"
    co = CodeObject.from_path(DIR / obj)
    args = [parse_arg(a) for a in ("buf:i32:1", f"buf:i32:{2 * wv}", "i32:0")]

    def make(seed, _vis):
        m = Machine(co, seed=seed)
        m.dispatch("racy_publish", (2 * wv, 1, 1), (wv, 1, 1), args)
        return m

    lines = prefill_lines(make(0, NONE))
    assert lines and all(arg in (0, 1) for _g, arg, _off in lines)
    delayed = explore(make, seeds=[4], visibilities=[Visibility(delay=True, drain=0.25, seed=4)],
                      max_instructions=2_000_000)[0]
    assert delayed.result.status == "completed"
    text = _racy(obj, ["--explore", "8"], ok=(3,)).stdout
    assert "pre-fill lines" in text and "(caches: " not in text.split("\n")[1]  # seed 0: the default caches
    ok = _run(obj, "late_writer", 256, 128, "buf:i32:1", "buf:i32:256", "i32:2000", extra=["--explore", "8"])
    assert [o["status"] for o in ok["outcomes"]] == ["completed"], ok["outcomes"]
    assert any(r["visibility"].startswith("prefill") for r in ok["runs"])
