"""What `amddbg explain` says to a person (issue: the debugger surface, "explain text"): thread ids as `info threads`
gives them, every faulting lane, several cores, a code object that is not a core, and the divergent branch's line
on every target. Through the CLI, on the scenario cores."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SC = ROOT / "corefiles" / "scenarios"
TARGETS = ["gfx90a", "gfx942", "gfx1100", "gfx1200"]


def _amddbg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COLUMNS": "200"})


def _if_line() -> int:
    """The `if` whose then-part holds barrier_deadlock's barrier (read from the source, not written here)."""
    lines = (SC / "scenarios.hip").read_text().splitlines()
    start = next(i for i, t in enumerate(lines) if "void barrier_deadlock(" in t)
    return next(i for i in range(start, len(lines)) if lines[i].strip().startswith("if (")) + 1


@pytest.mark.parametrize("target", TARGETS)
def test_divergent_branch_is_the_if_and_threads_are_info_threads_ids(target):
    core = str(SC / f"barrier-deadlock-{target}.gpu")
    doc = json.loads(_amddbg("explain", "--json", core).stdout)
    bd = next(f for f in doc["findings"] if f["kind"] == "barrier_deadlock")
    assert [loc["line"] for loc in bd["locations"] if loc["role"] == "divergent branch"] == [_if_line()]
    threads = json.loads(_amddbg("--json", "-batch", "-ex", "info threads", core).stdout.splitlines()[0])["threads"]
    spinning = sorted(t["id"] for t in threads if t.get("state") in ("spinning", "sleeping"))
    ids = ", ".join(f"{a}-{b}" if a != b else str(a) for a, b in _runs(spinning))
    assert f"(thread{'s' if len(spinning) > 1 else ''} {ids}) are spinning" in bd["summary"] or \
           f"(thread {ids}) is spinning" in bd["summary"], bd["summary"]


def _runs(ns):
    out = []
    for n in ns:
        if out and out[-1][1] + 1 == n:
            out[-1][1] = n
        else:
            out.append([n, n])
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_every_faulting_lane_is_named(target):
    """memory_fault: items past n=60 write far outside `out`: every one of them is in the text, not the first."""
    text = _amddbg("explain", str(SC / f"memory-fault-{target}.gpu")).stdout
    m = re.search(r"by lanes? ([0-9,\- ]+) \(out\[", text)
    assert m, text
    lanes_per_wave = 64 if target.startswith("gfx9") else 32  # the cores run wave64 on gfx9, wave32 on gfx10+
    first = 60 % lanes_per_wave
    assert m.group(1).strip() == f"{first}-{first + 3}", text


def test_two_cores_are_both_explained():
    a, b = str(SC / "spin-no-writer-gfx90a.gpu"), str(SC / "assert-trap-gfx90a.gpu")
    r = _amddbg("explain", a, b)
    assert r.returncode == 4, r.stdout + r.stderr  # the worst outcome: the trap
    assert r.stdout.count("verdict: ") == 2 and f"== {a}" in r.stdout and f"== {b}" in r.stdout
    doc = json.loads(_amddbg("explain", "--json", a, b).stdout)
    assert [(c["core"], c["verdict"]) for c in doc["cores"]] == [(a, "hang"), (b, "trap")]


def test_a_host_core_beside_two_gpu_cores_is_said_to_be_ignored(tmp_path):
    a, b = str(SC / "spin-no-writer-gfx90a.gpu"), str(SC / "assert-trap-gfx90a.gpu")
    host = str(SC / "assert-trap-gfx90a.core")  # a unified core is a host-machine ELF core too
    r = _amddbg("explain", a, b, host)
    assert r.stdout.count("verdict: ") == 2
    assert f"ignoring host core {host}" in r.stderr


def test_a_code_object_is_not_a_core():
    co = str(SC / "scenarios-gfx90a.co")
    r = _amddbg("explain", co)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"amddbg: error: {co}: not a core") and r.stderr.count("\n") == 1, r.stderr
