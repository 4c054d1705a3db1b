"""`$pc` of a wave stopped by `s_trap` (issue 23 section 1).

The scenario cores declare `_amdgpu_r_debug.r_version` 10; with that runtime the trap handler leaves the
pc register on the instruction after the `s_trap`, which is what ROCdbgapi 0.77 reports and amddbg's own
`info --json` shows. `$pc`, `info threads` and `x/i $pc` show that register; frame 0's *line* stays on the
trap. Oracles: llvm-objdump-22 (the instruction before the pc is the `s_trap`) and llvm-addr2line-22 (the
trap's line) on the checked-in code object the core embeds.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "corefiles" / "scenarios"
CASES = [(name, arch) for name in ("assert-trap", "trap-in-callee") for arch in ("gfx90a", "gfx942", "gfx1100",
                                                                                  "gfx1200")]


def amddbg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(not shutil.which("llvm-objdump-22") or not shutil.which("llvm-addr2line-22"),
                    reason="llvm-22 tools not installed")
@pytest.mark.parametrize(("name", "arch"), CASES, ids=[f"{n}-{a}" for n, a in CASES])
def test_pc_is_the_register_line_is_the_trap(name, arch):
    core = SCEN / f"{name}-{arch}.gpu"
    co = SCEN / f"scenarios-{arch}.co"
    info = json.loads(amddbg("info", "--json", core.as_posix()).stdout)
    trapped = [w for w in info["waves"] if w["stop_reason"]]
    assert trapped
    pc = trapped[0]["pc"]
    rel = pc - info["code_objects"][0]["load_address"]
    dis = subprocess.run(["llvm-objdump-22", "-d", f"--start-address={rel - 8:#x}", f"--stop-address={rel + 4:#x}",
                          co.as_posix()], capture_output=True, text=True, check=True).stdout
    insns = {int(m.group(2), 16): m.group(1) for m in re.finditer(r"^\t(\S+).*// ([0-9A-F]{12}):", dis, re.M)}
    trap = max(a for a in insns if a < rel)
    assert insns[trap] == "s_trap"  # the register is the instruction after the trap (r_version 10)
    line = subprocess.run(["llvm-addr2line-22", "-e", co.as_posix(), f"{trap:#x}"], capture_output=True, text=True,
                          check=True).stdout.strip().rsplit(":", 1)[1]
    thread = info["waves"].index(trapped[0]) + 1
    r = amddbg("-batch", "-ex", f"thread {thread}", "-ex", "info threads", "-ex", "p $pc", "-ex", "x/i $pc",
               "-ex", "bt 1", "-ex", "disassemble", core.as_posix())
    assert r.returncode == 0, r.stderr
    out = r.stdout
    row = next(ln for ln in out.splitlines() if ln.startswith("*"))
    assert f"0x{pc:016x} in " in row and row.endswith(f".hip:{line}")
    assert re.search(rf"^\$1 = \(void \(\*\)\(\)\) {pc:#x}$", out, re.M)
    assert re.search(rf"^(=> )?\s*0x{pc:016x} <", out, re.M)
    assert re.search(rf"^#0  0x{pc:016x} in .*\.hip:{line}$", out, re.M)
    # disassemble: the frame's function, `=>` on the pc register, the s_trap just before it
    lines = out.splitlines()
    dump = next(i for i, ln in enumerate(lines) if ln.startswith("Dump of assembler code"))
    at = next(i for i, ln in enumerate(lines) if ln.startswith(f"=> 0x{pc:016x}") and i > dump)  # x/i marks it too
    assert "s_trap" in lines[at - 1] and lines[at - 1].strip().startswith(f"0x{pc - rel + trap:016x}")
    j = amddbg("--json", "-batch", "-ex", f"thread {thread}", "-ex", "info threads", core.as_posix())
    docs = [json.loads(x) for x in j.stdout.splitlines() if x.startswith("{")]
    current = [t for d in docs if d["command"] == "info threads" for t in d["threads"] if t.get("current")]
    assert current and current[0]["pc"] == pc


def test_rule_depends_on_r_version():
    """r_version >= 12 runtimes halt the wave at the s_trap: no adjustment; before, the line is the trap's."""
    from amddbg.session.frames import PC_AFTER_TRAP_BELOW_R_VERSION, _stop_pc

    trap = SimpleNamespace(mnemonic="s_trap", address=0x100)

    def thread(r_version, trap_id=2, before=trap):
        program = SimpleNamespace(instruction_before=lambda pc: before)
        return SimpleNamespace(pc=0x104, wave=SimpleNamespace(trap_id=trap_id, r_version=r_version), program=program)

    assert PC_AFTER_TRAP_BELOW_R_VERSION == 12
    assert _stop_pc(thread(10)) == 0x100 and _stop_pc(thread(8)) == 0x100
    assert _stop_pc(thread(12)) == 0x104
    assert _stop_pc(thread(10, trap_id=None)) == 0x104  # not stopped by a trap
    assert _stop_pc(thread(10, before=SimpleNamespace(mnemonic="s_nop", address=0x100))) == 0x104
