"""Issue 23 section 2: what a new user hit, each through the command line as they typed it."""

from __future__ import annotations

import io
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


def test_json_python_statement_output_is_a_document():
    r = batch(BARRIER, "python print(len(prog.threads))", "echo hi\\n", json_mode=True)
    assert [json.loads(x) for x in r.stdout.splitlines()] == [
        {"version": 1, "command": "python print(len(prog.threads))", "text": ["4"]},
        {"version": 1, "command": "echo hi\\n", "text": ["hi"]}]


def test_python_script_traceback_exits_1(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("raise KeyError('boom')\n")
    r = amddbg("--python", str(script), BARRIER)
    assert r.returncode == 1 and f'File "{script}", line 1' in r.stderr and "KeyError: 'boom'" in r.stderr
    assert "internal error" not in r.stderr


def test_thread_apply_all_double_dash():
    r = batch(BARRIER, "thread apply all -- p $_thread")
    assert [ln for ln in r.stdout.splitlines() if ln.startswith("$")] == ["$1 = 1", "$2 = 2", "$3 = 3", "$4 = 4"]





CO = str(SCEN / "scenarios-gfx90a.co")


def test_list_opens_only_files_the_debug_information_names():
    r = batch(BARRIER, "list /etc/passwd:1", "list scenarios.hip:9", "list corefiles/scenarios/scenarios.hip:20",
              "list nosuch.hip:1")
    assert "root:" not in r.stdout
    assert "amddbg: error: No source file named /etc/passwd." in r.stderr
    assert "amddbg: error: No source file named nosuch.hip." in r.stderr
    assert "9\t  __builtin_amdgcn_s_barrier();" in r.stdout and "20\t  } else {" in r.stdout


def test_list_completion_offers_debug_information_files():
    import amddbg as api
    from amddbg.repl.commands import Debugger
    from amddbg.repl.shell import DebuggerCompleter

    comp = DebuggerCompleter(Debugger(api.open(BARRIER)))
    assert comp.words_for("list sc") == ["scenarios.hip:"]
    assert comp.words_for("list /et") == []  # not the local file system


def test_code_object_alone_info_functions_scope_line_ptype():
    r = batch(CO, "info functions ^spin_", "info scope scenarios.hip:21", "info line scenarios.hip:21",
              "ptype barrier_deadlock", "whatis assert_trap", "info functions nosuchthing")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert ('All functions matching regular expression "^spin_":\n\nFile /amddbg/corefiles/scenarios/scenarios.hip:\n'
            "30:\tvoid spin_no_writer(int *, int *);\n") in out  # the declaration line (DW_AT_decl_line)
    assert "92:\tvoid spin_cycle(int *, int *, int *);" in out
    assert ("Symbol lane is a variable with DWARF location DW_OP_bregx VGPR0+0, DW_OP_lit1, DW_OP_swap, "
            "DW_OP_xderef, length 4.") in out
    assert ('Line 21 of "scenarios.hip" starts at address 0x3138 <barrier_deadlock+56> and ends at 0x314c '
            "<barrier_deadlock+76>.") in out
    assert "type = void (int *, int *)\ntype = void (const int *, int *)\n" in out


def test_code_object_banner_counts_what_it_lists():
    first = amddbg(CO).stdout.splitlines()[0]
    assert ", 11 kernels: " in first and first.endswith(", and 3 more (info functions)")
    assert len(first.split(": ", 2)[2].split(", and")[0].split(", ")) == 8


def test_repl_divergence_defaults_to_the_core_dispatch():
    r = batch(DIVERGENT, "divergence", "divergence --arg buf:i32:128:iota")
    assert "the core's kernel _Z15divergence_demoPi (grid [64, 1, 1], block [64, 1, 1]) takes 1 argument(s)" \
        in r.stderr
    assert "divergence of the core's dispatch: --kernel _Z15divergence_demoPi --grid 64,1,1 --block 64,1,1" \
        in r.stdout
    assert "completed: every wave ended; SIMD efficiency" in r.stdout


def _host_file_core(tmp_path: Path) -> Path:
    """The barrier core with its code object named as file:///nonexistent/s.co; s.co lies next to the core."""
    d = Path(BARRIER).read_bytes()
    old = b"memory://4242#offset=0x7f1200002000&size=24576"
    new = b"file:///nonexistent/s.co"
    assert d.count(old) == 1
    p = tmp_path / "b.gpu"
    p.write_bytes(d.replace(old, new + b"\0" * (len(old) - len(new))))
    shutil.copyfile(CO, tmp_path / "s.co")
    return p


@pytest.mark.parametrize("argv", [["-batch", "-ex", "bt"], ["explain"], ["triage"]])
def test_host_file_notice_in_every_command(tmp_path, argv):
    core = _host_file_core(tmp_path)
    r = amddbg(*argv, str(core))
    assert f"code object file:///nonexistent/s.co read from host file {tmp_path / 's.co'} (named by the core; use " \
           "--sysroot to confine such paths)" in r.stderr
    assert "barrier" in r.stdout  # and the code object was used


def test_info_with_one_bad_file_shows_the_good_ones(tmp_path):
    bad = tmp_path / "bad.gpu"
    bad.write_bytes(b"junk\n")
    short = tmp_path / "short.gpu"
    short.write_bytes(Path(BARRIER).read_bytes()[:40])
    lds = str(SCEN / "lds-spin-gfx90a.gpu")
    for files in ([BARRIER, str(bad), lds], [BARRIER, str(short), lds], [CO, str(bad)]):
        r = amddbg("info", *files)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("amddbg: error: ")
        assert ("barrier-deadlock-gfx90a.gpu: split AMDGPU core" in r.stdout) if files[0] == BARRIER \
            else "scenarios-gfx90a.co" in r.stdout
        if lds in files:
            assert "lds-spin-gfx90a.gpu: split AMDGPU core" in r.stdout
    r = amddbg("info", "--json", BARRIER, str(short), lds)
    assert len(json.loads(r.stdout)["cores"]) == 2 and r.returncode == 2


def test_summary_wraps_at_words_on_a_terminal():
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(sys.executable, ["-m", "amddbg", BARRIER], dimensions=(40, 60),
                          env={**os.environ, "TERM": "dumb"}, encoding="utf-8", timeout=120)
    seen = io.StringIO()
    child.logfile_read = seen
    child.expect(r"\(`explain` for\s+details\)")  # the summary's explanation, printed above the prompt when ready
    child.sendline("quit")
    child.expect(pexpect.EOF)
    lines = [re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", ln).rstrip("\r") for ln in seen.getvalue().split("\n")
             if ln.strip() and "(amddbg)" not in ln]
    assert all(len(ln) <= 60 for ln in lines), lines
    text = " ".join(ln.strip() for ln in lines)
    assert "the barrier sits inside the divergent branch at scenarios.hip:17" in text  # no word was cut
    piped = amddbg(BARRIER, "-ex", "quit").stdout
    assert any(len(ln) > 60 for ln in piped.splitlines())  # a pipe gets whole lines
