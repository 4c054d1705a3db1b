"""The line the user wrote, through inlining (corefiles/inlinehangs: always-inline `__syncthreads()`, a user
`wg_sync()`, a lock helper and an assert helper; clang-19/22 x gfx90a/gfx942/gfx1100 w32/w64/gfx1200 w32/w64 x
-O0/-O2).

Each test writes a core with `amddbg run --core`, then asserts through the user's door (`amddbg explain --json`,
`amddbg --json -batch -ex 'thread apply all bt'`): every location's innermost line and its call sites (same role,
`inlined_from`), the summary quoting the kernel's line, no line 0 anywhere, and `bt`'s lines against
llvm-addr2line-22 -i. Lines come from `@marker` comments in the source, never written here."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
IH = ROOT / "corefiles" / "inlinehangs"
SRC = IH / "inlinehangs.hip"
OBJECTS = sorted(p.name for p in IH.glob("inlinehangs-*.co"))
ADDR2LINE = shutil.which("llvm-addr2line-22")


def _markers() -> dict[str, int]:
    out = {}
    for n, text in enumerate(SRC.read_text().splitlines(), 1):
        for m in re.finditer(r"@([a-z0-9-]+)", text):
            out[m.group(1)] = n
    return out


L = _markers()


def _wave(obj: str) -> int:
    return int(re.search(r"-w(\d+)-", obj).group(1))


def _launch(kernel: str, w: int) -> list[str]:
    """(grid, block, args) of each kernel: the hang or trap it is written for."""
    if kernel in ("five_syncs", "helper_sync"):
        return ["--grid", str(2 * w), "--block", str(2 * w), "--arg", "buf:i32:1", "--arg", f"buf:i32:{2 * w}"]
    if kernel == "lock_held":
        return ["--grid", str(2 * w), "--block", str(2 * w), "--arg", "buf:i32:1:fill=1", "--arg", "buf:i32:2"]
    if kernel == "some_poll":
        return ["--grid", str(8 * w), "--block", str(8 * w), "--arg", "buf:i32:1", "--arg", f"buf:i32:{8 * w}"]
    values = ",".join(str(-1 if i >= w - 4 else i) for i in range(w))  # the last four lanes fail the check
    return ["--grid", str(w), "--block", str(w), "--arg", f"buf:i32:{w}:values={values}", "--arg", f"buf:i32:{w}"]


def _amddbg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COLUMNS": "200"})


def _core(tmp_path, obj: str, kernel: str) -> Path:
    core = tmp_path / f"{kernel}.gpu"
    r = _amddbg("run", str(IH / obj), "--kernel", kernel, *_launch(kernel, _wave(obj)), "--core", str(core))
    assert core.exists(), r.stdout + r.stderr
    return core


def _explain(core: Path) -> dict:
    r = _amddbg("explain", "--json", str(core))
    assert r.returncode in (3, 4), r.stdout + r.stderr
    return json.loads(r.stdout)


def _chain(finding: dict, role: str) -> list[tuple[int, dict | None]]:
    """The first location of `role` and the call-site entries that follow it: [(line, inlined_from)]."""
    locs = finding["locations"]
    i = next(k for k, loc in enumerate(locs) if loc["role"] == role and "inlined_from" not in loc)
    out = [(locs[i]["line"], None)]
    for loc in locs[i + 1:]:
        if "inlined_from" not in loc or loc["role"] != role:
            break
        out.append((loc["line"], loc["inlined_from"]))
    return out


def _no_line_0(doc: dict) -> None:
    for f in doc["findings"]:
        for loc in f["locations"]:
            assert loc["line"], loc  # never 0 (nor missing: every PC here has a line)
            assert (loc.get("inlined_from") or {"line": 1})["line"], loc
        assert not re.search(r"\.hip:0\b", f["summary"]), f["summary"]


def _finding(doc: dict, kind: str) -> dict:
    found = [f for f in doc["findings"] if f["kind"] == kind]
    assert found, [(f["kind"], f["cause"]) for f in doc["findings"]]
    return found[0]


def _check_barrier(doc: dict, helper_chain: list[int], call: int, wait: int, branch: int) -> dict:
    bd = _finding(doc, "barrier_deadlock")
    chain = _chain(bd, "waiting at barrier")
    assert [line for line, _ in chain] == [L["sync-body"], *helper_chain, call], bd["locations"]
    assert chain[1][1] == {"function": "__syncthreads", "file": chain[1][1]["file"], "line": L["sync-body"]}
    assert f"wait at the barrier at inlinehangs.hip:{call} (" in bd["summary"], bd["summary"]
    missing = [loc["line"] for loc in bd["locations"] if loc["role"] == "missing wave"]
    assert wait in missing, bd["locations"]
    assert [loc["line"] for loc in bd["locations"] if loc["role"] == "divergent branch"][0] == branch
    spin = _finding(doc, "spin_forever")
    assert [line for line, _ in _chain(spin, "polling load")] == [L["poll-body"], wait], spin["locations"]
    assert f"at inlinehangs.hip:{wait} (in wait_ready at inlinehangs.hip:" in spin["summary"], spin["summary"]
    return bd


def _addr2line(obj: str, rel: int) -> list[tuple[str, int]]:
    out = subprocess.run([ADDR2LINE, "-i", "-f", "-C", "-e", str(IH / obj), hex(rel)], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    pairs = []
    for fn, where in zip(out[::2], out[1::2], strict=True):
        pairs.append((fn.split("(")[0], int(where.rsplit(":", 1)[1].split()[0])))
    return pairs


def _check_bt(core: Path, obj: str, trapped: bool = False) -> None:
    """bt of every wave against llvm-addr2line-22 -i. A wave stopped by `s_trap` shows the pc register (the
    instruction after it, as ROCgdb does) and the trap's own line: addr2line is asked about the s_trap (a 4-byte
    SOPP just before)."""
    r = _amddbg("--json", "-batch", "-ex", "thread apply all bt", str(core))
    assert r.returncode == 0, r.stderr
    import amddbg

    prog = amddbg.open(str(core))
    load = prog.code_objects[0].load_address
    prog.close()
    for doc in map(json.loads, r.stdout.splitlines()):
        frames = doc["frames"]
        assert frames and all(f["line"] for f in frames if f["file"]), frames
        if ADDR2LINE is None:
            continue
        pc = frames[0]["pc"]
        inline_chain = [f for f in frames if f["pc"] == pc]  # frame 0 and the frames it is inlined into
        oracle = _addr2line(obj, pc - load - (4 if trapped else 0))
        assert [f["function"] for f in inline_chain] == [fn for fn, _ in oracle], (inline_chain, oracle)
        for f, (_fn, line) in zip(inline_chain, oracle, strict=True):
            if line:  # where addr2line names a line, bt names the same one
                assert f["line"] == line, (f, oracle)


def _numbers(text: str) -> list[int]:
    """`1, 3-4, 7` -> [1, 3, 4, 7]."""
    out = []
    for part in text.split(","):
        a, _, b = part.strip().partition("-")
        out += list(range(int(a), int(b or a) + 1))
    return out


KERNELS = ["five_syncs", "helper_sync", "lock_held", "some_poll", "inline_assert"]
# every kernel on four objects (both compilers, both wave sizes, -O0 and -O2 among them) by default; the other 100
# combinations are marked slow, and CI runs their cover (tests/bounded.py: the cases that, with the four, run every
# kernel, target, compiler and level somewhere, rotating; AMDDBG_SLOW_LIMIT=0 runs all of them)
FAST = ["inlinehangs-llvm22-gfx90a-w64-O2.co", "inlinehangs-llvm19-gfx942-w64-O0.co",
        "inlinehangs-llvm22-gfx1100-w32-O0.co", "inlinehangs-llvm19-gfx1200-w64-O2.co"]


@pytest.mark.parametrize("kernel,obj", bounded.params(bounded.matrix(OBJECTS, KERNELS, fast=FAST),
                                                      ids=lambda c: f"{c.kernel}-{c.obj[len('inlinehangs-'):-3]}"))
def test_inlined_lines(tmp_path, obj, kernel):
    _case(tmp_path, obj, kernel)


def _case(tmp_path, obj: str, kernel: str) -> None:
    if ADDR2LINE is None:
        pytest.skip("llvm-addr2line-22 is not installed (the oracle for bt's lines)")
    tmp_path.mkdir(parents=True, exist_ok=True)
    assert obj in OBJECTS, obj
    core = _core(tmp_path, obj, kernel)
    doc = _explain(core)
    _no_line_0(doc)
    if kernel == "five_syncs":
        _check_barrier(doc, [], L["sync-3"], L["sync-wait"], L["sync-if"])
    elif kernel == "helper_sync":
        bd = _check_barrier(doc, [L["wg-sync-body"]], L["helper-call"], L["helper-wait"], L["helper-if"])
        assert _chain(bd, "waiting at barrier")[2][1]["function"] == "wg_sync"
    elif kernel == "some_poll":
        bd = _check_barrier(doc, [L["wg-sync-body"]], L["group-sync"], L["group-wait"], L["group-if"])
        spin = _finding(doc, "spin_forever")
        assert spin["summary"].startswith("waves 1-4, 7 of workgroup (0,0,0) (threads 2-5, 8) poll"), spin["summary"]
        # the missing waves, grouped by where they are (at -O0 some sit in the loop's head, some at its load):
        # each place names the kernel's line of the wait_ready() call
        assert set(re.findall(r"spinning at ([^ ;]+)", bd["summary"])) == {f"inlinehangs.hip:{L['group-wait']}"}
        named = re.findall(r"waves? ([0-9, \-]+) of workgroup \(0,0,0\) \(threads? [0-9, \-]+\) (?:is|are) spinning",
                           bd["summary"])
        assert sorted(n for part in named for n in _numbers(part)) == [1, 2, 3, 4, 7], bd["summary"]
    elif kernel == "lock_held":
        spin = _finding(doc, "spin_forever")
        assert [line for line, _ in _chain(spin, "polling load")] == [L["lock-poll"], L["lock-call"]]
        assert spin["locations"][1]["inlined_from"]["function"] == "lock"
        assert f"at inlinehangs.hip:{L['lock-call']} (in lock at inlinehangs.hip:{L['lock-poll']})" in spin["summary"]
    else:
        w = _wave(obj)
        trap = _finding(doc, "trap")
        assert [line for line, _ in _chain(trap, "trap")] == [L["check-trap"], L["assert-call"]], trap["locations"]
        assert f"lanes {w - 4}-{w - 1}," in trap["summary"], trap["summary"]
        assert f"at inlinehangs.hip:{L['assert-call']} (in check at inlinehangs.hip:{L['check-trap']})" in \
               trap["summary"]
    _check_bt(core, obj, trapped=kernel == "inline_assert")


def test_text_shows_call_sites_under_their_location(tmp_path):
    """The text form: the location, then `called from` lines, as a person reads a stack."""
    core = _core(tmp_path, "inlinehangs-llvm22-gfx90a-w64-O2.co", "helper_sync")
    out = _amddbg("explain", str(core)).stdout.splitlines()
    i = next(k for k, line in enumerate(out) if line.strip().startswith("waiting at barrier: __syncthreads at"))
    assert out[i + 1].strip() == f"called from wg_sync at /amddbg/inlinehangs.hip:{L['wg-sync-body']}"
    assert out[i + 2].strip() == f"called from helper_sync at /amddbg/inlinehangs.hip:{L['helper-call']}"


@pytest.mark.parametrize("obj", FAST)
def test_fault_names_the_pointer(tmp_path, obj):
    """null_entry: table[3] stays NULL; every lane reading through it faults, and the text says where the pointer
    came from (table[3], at -O0 and -O2). past_end: the
    last lane reads offsets[n] with n == 1024, the first element past the 4096 mapped bytes of offsets."""
    w = _wave(obj)
    core = tmp_path / "null.gpu"
    r = _amddbg("run", str(IH / obj), "--kernel", "null_entry", "--grid", str(w), "--block", str(w), "--arg",
                "buf:i64:4", "--arg", f"buf:i32:{w}:iota", "--arg", f"buf:i32:{w}", "--core", str(core))
    assert core.exists(), r.stdout + r.stderr
    doc = _explain(core)
    _no_line_0(doc)
    f = _finding(doc, "memory_violation")
    lanes = ",".join(str(n) for n in range(3, w, 4))
    assert f["details"]["lanes"] == lanes, f["details"]
    assert [loc["line"] for loc in f["locations"]] == [L["null-load"]]
    # -O2 reuses the address registers of the load of table[t % 4] at once, -O0 reloads table and t from the stack:
    # the slice recomputes the element both ways (tests/replay/test_originfaults.py runs every object)
    assert f["details"]["origin"] == "the pointer comes from table[3], which is NULL", f["summary"]
    assert f["summary"].endswith(f"by lanes {lanes}: {f['details']['origin']}")

    core = tmp_path / "past.gpu"
    r = _amddbg("run", str(IH / obj), "--kernel", "past_end", "--grid", str(w), "--block", str(w), "--arg",
                "buf:i32:1024:iota", "--arg", f"buf:i32:{w}", "--arg", "i32:1024", "--core", str(core))
    assert core.exists(), r.stdout + r.stderr
    f = _finding(_explain(core), "memory_violation")
    assert f["details"]["lanes"] == str(w - 1)
    # the index is the first element past the mapped memory and the kernel argument n holds it: offsets[n]
    assert f["details"]["origin"] == ("offsets[n] with n == 1024, one past the end of the 1024-element buffer "
                                      "offsets (4096 bytes from its start are mapped)"), f["summary"]
    assert [loc["line"] for loc in f["locations"]] == [L["past-load"]]
