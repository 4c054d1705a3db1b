"""Issue 23 section 2: what a new user hit, each through the command line as they typed it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "corefiles" / "scenarios"
BARRIER = str(SCEN / "barrier-deadlock-gfx90a.gpu")
UNIFIED = str(SCEN / "barrier-deadlock-gfx90a.core")
DIVERGENT = str(SCEN / "divergence-demo-gfx90a.gpu")


def amddbg(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL, **kw)


def batch(core: str, *commands: str, json_mode: bool = False) -> subprocess.CompletedProcess:
    argv = ["-batch", *(["--json"] if json_mode else [])]
    for c in commands:
        argv += ["-ex", c]
    return amddbg(*argv, core)


@pytest.fixture(scope="module")
def o0_core(tmp_path_factory) -> str:
    """The assert-trap scenario built at -O0 (arguments live in memory), run to its trap."""
    out = tmp_path_factory.mktemp("o0") / "assert-trap-O0.gpu"
    values = ",".join(str(-v if v == 37 else v) for v in range(64))
    r = amddbg("run", str(SCEN / "scenarios-gfx90a-O0.co"), "--kernel", "assert_trap", "--grid", "64", "--block",
               "64", "--arg", f"buf:i32:64:values={values}", "--arg", "buf:i32:64", "--core", str(out))
    assert r.returncode == 0 and out.exists(), r.stderr
    return str(out)


def test_info_registers_on_the_host_thread_of_a_unified_core():
    r = batch(UNIFIED, "thread 1", "info registers", "info registers rip", "echo after\\n")
    assert r.returncode == 0 and "internal error" not in r.stderr, r.stderr
    assert re.search(r"^rip            0x401000           0x401000$", r.stdout, re.M)  # gdb's columns
    assert re.search(r"^rax            0x0                0$", r.stdout, re.M)
    assert r.stdout.rstrip().endswith("after")


def test_unrelated_host_core_warns_with_both_pids_and_keeps_the_gpu_code_objects():
    host = str(ROOT / "corefiles" / "cores" / "gfx942-reduce.host.core")  # process 2024; the GPU core is 4242's
    r = amddbg("-batch", "-ex", "info threads", "-ex", "info sharedlibrary", host, BARRIER)
    assert "gfx942-reduce.host.core is a core of process 2024, but barrier-deadlock-gfx90a.gpu is of process 4242" \
        in r.stderr
    assert "memory://4242#" in r.stdout  # the GPU core's own code object, not the host's link map
    waves = r.stdout.split("LWP 2024")[1]  # the host thread of the other process has no symbols: that is right
    assert waves.count('"barrier_deadlock"') == 4 and "?? ()" not in waves.split("\n", 1)[1]
    # a real pair is not warned about
    pair = amddbg("-batch", "-ex", "info threads", host, str(ROOT / "corefiles" / "cores" / "gfx942-reduce.gpu"))
    assert "not a pair" not in pair.stderr


def test_info_agents_columns_and_device_name():
    r = batch(str(SCEN / "lds-spin-gfx1100.gpu"), "info agents")
    head, row = r.stdout.splitlines()[:2]
    cols = ["Id", "State", "Target Id", "Architecture", "Device Name", "Location", "Exceptions"]
    starts = [head.index(c) for c in cols]
    assert starts == sorted(starts)
    assert row[starts[2]:starts[3]].strip() == "AMDGPU Agent (GPUID 4098)"  # no longer runs into the next column
    assert row[starts[4]:starts[5]].strip() == "Navi 31 [Radeon RX 7900 XT/7900 XTX/7900 GRE/7900M]"
    assert row[starts[5]:starts[6]].strip() == "03:00.0"
    doc = json.loads(batch(BARRIER, "info agents", json_mode=True).stdout)
    assert doc["agents"][0]["device_name"] == "Aldebaran/MI200 [Instinct MI250X/MI250]"


def test_one_dispatch_numbering():
    summary = amddbg(BARRIER).stdout  # the start-up summary
    disp = batch(BARRIER, "info dispatches", "info threads 1").stdout
    info = amddbg("info", BARRIER).stdout
    assert "1:1:1 (PKID 0)  barrier_deadlock" in summary
    assert "AMDGPU Dispatch 1:1:1 (PKID 0)" in disp and "AMDGPU Wave 1:1:1:1" in disp
    assert "┃ pkid ┃" in info and "┃ dispatch ┃" not in info  # the packet id is labelled as such


def test_lane_prints_the_lane_target_id_and_frame():
    r = batch(DIVERGENT, "lane 5", "lane 0")
    lines = r.stdout.splitlines()
    assert lines[0] == "[Switching to thread 1, lane 5 (AMDGPU Lane 1:1:1:1/5 (0,0,0)[5,0,0])]"
    assert lines[1].startswith("#0  0x00007f0000001cec in divergence_demo (") and lines[2].startswith("53\t")
    assert "(lane 0 is inactive at the wave's PC)" in r.stdout


def test_x_i_marks_the_pc_and_names_symbols():
    r = batch(BARRIER, "x/2i $pc", "x/2i")
    lines = r.stdout.splitlines()
    assert lines[0] == "=> 0x00007f0000003164 <barrier_deadlock+100>:\ts_barrier"
    assert lines[1].startswith("   0x00007f0000003168 <barrier_deadlock+104>:\tglobal_store_dword")
    assert lines[2].startswith("   0x00007f0000003170 <barrier_deadlock+112>:")


@pytest.mark.skipif(shutil.which("llvm-objdump-22") is None, reason="llvm-objdump-22 not installed")
def test_disassemble_shows_branch_targets_as_llvm_objdump_does():
    r = batch(BARRIER, "disassemble")
    ours = {int(m.group(1), 16) - 0x7F0000000000: int(m.group(2), 16) - 0x7F0000000000
            for m in re.finditer(r"0x([0-9a-f]+) <[^>]+>:\ts_c?branch\S* \S+ # 0x([0-9a-f]+) <barrier_deadlock\+\d+>",
                                 r.stdout)}
    dump = subprocess.run(["llvm-objdump-22", "-d", "--no-show-raw-insn", str(SCEN / "scenarios-gfx90a.co")],
                          capture_output=True, text=True, check=True).stdout
    body = dump.split("<_Z16barrier_deadlockPiS_>:")[1].split("\n\n")[0]
    theirs = {int(m.group(1), 16): int(m.group(2), 16) + 0x3100
              for m in re.finditer(r"s_c?branch\S* \S+\s+// ([0-9A-F]+): [0-9A-F]+ <_Z16barrier_deadlockPiS_\+0x"
                                   r"([0-9a-f]+)>", body)}
    assert len(ours) == 4 and ours == theirs


def test_info_registers_uses_repeats():
    r = batch(BARRIER, "info registers v1", "info registers v0")
    assert "v1             {0x00000000 <repeats 64 times>}" in r.stdout
    assert "v0             {0x00000000, 0x00000001, 0x00000002," in r.stdout  # distinct values stay


def test_print_lane_all_of_a_uniform_value():
    r = batch(DIVERGENT, "print -lane all $s0", "print -lane all 1", "print -lane all $v1")
    assert "$1 = 4294967295\n$2 = 1\n$3 = {lanes " in r.stdout
    assert r.stdout.count("* lanes not active") == 1  # only the value that differs by lane is marked


def test_artificial_arrays(o0_core):
    r = batch(o0_core, "p *in@4", "p in[36]@3", "p/x *in@4", "whatis *in@4", "p *in@0", "p 1@2", "p *in@70000000")
    assert "$1 = {0, 1, 2, 3}\n$2 = {36, -37, 38}\n$3 = {0x0, 0x1, 0x2, 0x3}\ntype = const int [4]\n" == r.stdout
    assert "Non-positive repeat count." in r.stderr and "Only values in memory can be extended with '@'." in r.stderr
    assert "more than the 1048576 bytes" in r.stderr


def test_lane_apply_and_show_version(o0_core):
    r = batch(o0_core, "show version", "lane apply 36-38 p in[$_lane]", "lane apply 1 2 -q -- p $v0", "lane")
    from amddbg import __version__

    assert r.stdout.startswith(f"amddbg {__version__}\n")
    assert "\nLane 37 (AMDGPU Lane 1:1:1:1/37 (0,0,0)[37,0,0]):\n$2 = -37\n" in r.stdout
    assert "$4 = 1\n$5 = 2\n[Current lane is 37]" in r.stdout  # focus restored


def test_json_never_mixes_plain_text(o0_core):
    r = batch(o0_core, "info registers pc v0", "lanes", "show version", "thread apply 1 info registers s0", "bt",
              "info frame", json_mode=True)
    assert r.returncode == 0, r.stderr
    docs = [json.loads(line) for line in r.stdout.splitlines()]  # every line parses
    regs = docs[0]["registers"]
    assert regs["pc"] == 0x7F0000007210 and regs["v0"][:3] == [0, 1, 2] and len(regs["v0"]) == 64
    assert docs[1]["command"] == "lanes" and any("37  active" in t for t in docs[1]["text"])
    assert docs[3]["registers"] == {"s0": 0x6000}


def test_python_script_traceback_exits_1(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("raise KeyError('boom')\n")
    r = amddbg("--python", str(script), BARRIER)
    assert r.returncode == 1 and f'File "{script}", line 1' in r.stderr and "KeyError: 'boom'" in r.stderr
    assert "internal error" not in r.stderr


def test_thread_apply_all_double_dash():
    r = batch(BARRIER, "thread apply all -- p $_thread")
    assert [ln for ln in r.stdout.splitlines() if ln.startswith("$")] == ["$1 = 1", "$2 = 2", "$3 = 3", "$4 = 4"]


del os
