"""A pile of mixed cores as a cluster job leaves them, triaged through the CLI: cores of one barrier hang taken at
three moments (a spinner still on its first poll among them), two call sites of one barrier helper, damaged
(truncated) cores, an empty file and an outlier that trapped. The exact tree, counts and outliers, the same for
a local run, `--jobs 2` and `--cluster local`, in text, JSON and DOT."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "scenarios" / "scenarios-gfx90a.co"
TRAP = ROOT / "corefiles" / "scenarios" / "assert-trap-gfx90a.gpu"


def amddbg(*args, cwd=None, env_extra=None):
    env = dict(os.environ, NO_COLOR="1", AMDDBG_NO_CACHE="1", AMDDBG_PLUGIN_PATH="", **(env_extra or {}))
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=900)


def _core(folder: Path, name: str, limit: int | None) -> Path:
    out = folder / name
    extra = ["--max-instructions", str(limit)] if limit else []
    r = amddbg("run", CO, "--kernel", "barrier_deadlock", "--grid", "256", "--block", "256", "--arg",
               "buf:i32:1:fill=1" if limit else "buf:i32:1", "--arg", "buf:i32:256", *extra, "--core", out)
    assert out.exists(), r.stdout + r.stderr
    return out


@pytest.fixture(scope="module")
def pile(tmp_path_factory):
    work = tmp_path_factory.mktemp("runs")
    mid = _core(work, "mid.gpu", 52)      # waves at the barrier from lines 18 and 24, one spinner (peeled poll)
    early = _core(work, "early.gpu", 40)  # spinners still at their first poll: spinning, not halted
    hang = _core(work, "hang.gpu", None)  # the hang as the detector leaves it
    folder = tmp_path_factory.mktemp("pile")
    for r in range(12):
        shutil.copy(mid, folder / f"rank{r:04d}.gpu")
    shutil.copy(hang, folder / "rank0012.gpu")
    shutil.copy(early, folder / "rank0013.gpu")
    data = mid.read_bytes()
    cut = _inside_wave_area(mid)
    (folder / "rank0014.gpu").write_bytes(data[:cut])     # cut inside the wave save area: 0 of 4 waves
    (folder / "rank0015.gpu").write_bytes(data[:2048])    # cut early: the wave count is lost too
    (folder / "rank0016.gpu").write_bytes(b"")
    shutil.copy(TRAP, folder / "rank0017.gpu")
    return folder


def _inside_wave_area(core: Path) -> int:
    """A file offset just past the control stack, at the bottom of the wave records (from the core's own queue,
    save area header and program headers): the control stack survives and lists 4 waves, whose records (read from
    the top of the area down) are cut off."""
    import amddbg
    from amddbg.core.layouts import CONTEXT_SAVE_AREA_HEADER

    prog = amddbg.open(str(core))
    csa = prog.core.queues[0].ctx_save_restore_address
    elf = prog.core.files[0]
    seg = next(ph for ph in elf.phdrs if ph.p_type == 1 and ph.p_vaddr <= csa < ph.p_vaddr + ph.p_memsz)
    raw = bytes(elf.data[seg.p_offset + csa - seg.p_vaddr:][:24])
    hdr = CONTEXT_SAVE_AREA_HEADER.unpack(raw, 0, 24)
    prog.close()
    return seg.p_offset + (csa + hdr["control_stack_offset"] + hdr["control_stack_size"] - seg.p_vaddr) + 64


def _expected_size(core: Path) -> int:
    from amddbg.core.elffile import ElfCore

    return ElfCore(str(core)).expected_size


def _leaves(doc):
    out = {}

    def walk(nodes, path):
        for n in nodes:
            p = path + [n["label"]]
            if n["kind"] == "state":
                out[" > ".join(p)] = (n["waves"], n["cores"], n["majority"], n["per_workgroup"], n["core_names"])
            walk(n["children"], p)

    walk(doc["tree"], [])
    return out


def _check(doc, pile):
    assert doc["cores"] == 18 and doc["readable_cores"] == 17
    assert _leaves(doc) == {
        "barrier_deadlock > barrier_deadlock:18 > workgroup_barrier:9 > at barrier": (14, 14, True, {"1": 14}, []),
        "barrier_deadlock > barrier_deadlock:24 > workgroup_barrier:9 > at barrier": (24, 12, True, {"2": 12}, []),
        "barrier_deadlock > barrier_deadlock:21 > spinning": (18, 14, True, {"1": 12, "3": 2}, []),
        "assert_trap > assert_trap:50 > trapped": (1, 1, False, {"1": 1}, ["rank0017.gpu"]),
    }
    assert [d["core"] for d in doc["damaged"]] == ["rank0014.gpu", "rank0015.gpu"]
    cut = _inside_wave_area(pile / "rank0000.gpu")
    size = _expected_size(pile / "rank0000.gpu")
    assert doc["damaged"][0]["damage"] == (f"truncated at offset {cut:#x} ({size:#x} bytes expected), "
                                           "0 of 4 waves readable")
    assert doc["damaged"][1]["damage"].startswith("truncated at offset 0x800 (")
    assert doc["damaged"][1]["damage"].endswith("0 of an unknown number of waves readable")
    assert [e["core"] for e in doc["errors"]] == ["rank0016.gpu"]
    assert doc["outlier_cores"] == ["rank0014.gpu", "rank0015.gpu", "rank0017.gpu"]
    assert doc["ordinary_cores"] == 14
    assert doc["summary"] == [
        "barrier_deadlock:18 -> workgroup_barrier:9 (at barrier: 14 waves in 14 cores, 1 per workgroup) | "
        "barrier_deadlock:24 -> workgroup_barrier:9 (at barrier: 24 waves in 12 cores, 2 per workgroup) | "
        "barrier_deadlock:21 (spinning: 18 waves in 14 cores, 1-3 per workgroup)",
        "assert_trap:50 (trapped: 1 wave in 1 core, 1 per workgroup)"]


@pytest.mark.parametrize("how", [[], ["--jobs", "2"], ["--cluster", "local", "--jobs", "2"]],
                         ids=["local", "jobs", "dask-local"])
def test_pile_tree_counts_and_outliers(pile, how):
    if "--cluster" in how:
        pytest.importorskip("distributed", reason="Dask distributed is the optional extra amddbg[cluster]")
    r = amddbg("triage", pile, "--json", *how)
    assert r.returncode == 0, r.stderr
    _check(json.loads(r.stdout), pile)


def test_pile_text_and_dot(pile, tmp_path):
    dot = tmp_path / "pile.dot"
    r = amddbg("triage", pile, "--dot", dot)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "57 waves / 18 cores (2 damaged, 1 unreadable)" in out
    cut = _inside_wave_area(pile / "rank0000.gpu")
    assert "damaged cores: 2" in out and f"rank0014.gpu: damaged: truncated at offset {cut:#x}" in out
    assert "unreadable cores: 1" in out
    assert "14 cores entirely in the majority branches; 3 outliers: rank0014.gpu, rank0015.gpu, rank0017.gpu" in out
    assert "18 cores in " in out
    assert "1 cores" not in out and "1 waves" not in out
    text = dot.read_text()
    assert 'root [label="57 waves / 18 cores (2 damaged, 1 unreadable)"]' in text
    assert "damaged cores: 2" in text and "unreadable cores: 1" in text and "rank0016.gpu" in text


def test_pile_by_line_merges_call_sites_and_by_state_labels(pile):
    r = amddbg("triage", pile, "--json", "--by", "line")
    doc = json.loads(r.stdout)
    leaves = _leaves(doc)
    assert leaves["barrier_deadlock > workgroup_barrier:9 > at barrier"][:2] == (38, 14)
    assert leaves["barrier_deadlock > workgroup_barrier:9 > at barrier"][3] == {"1": 2, "3": 12}
    r = amddbg("triage", pile, "--by", "state")
    assert r.stdout.splitlines()[0] == "at barrier: 38 waves in 14 cores, 1-3 per workgroup"


def test_relative_paths_from_another_directory(pile, tmp_path):
    """Paths are made absolute before they go to workers (a Dask worker runs elsewhere)."""
    pytest.importorskip("distributed", reason="Dask distributed is the optional extra amddbg[cluster]")
    rel = os.path.relpath(pile, tmp_path)
    r = amddbg("triage", rel, "--json", "--cluster", "local", "--jobs", "1", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["readable_cores"] == 17


def test_compact_names():
    from amddbg.triage.render import compact_names

    names = [f"rank{r:04d}.gpu" for r in range(85, 105)] + ["rank0200.gpu", "x.gpu", "rank0300.gpu"]
    assert compact_names(names, 2) == "rank0085.gpu..rank0104.gpu, rank0200.gpu (+2 more)"
    assert compact_names(["a1.gpu", "a2.gpu"]) == "a1.gpu, a2.gpu"


def test_scheduler_without_workers_is_a_clear_error(pile, tmp_path):
    """`--cluster tcp://...` whose scheduler has no workers: one line after the connect limit, not a silent wait."""
    pytest.importorskip("distributed", reason="Dask distributed is the optional extra amddbg[cluster]")
    script = tmp_path / "sched.py"
    script.write_text(
        "import sys, time\n"
        "from dask.distributed import LocalCluster\n"
        "c = LocalCluster(n_workers=0, host='127.0.0.1', scheduler_port=0, dashboard_address=None)\n"
        "print(c.scheduler_address, flush=True)\n"
        "sys.stdin.read()\n")
    sched = subprocess.Popen([sys.executable, str(script)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    try:
        address = sched.stdout.readline().strip()
        assert address.startswith("tcp://127.0.0.1:"), address
        r = amddbg("triage", pile, "--cluster", address, env_extra={"AMDDBG_DASK_CONNECT_SECONDS": "3"})
        assert r.returncode == 2 and "Traceback" not in r.stderr
        assert r.stderr.strip() == (f"amddbg: error: --cluster {address}: the scheduler has no workers (none joined "
                                    f"within 3.0 s); start some with `dask worker {address}`")
    finally:
        sched.stdin.close()
        sched.wait(timeout=60)


def test_dask_log_lines_become_one_amddbg_line(capsys):
    import logging

    from amddbg.triage.runner import _DaskLog

    with _DaskLog():
        for _ in range(3):
            logging.getLogger("distributed.client").warning("Couldn't gather 1 keys, rescheduling ('_chunk-1',)")
    err = capsys.readouterr().err
    assert err == "amddbg: warning: Dask: a worker was lost and its tasks were rescheduled (3 times)\n"
