"""GFX12.5 workgroup clusters, cluster and named barriers and async copies to LDS in real clang-22 code
(corefiles/gfx1250/clusters.hip, -O0 and -O2), through `amddbg run` as a user runs them.

Expectations: the cluster ids are what the kernel computes from its own workgroup ids and the metadata's
`.cluster_dims` (llvm-readelf-22 shows them); sums and copies are Python's; the buggy kernels (a cluster barrier one
workgroup of each cluster never reaches, a named barrier short of arrivals) hang, and the async copy read before its
`s_wait_asynccnt` reads the marker written before the copy and traps, every time (the emulator lands async copies
when the issuing wave waits for them: amddbg/emu/semantics/asynclds.py).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GFX1250 = ROOT / "corefiles" / "gfx1250"
OPTS = ["O0", "O2"]
SOURCE = (GFX1250 / "clusters.hip").read_text().splitlines()


def line_of(text: str) -> int:
    """The 1-based line of the only source line containing `text`."""
    hits = [i + 1 for i, line in enumerate(SOURCE) if text in line]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def obj(opt: str) -> Path:
    return GFX1250 / f"clusters-llvm22-gfx1250-w32-{opt}.co"


def run(co: Path, kernel: str, grid: str, block: str, *args: str, extra: tuple = ()) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "amddbg", "run", str(co), "--kernel", kernel, "--grid", grid, "--block", block,
           "--json", "--max-instructions", "200000", *extra]
    for a in args:
        cmd += ["--arg", a]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def run_json(*a, **k) -> dict:
    r = run(*a, **k)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# The buggy kernels' runs: each test of a hang or a race reads the --json document, and its twin explains the core
# the same run wrote (one `amddbg run --json --core` per kernel and level, not one per test).
BUGGY = {"cluster_skip": ("256", "64", "buf:i32:256"), "named_short": ("128", "128", "buf:i32:128"),
         "async_race": ("128", "128", "buf:i32:128:iota", "buf:i32:128")}


@pytest.fixture(scope="module")
def buggy_run(tmp_path_factory):
    """(opt, kernel) -> (the run's --json document, the core it wrote), each run once per module."""
    done: dict = {}

    def get(opt: str, kernel: str) -> tuple[dict, Path]:
        if (opt, kernel) not in done:
            core = tmp_path_factory.mktemp("buggy") / f"{kernel}-{opt}.gpu"
            grid, block, *args = BUGGY[kernel]
            r = run(obj(opt), kernel, grid, block, *args, extra=("--core", str(core)))
            assert r.returncode == 0 and core.exists(), r.stderr
            done[opt, kernel] = json.loads(r.stdout), core
        return done[opt, kernel]

    return get


def test_metadata_has_the_cluster_shapes():
    notes = subprocess.run(["llvm-readelf-22", "--notes", str(obj("O2"))], capture_output=True, text=True,
                           check=True).stdout
    shapes = {m.group(2): tuple(int(x) for x in re.findall(r"- (\d+)", m.group(1)))
              for m in re.finditer(r"\.cluster_dims:\s*((?:\s*- \d+){3}).*?\.name:\s+(\w+)", notes, re.S)}
    assert shapes == {"_Z11cluster_idsPj": (2, 2, 1), "_Z14cluster_reducePKiPiS1_": (4, 1, 1),
                      "_Z12cluster_skipPi": (2, 1, 1)}, shapes  # the others have none


@pytest.mark.parametrize("opt", OPTS)
def test_cluster_ids(opt):
    """4 x 4 workgroups in 2 x 2 clusters: every id builtin agrees with the workgroup's own position."""
    d = run_json(obj(opt), "cluster_ids", "128,4", "32", "buf:u32:64")
    assert d["status"] == "completed", d["reason"]
    v = d["buffers"][0]["values"]
    for gy in range(4):
        for gx in range(4):
            g = gx + 4 * gy
            flat = gx % 2 + 2 * (gy % 2)
            assert v[4 * g:4 * g + 4] == [gx | gy << 8, gx // 2 | (gy // 2) << 8, gx % 2 | (gy % 2) << 8,
                                          flat | 3 << 8 | 2 << 16 | 2 << 24], (gx, gy)


@pytest.mark.parametrize("opt", OPTS)
def test_cluster_shape_at_launch(opt):
    """A kernel without __cluster_dims__ takes --cluster (its workgroup id is rebuilt from the cluster registers
    when HW_REG_IB_STS2 says the dispatch is clustered); without it the dispatch is not clustered."""
    plain = run_json(obj(opt), "launch_ids", "256", "32", "buf:u32:8")
    assert plain["buffers"][0]["values"] == [g | g << 16 for g in range(8)]
    clustered = run_json(obj(opt), "launch_ids", "256", "32", "buf:u32:8", extra=("--cluster", "2"))
    assert clustered["buffers"][0]["values"] == [g | (g // 2) << 16 for g in range(8)]


@pytest.mark.parametrize("kernel,grid,extra,message", [
    ("cluster_ids", "128,4", ("--cluster", "4"), "the kernel's metadata fixes clusters of 2,2,1"),
    ("launch_ids", "256,4", ("--cluster", "3"), "the grid has 8 workgroups in x, not a multiple of the cluster's 3"),
    ("launch_ids", "256,4", ("--cluster", "17"), "each dimension must be 1..16"),
    ("launch_ids", "384,8", ("--cluster", "4,8"), "has 32 workgroups; at most 16"),
    ("launch_ids", "256", ("--cluster", "2,x"), "--cluster '2,x': expected X[,Y[,Z]] positive integers"),
])
def test_bad_cluster_shapes_are_user_errors(kernel, grid, extra, message):
    r = run(obj("O2"), kernel, grid, "32", "buf:u32:128", extra=extra)
    assert r.returncode == 2 and r.stderr.startswith("amddbg: error:") and message in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_the_largest_cluster_has_16_workgroups():
    r = run(obj("O2"), "launch_ids", "128,4", "32", "buf:u32:64", extra=("--cluster", "4,4"))
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "completed", r.stderr


def test_clusters_need_gfx1250():
    other = ROOT / "corefiles" / "oracle" / "oracle-llvm22-gfx1200-w32-O2.co"
    r = run(other, "bitops", "64", "32", "buf:u32:64", "buf:u32:64", extra=("--cluster", "2"))
    assert r.returncode == 2 and "gfx1200 has no workgroup clusters" in r.stderr, r.stderr


@pytest.mark.parametrize("opt", OPTS)
def test_cluster_barrier_orders_the_clusters_workgroups(opt):
    d = run_json(obj(opt), "cluster_reduce", "512", "64", "buf:i32:512:iota", "buf:i32:8", "buf:i32:2")
    assert d["status"] == "completed", d["reason"]
    assert d["buffers"][2]["values"] == [sum(range(256)), sum(range(256, 512))]


@pytest.mark.parametrize("opt", OPTS)
def test_cluster_barrier_a_workgroup_never_reaches_hangs(opt, buggy_run):
    d, _core = buggy_run(opt, "cluster_skip")
    assert d["status"] == "hang", d["reason"]
    assert "cluster (0, 0, 0): 4 wave(s) wait on barrier -3, 1 of 2 workgroup(s) arrived, not (1, 0, 0)" in d["reason"]
    assert "not (3, 0, 0)" in d["reason"]
    assert {w["state"] for w in d["waves"]} == {"at barrier"}
    assert {w["source"]["line"] for w in d["waves"]} == {line_of("s_barrier_wait(-3)")}
    assert d["buffers"][0]["values"] == [1] * 256  # nobody got past the barrier


@pytest.mark.parametrize("opt", OPTS)
def test_named_barrier_short_of_arrivals_hangs(opt, buggy_run):
    d, _core = buggy_run(opt, "named_short")
    assert d["status"] == "hang", d["reason"]
    assert sorted(w["wave_in_group"] for w in d["waves"] if w["state"] == "at barrier") == [0, 1]


@pytest.mark.parametrize("opt", OPTS)
def test_async_copies_land_when_waited_for(opt):
    d = run_json(obj(opt), "async_tile", "128", "128", "buf:i32:512:iota", "buf:i32:512")
    assert d["status"] == "completed", d["reason"]
    assert d["buffers"][1]["values"] == [(i + 32) % 512 for i in range(512)]


@pytest.mark.parametrize("opt", OPTS)
def test_async_stores_from_lds_land_when_waited_for(opt):
    d = run_json(obj(opt), "async_store", "128", "128", "buf:i32:132")
    assert d["status"] == "completed", d["reason"]
    assert d["buffers"][0]["values"] == [0] * 4 + [3 * ((i + 1) % 128 + 4) for i in range(128)]


@pytest.mark.parametrize("opt", OPTS)
def test_async_copy_read_before_its_wait_is_a_race_that_shows(opt, buggy_run):
    """No s_wait_asynccnt before the workgroup barrier: another wave's part of the tile still holds -1."""
    d, _core = buggy_run(opt, "async_race")
    assert d["status"] == "trap", d["reason"]
    assert "s_trap 2" in d["reason"]
    trapped = [w for w in d["waves"] if w["state"] == "trapped"]
    assert trapped and all(w["source"]["line"] == line_of("__builtin_trap()") for w in trapped), trapped[:2]


def explain_json(core: Path) -> dict:
    r = subprocess.run([sys.executable, "-m", "amddbg", "explain", str(core), "--json"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode in (0, 3, 4), r.stderr
    return json.loads(r.stdout)


def cored(tmp_path: Path, opt: str, kernel: str, grid: str, block: str, *args: str, extra: tuple = ()) -> Path:
    core = tmp_path / f"{kernel}-{opt}.gpu"
    r = run(obj(opt), kernel, grid, block, *args, extra=(*extra, "--core", str(core)))
    assert r.returncode == 0 and core.exists(), r.stderr
    return core


@pytest.mark.parametrize("opt", OPTS)
def test_cluster_barrier_deadlock_is_cored_and_explained(opt, buggy_run):
    """The core carries the waves (GFX12.5 save-area layout, core/arch.py Gfx125) with their cluster registers and
    the barrier objects (the `barrier_state` note); explain replays it and names the workgroups that never arrive."""
    _doc, core = buggy_run(opt, "cluster_skip")
    info = subprocess.run([sys.executable, "-m", "amddbg", str(core), "-batch", "-ex", "info threads"],
                          capture_output=True, text=True, timeout=300)
    assert info.returncode == 0, info.stderr
    assert [m.group(1) for m in re.finditer(r"\((\d,\d,\d)\)/\d", info.stdout)] == [
        f"{g},0,0" for g in range(4) for _ in range(2)]  # the workgroup ids, not the cluster ids TTMP9 holds
    doc = explain_json(core)
    assert doc["verdict"] == "hang", doc
    fs = [f for f in doc["findings"] if f["kind"] == "barrier_deadlock"]
    assert [f["details"]["missing_workgroups"] for f in fs] == [[[1, 0, 0]], [[3, 0, 0]]], fs  # one per cluster
    f = fs[0]
    assert f["cause"] == "missing_arrivals" and f["summary"].startswith(
        "cluster (0, 0, 0) (2 workgroups): cluster barrier -3 expects 2 workgroup arrivals and has 1 ((0, 0, 0)); "
        "(1, 0, 0) never arrived; 4 wave(s) of workgroup(s) (0, 0, 0), (1, 0, 0) wait on it"), f
    assert f["locations"][0]["line"] == line_of("s_barrier_wait(-3)")
    bars = subprocess.run([sys.executable, "-m", "amddbg", str(core), "-batch", "-ex", "info barriers"],
                          capture_output=True, text=True, timeout=300)
    assert bars.returncode == 0, bars.stderr
    assert [ln for ln in bars.stdout.splitlines() if ln.startswith("workgroup")] == [
        f"workgroup ({g}, 0, 0): cluster barrier -3; waiting: thread {2 * g + 1}, thread {2 * g + 2}" for g in range(4)]


@pytest.mark.parametrize("opt", OPTS)
def test_named_barrier_deadlock_is_cored_and_explained(opt, buggy_run):
    _run_doc, core = buggy_run(opt, "named_short")
    doc = explain_json(core)
    assert doc["verdict"] == "hang", doc
    f = next(f for f in doc["findings"] if f["kind"] == "barrier_deadlock")
    assert "barrier 1 expects 3 arrivals and has 2 (waves 0, 1); waves 0, 1 wait on it" in f["summary"], f
    bars = subprocess.run([sys.executable, "-m", "amddbg", str(core), "-batch", "-ex", "info barriers"],
                          capture_output=True, text=True, timeout=300)
    assert bars.stdout.splitlines()[0] == ("workgroup (0, 0, 0): named barrier 1 (or the one the wave joined last); "
                                           "waiting: thread 1, thread 2"), bars.stdout


@pytest.mark.parametrize("opt", OPTS)
def test_async_race_is_cored_and_explained(opt, buggy_run):
    doc = explain_json(buggy_run(opt, "async_race")[1])
    assert doc["verdict"] == "trap", doc
    f = next(f for f in doc["findings"] if f["kind"] == "trap")
    assert f["locations"][0]["line"] == line_of("__builtin_trap()"), f
    assert "assert_trap" in f["summary"] and "v = -1" in f["summary"], f  # the trap id (TTMP11 on GFX12.5)


def test_a_cluster_dispatch_replays_from_its_core(tmp_path):
    """A core written part-way through a --cluster launch of a kernel without __cluster_dims__: replay rebuilds the
    cluster shape from TTMP6 and HW_REG_IB_STS2 with it (the code reads it to rebuild its workgroup id), runs the
    dispatch whole (not by symmetry) and writes what the uninterrupted run writes."""
    import struct

    import amddbg
    from amddbg.replay.replay import replay

    core = cored(tmp_path, "O2", "launch_ids", "256", "32", "buf:u32:8", extra=("--cluster", "2",
                                                                             "--max-instructions", "20"))
    doc = explain_json(core)
    assert doc["verdict"] == "no_hang", doc
    prog = amddbg.open(str(core))
    r = replay(prog)
    assert r.status == "completed", r.reason
    out = struct.unpack("<Q", bytes(r.machine.memory.read(prog.waves[0].dispatch.kernarg_address, 8)))[0]
    assert list(struct.unpack("<8I", bytes(r.machine.memory.read(out, 32)))) == [g | (g // 2) << 16
                                                                                   for g in range(8)]


def test_a_core_without_barrier_objects_is_not_replayed_as_a_workgroup_barrier(tmp_path, monkeypatch):
    """A GFX12.5 core without the emulator's barrier_state note (as the hardware writes them): explain does not
    replay a named-barrier wait as a workgroup barrier; it says why replay cannot start."""
    from amddbg.emu import coredump
    from amddbg.emu.machine import Machine

    m = Machine(obj("O2"))
    m.dispatch("named_short", (128, 1, 1), (128, 1, 1), ["buf:i32:128"])
    assert m.run(max_instructions=100_000).status == "hang"
    monkeypatch.setattr(coredump, "_barrier_state", lambda machine: None)
    core = tmp_path / "bare.gpu"
    m.write_core(str(core))
    doc = explain_json(core)
    assert doc["verdict"] != "no_hang"
    assert "waits on named barrier 1: the core holds no barrier arrive counts" in json.dumps(doc)


def test_cluster_in_a_launch_script(tmp_path):
    """A launch script's "cluster" is --cluster for that launch; a bad one names the launch."""
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"buffers": {"ids": "u32:8"}, "launches": [
        {"kernel": "launch_ids", "grid": 256, "block": 32, "args": ["@ids"]},
        {"kernel": "launch_ids", "grid": 256, "block": 32, "args": ["@ids"], "cluster": [2, 1, 1]}]}))
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(obj("O2")), "--script", str(script), "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    ids = next(b for b in doc["buffers"] if b["name"] == "ids")
    assert doc["status"] == "completed" and ids["values"] == [g | (g // 2) << 16 for g in range(8)], ids
    script.write_text(json.dumps({"launches": [{"kernel": "launch_ids", "grid": 256, "block": 32,
                                                "args": ["buf:u32:8"], "cluster": 3}]}))
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(obj("O2")), "--script", str(script)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "launches[0]" in r.stderr and "not a multiple of the cluster's 3" in r.stderr, r.stderr
