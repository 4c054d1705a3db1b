"""Variables of -O2 code through the user's door: `amddbg -batch -ex 'info locals' -ex 'print -lane all lane'`.

clang-22 describes register-resident variables as `DW_OP_bregx VGPRn+0, DW_OP_lit1, DW_OP_swap,
DW_OP_xderef` (amddbg.dwarf.expr.promoted explains why that is the register's value). The oracle is the
source: `lane` is `threadIdx.x` (lane_x() in scenarios.hip / divergence.hip), so lane N of a wave of
workgroup-local wave index W holds N + W * wave size; and the register the DWARF names, printed by
`print -lane all $v0`. Cores: the README's demo core (gfx90a, wave64, every lane active) and the
divergence demo on gfx1100 (wave32, lanes 0-2, 8-10, 16-18, 24-26 inactive).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corefiles" / "scenarios" / "spin-wrong-scope-gfx90a.gpu"
W32 = ROOT / "corefiles" / "scenarios" / "divergence-demo-gfx1100.gpu"


def amddbg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, timeout=600)


def _lanes(text: str) -> dict[int, str]:
    """`{lanes 0: 0*, 1: 1, 4-6: 9}` -> {0: "0*", 1: "1", 4: "9", 5: "9", 6: "9"}."""
    body = text.split("{lanes ", 1)[1].rsplit("}", 1)[0]
    out = {}
    for group in re.finditer(r"([\d,-]+): ([^,]+?)(?=, [\d,-]+: |$)", body):
        for part in group.group(1).split(","):
            lo, _, hi = part.partition("-")
            for n in range(int(lo), int(hi or lo) + 1):
                out[n] = group.group(2)
    return out


def test_readme_demo_core_lane_is_the_register():
    r = amddbg("-batch", "-ex", "info locals", "-ex", "print -lane all lane", "-ex", "print -lane all $v0",
               "-ex", "bt full", "-ex", "print lane", str(DEMO))
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    assert out[0] == "lane = 0" and "<unavailable>" not in r.stdout
    lane, v0 = _lanes(out[1]), _lanes(out[2])
    assert lane == {n: str(n) for n in range(64)} and lane == v0  # the source's threadIdx.x, and v0
    assert "        lane = 0" in r.stdout  # bt full
    assert re.search(r"^\$\d+ = 0$", r.stdout, re.M)


def test_wave32_active_and_inactive_lanes():
    r = amddbg("-batch", "-ex", "print -lane all lane", "-ex", "print -lane all $v0", "-ex", "print/x $exec",
               "-ex", "lane 4", "-ex", "print lane", "-ex", "info locals", str(W32))
    assert r.returncode == 0, r.stderr
    out = r.stdout.splitlines()
    lane = _lanes(out[0])
    exec_mask = int(re.search(r"= (0x[0-9a-f]+)", r.stdout).group(1), 16)
    assert exec_mask == 0xF8F8F8F8 and len(lane) == 32
    for n in range(32):
        active = (exec_mask >> n) & 1
        # inactive lanes keep their value, marked: it was evaluated at the wave PC
        assert lane[n] == (str(n) if active else f"{n}*"), n
    assert "lanes not active at the wave PC" in r.stdout
    assert re.search(r"^\$\d+ = 4$", r.stdout, re.M)  # lane 4's own value
    assert re.search(r"^v = \d+$", r.stdout, re.M) and re.search(r"^i = \d+$", r.stdout, re.M)


@pytest.mark.parametrize("core", [DEMO, W32], ids=["w64", "w32"])
def test_json_lanes(core):
    r = amddbg("--json", "-batch", "-ex", "print -lane all lane", "-ex", "bt full", str(core))
    assert r.returncode == 0, r.stderr
    pr, bt = (json.loads(line) for line in r.stdout.splitlines())
    assert [d["value"] for d in pr["lanes"]] == [str(n) for n in range(len(pr["lanes"]))]
    locals_ = {d["name"]: d["value"] for d in bt["frames"][0]["locals"]}
    assert locals_["lane"] == str(bt["lane"])


@pytest.mark.parametrize("arch", ["gfx1200", "gfx942"])
def test_fresh_core_values_follow_the_source(tmp_path, arch):
    """A core written now by `amddbg run --core` (slow_loop stopped inside its loop). Source:
    `acc = acc * 3 + (int)(lane ^ i)` for i = 0, 1, ...: every lane's `acc` (in a VGPR, the promoted-variable
    shape) must be that recurrence after one common number of iterations, and `lane` its lane number."""
    core = tmp_path / f"slow-{arch}.gpu"
    r = amddbg("run", str(ROOT / "corefiles" / "scenarios" / f"scenarios-{arch}.co"), "--kernel", "slow_loop",
               "--grid", "64", "--block", "64", "--arg", "buf:i32:64", "--arg", "i32:300",
               "--max-instructions", "1000", "--core", str(core))
    assert r.returncode == 0, r.stderr
    r = amddbg("--json", "-batch", "-ex", "print -lane all acc", "-ex", "print -lane all lane", str(core))
    assert r.returncode == 0, r.stderr
    acc, lane = ([int(d["value"]) for d in json.loads(line)["lanes"]] for line in r.stdout.splitlines())
    assert lane == list(range(len(lane))) and len(lane) == (32 if arch == "gfx1200" else 64)

    def after(n: int, k: int) -> int:
        a = 0
        for i in range(k):
            a = (a * 3 + (n ^ i)) & 0xFFFFFFFF
        return a - (1 << 32) if a >> 31 else a

    ks = [k for k in range(1, 300) if all(after(n, k) == acc[n] for n in range(len(acc)))]
    assert len(ks) == 1, ks
