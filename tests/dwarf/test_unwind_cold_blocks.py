"""The ABI unwinder on the traps real -O0 code has: a callee's trap reached by a branch to a cold block placed after
its epilogue (clang-19), and a callee that copies s33 into another SGPR after making it its frame pointer
(clang-22 forms private addresses with `s_mov_b32 s0, s33`).

Found by the freshhangs corpus (tests/replay/test_freshhangs.py's kernels): `bt` printed the kernel's arguments as
0x0 for the trapping wave (the straight-line prologue scan walked through the epilogue's `s_mov_b32 s33, s8` before
reaching the trap) and `<error: DW_OP_fbreg without a frame base>` on clang-22 (the copy was taken for the save of
the caller's s33). Every -O0 object of the corpus, all four targets and both compilers, through `amddbg run` and
`amddbg -batch -ex 'thread apply all bt'`, as a user would."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from bounded import count, spread

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "corefiles" / "freshhangs"
OBJECTS = sorted(CORPUS.glob("freshhangs-*-O0.co"))
ARGS = ["--kernel", "assert_bounds_2d", "--grid", "16,4", "--block", "16,4", "--arg", "buf:i32:64:iota",
        "--arg", "buf:f32:64", "--arg", "i32:60"]
PICKED = spread(OBJECTS, count(4, len(OBJECTS)))


@pytest.mark.parametrize("co", OBJECTS, ids=[p.stem.removeprefix("freshhangs-") for p in OBJECTS])
def test_callers_arguments_through_a_trap_in_a_callee(co, tmp_path):
    if co not in PICKED:
        pytest.skip("bounded: AMDDBG_SLOW_LIMIT=0 runs every -O0 object")
    core = tmp_path / "trap.gpu"
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(co), *ARGS, "--core", str(core), "--json"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and '"status": "trap"' in r.stdout, r.stderr
    bt = subprocess.run([sys.executable, "-m", "amddbg", "-batch", "-ex", "thread apply all bt", str(core)],
                        capture_output=True, text=True, timeout=600)
    assert bt.returncode == 0, bt.stderr
    callers = [ln for ln in bt.stdout.splitlines() if ln.startswith("#1 ")]
    waves = 64 // (32 if "-w32-" in co.name else 64)
    assert len(callers) == waves, bt.stdout  # every wave stopped inside check_index, called from the kernel
    for line in callers:
        m = re.search(r"assert_bounds_2d \(idx=\(const int \*\) (0x[0-9a-f]+), dst=\(float \*\) (0x[0-9a-f]+), "
                      r"n=(-?\d+)\) at \S+freshhangs\.hip:374$", line)
        assert m, line
        idx, dst, n = int(m[1], 16), int(m[2], 16), int(m[3])
        assert n == 60 and idx and dst and idx != dst, line
    assert len(set(callers)) == 1, callers  # the same arguments in every wave
