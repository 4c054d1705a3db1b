"""The static explainer on cores whose story is known: the demo hang core, a core the emulator wrote of the
real divergent_barrier kernel hanging, the trapped wave of the gfx1100 demo, and a completed run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.replay.explain import explain_core

ROOT = Path(__file__).resolve().parents[2]
CORES = ROOT / "corefiles" / "cores"
CO = ROOT / "corefiles" / "co" / "llvm22-gfx90a-w64-O2-hip.co"


def _by_kind(exp):
    out = {}
    for f in exp.findings:
        out.setdefault(f.kind, []).append(f)
    return out


def test_demo_hang_barrier_deadlock_and_no_writer():
    exp = explain_core(str(CORES / "gfx90a-divergent-barrier.gpu"))
    assert exp.verdict == "hang" and exp.exit_code == 3
    kinds = _by_kind(exp)
    (bd,) = kinds["barrier_deadlock"]
    assert bd.cause == "missing_arrivals" and bd.details == {"expected": 4, "arrived": 2, "ended": 0}
    roles = [(loc["role"], loc["line"]) for loc in bd.locations]
    # the barrier is inlined workgroup_barrier() (line 13) called at line 86: the call site follows, same role
    assert roles == [("waiting at barrier", 13), ("waiting at barrier", 86), ("missing wave", 90),
                     ("divergent branch", 85)]
    assert bd.locations[1]["inlined_from"] == {"function": "workgroup_barrier", "file": bd.locations[0]["file"],
                                               "line": 13}
    assert "inlined_from" not in bd.locations[0] and "probe.hip:86 (in workgroup_barrier at probe.hip:13)" in bd.summary
    assert {(w["wave_in_group"], w["lanes"]) for w in bd.waves} == {(0, "0-63"), (1, "0-63"), (2, "0-63"),
                                                                     (3, "0-63")}
    (spin,) = kinds["spin_forever"]  # both spinning waves poll the same flag: one finding
    # the waiting waves' stores go through `stage`, another kernel argument (a different pointer in the core's
    # kernarg segment), so nobody left can set `flag`
    assert spin.cause == "no_writer" and [w["wave_in_group"] for w in spin.waves] == [1, 3]
    assert spin.locations[0]["role"] == "polling load" and spin.locations[0]["line"] == 89


@pytest.fixture(scope="module")
def emulated_hang(tmp_path_factory):
    from amddbg.emu.machine import Machine

    m = Machine(CO)
    m.dispatch("divergent_barrier", (256, 1, 1), (256, 1, 1), ["buf:i32:256", "buf:i32:1"])
    assert m.run(max_instructions=100_000).status == "hang"
    path = tmp_path_factory.mktemp("explain") / "hang.gpu"
    m.write_core(str(path))
    return path


def test_emulated_hang_core(emulated_hang):
    exp = explain_core(str(emulated_hang))
    assert exp.verdict == "hang"
    kinds = _by_kind(exp)
    assert kinds["barrier_deadlock"][0].details["arrived"] == 2
    spin = kinds["spin_forever"][0]
    assert spin.details["value"] == 0  # the flag as the core holds it


def test_trap_core_and_cli_exit_codes():
    r = subprocess.run([sys.executable, "-m", "amddbg", "explain", "--json", str(CORES / "gfx1100-probe.core")],
                       capture_output=True, text=True)
    assert r.returncode == 4, r.stderr
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "trap"
    (f,) = doc["findings"]
    assert f["kind"] == "trap" and f["cause"] == "assert_trap" and f["locations"][0]["line"] == 66
    assert set(doc["replay"]) >= {"wave_instructions", "seconds"}
    r = subprocess.run([sys.executable, "-m", "amddbg", "explain", str(CORES / "gfx90a-divergent-barrier.gpu"),
                        "--assume", "release@probe.hip:89"], capture_output=True, text=True)
    assert r.returncode == 2 and "expected acquire|release|scope" in r.stderr


def test_completed_run_has_no_findings(tmp_path):
    from amddbg.emu.machine import Machine

    m = Machine(CO)
    m.dispatch("divergent_barrier", (256, 1, 1), (256, 1, 1), ["buf:i32:256", "buf:i32:1:fill=1"])
    assert m.run().status == "completed"
    path = tmp_path / "done.gpu"
    m.write_core(str(path))
    exp = explain_core(str(path))
    assert exp.findings == [] and exp.verdict == "no_hang" and exp.exit_code == 0
