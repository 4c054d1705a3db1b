"""GFX12's split workgroup barrier in a core taken part-way (issue 20 section 3: no invented hangs).

`s_barrier_signal -1` arrives and `s_barrier_wait -1` waits. A wave caught between the two after the other waves'
arrivals completed the barrier (they went on) carries STATE_PRIV.BARRIER_COMPLETE (RDNA4 ISA 3.4.2); replay must
let its wait through and count its arrival in the completed phase. Before, the part-way core of a kernel that
completes explained as `barrier_deadlock` + `barrier_misuse/wait_without_arrive` (freshhangs2 syncthreads_or_loop,
clang-22 gfx1200 wave32 -O2, cut at 558 of 1,116 wave-instructions). Every cut of a completing barrier loop must
explain as no_hang, on both wave sizes and both compilers.
"""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corefiles" / "freshhangs2"
OBJECTS = ["llvm22-gfx1200-w32-O2", "llvm19-gfx1200-w64-O2", "llvm22-gfx1200-w64-O0"]
ARGS = ["--kernel", "syncthreads_or_loop", "--grid", "128", "--block", "128", "--arg", "buf:i32:128:iota",
        "--arg", "buf:i32:128"]


def _amddbg(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "COLUMNS": "200"}, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("obj", OBJECTS)
def test_every_cut_of_a_completing_barrier_loop_is_no_hang(tmp_path, obj):
    co = CORPUS / f"freshhangs2-{obj}.co"
    r = _amddbg("run", co, *ARGS)
    assert r.returncode == 0 and r.stdout.startswith("completed"), r.stdout + r.stderr
    total = int(re.search(r"(\d+) wave-instructions in", r.stdout).group(1))
    answers = {}
    for k in range(1, 8):
        cut = total * k // 8
        core = tmp_path / f"cut{cut}.gpu"
        r = _amddbg("run", co, *ARGS, "--max-instructions", cut, "--core", core)
        assert core.exists(), r.stdout + r.stderr
        doc = json.loads(_amddbg("explain", "--json", core).stdout)
        answers[cut] = (doc["verdict"], [(f["kind"], f["cause"]) for f in doc["findings"]])
    assert all(a == ("no_hang", [("no_hang", "slow_not_stuck")]) for a in answers.values()), answers
