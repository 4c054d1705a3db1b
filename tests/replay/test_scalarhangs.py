"""corefiles/scalarhangs: cross-workgroup polls that clang -O2 compiles to scalar loads, which read through the scalar
data cache (amddbg/emu/scalarcache.py; docs/emulator.md "The scalar data cache"). Through the user's door:
`amddbg run ... --core` hangs (the poll's scalar line stays stale: no vector store updates it), `amddbg explain
--json` names `spin_forever`/`not_visible` with the scalar cache as the reason, the polling line and the writer's
line, and the twin whose poll is an atomic load at agent scope completes. llvm-objdump-22 (-d -l) is the oracle
for which objects poll with an `s_load` (every -O2 object, both compilers; no -O0 object: -O0 polls with a flat
load and hangs in the vector L1 instead, which explain reports without the scalar cache).

Default cases: four -O2 objects (one per target, both compilers) x the three hang kernels, and their -O0 twins on
one object; the rest of the matrix (16 objects) is marked slow and sampled (tests/bounded.py).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "corefiles" / "scalarhangs"
SRC = (DIR / "scalarhangs.hip").read_text().splitlines()
OBJECTS = sorted(p.name for p in DIR.glob("scalarhangs-*.co"))

# kernel -> its launch (every hang kernel `K` has a twin `K_atomic` with the same arguments)
LAUNCH = {
    "sslot_poll": ["--grid", "128", "--block", "64", "--arg", "buf:i32:2", "--arg", "buf:i32:64:iota",
                   "--arg", "buf:i32:128"],
    "sgrid_barrier": ["--grid", "256", "--block", "64", "--arg", "buf:u32:1", "--arg", "buf:u32:1", "--arg", "u32:4",
                      "--arg", "buf:i32:256"],
    "sglobal_flag": ["--grid", "192", "--block", "64", "--arg", "buf:i32:192"],
}
POLLERS = {"sslot_poll": {1}, "sgrid_barrier": {0, 1, 2}, "sglobal_flag": {1, 2}}  # the workgroups that spin
FAST = {"llvm22-gfx90a-w64-O2", "llvm19-gfx942-w64-O2", "llvm22-gfx1100-w32-O2", "llvm19-gfx1200-w32-O2",
        "llvm19-gfx90a-w64-O0"}


def _marks(kernel: str, tag: str) -> set[int]:
    """Lines tagged `// @tag` in the kernel's body, and in the helpers its tagged call lines call."""
    start = next(i for i, s in enumerate(SRC) if re.match(rf"__global__ void {kernel}\(", s))
    end = next((i for i in range(start + 1, len(SRC)) if SRC[i].startswith(("__global__", "// ====="))), len(SRC))
    out = {i + 1 for i in range(start, end) if f"// @{tag}" in SRC[i]}
    for i in list(out):
        call = re.search(r"\b(\w+)\(", SRC[i - 1].split("if (t == 0)")[-1])
        if call:
            head = next((j for j, s in enumerate(SRC) if re.search(rf"\b{call.group(1)}\(\w", s) and "static" in s),
                        None)
            if head is not None:
                body_end = next(j for j in range(head, len(SRC)) if SRC[j] == "}")
                out |= {j + 1 for j in range(head, body_end) if f"// @{tag}" in SRC[j]}
    return out


def _amddbg(*args, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


def _cases():
    cases = bounded.matrix(OBJECTS, list(LAUNCH), fast=lambda k, name: name[len("scalarhangs-"):-3] in FAST)
    return [pytest.param(c.kernel, c.obj, marks=[pytest.mark.slow] if c.slow else [],
                         id=f"{c.kernel}-{c.obj[len('scalarhangs-'):-3]}") for c in cases]


def test_the_corpus_is_built_and_tagged():
    assert len(OBJECTS) == 16
    for kernel in LAUNCH:
        assert len(_marks(kernel, "poll")) == 1 and _marks(kernel, "write"), kernel


def _poll_loads(obj: str, kernel: str) -> list[str]:
    """The loads llvm-objdump-22 places on the kernel's @poll line (its line-number comments, -l)."""
    out = subprocess.run(["llvm-objdump-22", "-d", "-l", "--no-show-raw-insn", str(DIR / obj)], capture_output=True,
                         text=True, check=True).stdout
    poll = _marks(kernel, "poll").pop()
    body = out[out.index(f"<_Z{len(kernel)}{kernel}P"):]
    nxt = re.search(r"\n\n[0-9a-f]{16} <", body)
    body = body[:nxt.start()] if nxt else body
    loads, line = [], None
    for text in body.splitlines():
        m = re.match(r"; .*scalarhangs\.hip:(\d+)", text.strip())
        if m:
            line = int(m.group(1))
        elif line == poll and re.match(r"\s+(s_load|global_load|flat_load)", text):
            loads.append(text.split()[0])
    return loads


@pytest.mark.parametrize("obj", OBJECTS)
def test_which_objects_poll_with_a_scalar_load(obj):
    """Every -O2 object (clang-19 and -22, all four targets) reads every hang kernel's flag with an s_load on the
    poll line; -O0 reads it with a flat load; the atomic twins never use a scalar load for the poll."""
    for kernel in LAUNCH:
        loads = _poll_loads(obj, kernel)
        assert loads, (obj, kernel)
        if obj.endswith("-O2.co"):
            assert all(x.startswith("s_load") for x in loads), (obj, kernel, loads)
        else:
            assert not any(x.startswith("s_load") for x in loads), (obj, kernel, loads)
        assert not any(x.startswith("s_load") for x in _poll_loads(obj, kernel + "_atomic")), (obj, kernel)


@pytest.mark.parametrize("kernel,obj", _cases())
def test_the_stale_scalar_line_hangs_and_explain_names_it(tmp_path, kernel, obj):
    core = tmp_path / "k.gpu"
    r = _amddbg("run", DIR / obj, "--kernel", kernel, *LAUNCH[kernel], "--json", "--core", core)
    assert r.returncode in (0, 3) and "Traceback" not in r.stderr, r.stderr
    assert json.loads(r.stdout)["status"] == "hang", r.stdout
    e = _amddbg("explain", "--json", core)
    assert "Traceback" not in e.stderr, e.stderr
    d = json.loads(e.stdout)
    assert d["verdict"] == "hang", d
    nv = [f for f in d["findings"] if (f["kind"], f["cause"]) == ("spin_forever", "not_visible")]
    assert len(nv) == 1, d["findings"]
    f = nv[0]
    polls = {loc["line"] for loc in f["locations"] if loc["role"] == "polling load"}
    assert polls == _marks(kernel, "poll"), f["locations"]
    assert all(loc["line"] > 0 for loc in f["locations"])
    if obj.endswith("-O2.co"):  # the scalar cache is the reason, and the writer's line is named
        assert f["details"].get("cache") == "scalar" and f["details"]["load_scope"] == "wavefront", f["details"]
        assert f["details"]["load_kind"] == "scalar (non-atomic)" and f["details"]["needed_scope"] == "agent"
        assert "scalar data cache" in f["summary"] and "atomic load at agent scope" in f["summary"], f["summary"]
        writes = {loc["line"] for loc in f["locations"] if loc["role"] == "write that never becomes visible"}
        assert writes == _marks(kernel, "write"), f["locations"]
        assert f["details"]["fix_verified"] is True, f["details"]
    else:  # -O0 polls with a flat load: stale in the vector L1, not the scalar cache
        assert "cache" not in f["details"] and "scalar data cache" not in f["summary"], f
    groups = {w["workgroup"][0] for w in f["waves"]}
    # (wave32: the late workgroup's second wave polls too, and may read `go` before its first wave opens the barrier)
    assert POLLERS[kernel] <= groups <= POLLERS[kernel] | ({3} if kernel == "sgrid_barrier" else set()), f["waves"]


@pytest.mark.parametrize("kernel,obj", _cases())
def test_the_atomic_twin_completes(kernel, obj):
    r = _amddbg("run", DIR / obj, "--kernel", kernel + "_atomic", *LAUNCH[kernel], "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["status"] == "completed", (r.stdout[-400:], r.stderr)


@pytest.mark.parametrize("obj", ["scalarhangs-llvm22-gfx942-w64-O2.co", "scalarhangs-llvm19-gfx1100-w32-O2.co"])
def test_explore_finds_the_stale_scalar_line(tmp_path, obj):
    """The reader comes late: under the default schedule its first scalar read already sees the flag. Other
    schedules have it read first (gfx942: the launch orders of seeds 3 and 7), or start with the line in the
    shader array's GL1 that the scalar L0 fills from (gfx1100: seed 4); its scalar line then stays stale and the
    run hangs, and explain says the hang depends on the schedule. Without the scalar cache every seed completes."""
    core = tmp_path / "late.gpu"
    args = ["--kernel", "sslot_late_reader", *LAUNCH["sslot_poll"]]
    r = _amddbg("run", DIR / obj, *args, "--explore", "8", "--json", "--core", core)
    assert r.returncode == 3, (r.stdout[-600:], r.stderr)
    d = json.loads(r.stdout)
    by = {o["status"]: o["seeds"] for o in d["outcomes"]}
    assert 0 in by.get("completed", []) and by.get("hang"), by
    e = json.loads(_amddbg("explain", "--json", core).stdout)
    assert e["verdict"] == "hang"
    f = next(f for f in e["findings"] if f["cause"] == "not_visible")
    assert f["details"].get("cache") == "scalar" and f["details"].get("schedule_dependent") is True, f["details"]
    assert {loc["line"] for loc in f["locations"] if loc["role"] == "polling load"} == _marks("sslot_late_reader",
                                                                                             "poll")
