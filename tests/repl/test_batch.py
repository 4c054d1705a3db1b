"""gdb-style batch mode: the contract lines of issue 9 on cores whose answers are known by construction."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corefiles" / "cores" / "gfx90a-divergent-barrier.gpu"
FRAME = re.compile(r"^#(\d+) {1,2}(?:0x([0-9a-f]{16}) in )?(\S+) \((.*)\) at (\S+):(\d+)$")


def amddbg(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", AMDDBG_NO_CACHE="1")
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=120)


def test_thread_apply_all_bt_shapes(chain_core):
    import chain_core as cc

    path, exp = chain_core
    r = amddbg("-batch", "-ex", "thread apply all bt", str(path))
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stdout.splitlines() if ln]
    assert lines[0] == "Thread 1 (AMDGPU Wave 1:1:1:1 (1,0,0)/0):"
    frames = [FRAME.match(ln) for ln in lines[1:]]
    assert all(frames), lines[1:]
    assert [m.group(3) for m in frames] == ["third_level", "second_level", "first_level", "probe<int>"]
    assert [int(m.group(2), 16) - cc.LOAD for m in frames] == [exp["pc"], *exp["ra"]]
    assert frames[0].group(4) == "x=7"  # lane 0 (the current lane) of the per-lane argument
    assert [int(m.group(6)) for m in frames] == [33, 35, 39, 55]


def test_host_thread_header_in_unified_core(tmp_path):
    import chain_core as cc

    path = tmp_path / "chain.core"
    cc.build(path, layout="unified")
    r = amddbg("-batch", "-ex", "thread apply all bt 1", str(path))
    lines = [ln for ln in r.stdout.splitlines() if ln]
    assert lines[0] == "Thread 1 (LWP 4242):"
    assert lines[1].startswith("#0  0x0000000000401000 in ")
    assert lines[2] == "Thread 2 (AMDGPU Wave 1:1:1:1 (1,0,0)/0):"
    assert FRAME.match(lines[3]).group(3) == "third_level"


def test_inlined_frames_and_statement_start():
    """Frame 0 is inlined workgroup_barrier() at the first address of its line: no '0xPC in' (gdb); its
    caller is the frame an inlined call sits in: no address either."""
    r = amddbg("-batch", "-ex", "bt", str(DEMO))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        "#0  workgroup_barrier () at /amddbg/corefiles/src/probe.hip:13",
        "#1  divergent_barrier (out=<optimized out>, flag=<optimized out>) at /amddbg/corefiles/src/probe.hip:86"]


def test_info_threads_rows(chain_core):
    r = amddbg("-batch", "-ex", "info threads", str(chain_core[0]))
    rows = r.stdout.splitlines()[1:]
    assert re.match(r"^\* 1    AMDGPU Wave 1:1:1:1 \(1,0,0\)/0 \"probe<int>\" +0x[0-9a-f]{16} in third_level \(x=7\)"
                    r" at \S+probe\.hip:33$", rows[0]), rows[0]


def test_print_history_lanes_and_failures(chain_core):
    r = amddbg("-batch", "-ex", "print x", "-ex", "print nosuchvar", "-ex", "print -lane all x", "-ex",
               "print/x $1 + 8", "-ex", "lane 40", "-ex", "print x", str(chain_core[0]))
    assert r.returncode == 1  # a command failed, later ones still ran
    assert r.stderr.strip() == 'amddbg: error: No symbol "nosuchvar" in current context.'
    # `lane N` prints the lane's target id and the frame, as ROCgdb does (issue 23)
    frame = "#0  0x00007f0010002038 in third_level (x=9) at /amddbg/corefiles/src/probe.hip:33"
    source = "33\t__device__ __attribute__((noinline)) int third_level(int x) { return x * 7 - 3; }"
    assert r.stdout.splitlines() == ["$1 = 7", "$2 = {lanes 0-31: 7, 32-62: 9, 63: 10}", "$3 = 0xf",
                                     "[Switching to thread 1, lane 40 (AMDGPU Lane 1:1:1:1/40 (1,0,0)[40,0,0])]",
                                     frame, source, "$4 = 9"]


def test_command_file_and_quit(tmp_path, chain_core):
    script = tmp_path / "cmds"
    script.write_text("# comment\nthread 1\nprint x\nquit\nprint 99\n")
    r = amddbg("-batch", "-x", str(script), str(chain_core[0]))
    assert r.returncode == 0 and "$1 = 7" in r.stdout and "99" not in r.stdout


def test_json_documents(chain_core):
    from chain_core import ARGBUF

    r = amddbg("-batch", "--json", "-ex", "info threads", "-ex", "bt", "-ex", "print -lane all x", "-ex",
               f"x/2dw {ARGBUF:#x}", "-ex", "info dispatches", "-ex", "info agents", "-ex", "info queues", "-ex",
               "info lanes", "-ex", "info waves", str(chain_core[0]))
    assert r.returncode == 0, r.stderr
    docs = [json.loads(line) for line in r.stdout.splitlines()]
    assert all(d["version"] == 1 for d in docs)
    assert [d["command"] for d in docs] == ["info threads", "bt", "print", "x", "info dispatches", "info agents",
                                            "info queues", "info lanes", "info waves"]
    threads, bt, pr, x, disp = docs[:5]
    assert threads["threads"][0]["state"] == "halted" and threads["threads"][0]["current"]
    assert [f["function"] for f in bt["frames"]] == ["third_level", "second_level", "first_level", "probe<int>"]
    assert [f["method"] for f in bt["frames"]] == ["context", "abi", "abi", "abi"]
    assert pr["value"] == "{lanes 0-31: 7, 32-62: 9, 63: 10}" and len(pr["lanes"]) == 64
    assert x["values"] == ["7", "7"] and x["space"] == "global"
    assert disp["dispatches"][0]["grid"] == [128, 1, 1] and disp["dispatches"][0]["kernel_function"] == "probe<int>"
    assert len(docs[7]["lanes"]) == 64 and docs[7]["lanes"][3]["workgroup_pos"] == [3, 0, 0]


def test_python_script(tmp_path, chain_core):
    script = tmp_path / "s.py"
    script.write_text("w = prog.waves[0]\nprint(w.target_id, [f.linkage_name for f in w.frames()][0])\n")
    r = amddbg("--python", str(script), str(chain_core[0]))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "AMDGPU Wave 1:1:1:1 (1,0,0)/0 _Z11third_leveli"


def test_bad_core_is_one_line(tmp_path):
    bad = tmp_path / "bad.core"
    bad.write_bytes(b"\x7fELF" + b"\0" * 12 + b"\x04\x00" + b"\0" * 10)
    before = bad.read_bytes()
    r = amddbg("-batch", "-ex", "bt", str(bad))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("amddbg: error: ")
    assert "Traceback" not in r.stderr and bad.read_bytes() == before


def test_summary_without_tty():
    r = amddbg(str(DEMO))
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Dispatches: 1" in out and "divergent_barrier" in out
    assert re.search(r"\b2  at barrier +probe\.hip:13 \(workgroup_barrier\)", out)
    assert re.search(r"\b2  spinning +probe\.hip:90 \(divergent_barrier\)", out)


COMMANDS = ["print", "p", "x", "info", "bt", "thread", "lane", "frame", "up", "down", "list", "disassemble", "ptype",
            "whatis", "set", "show", "help", "apropos", "output", "info registers", "info symbol", "info line",
            "thread apply", "print -lane", "x/4", "info address"]


@settings(max_examples=int(os.environ.get("AMDDBG_FUZZ_EXAMPLES", "150")), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(cmd=st.sampled_from(COMMANDS),
       arg=st.text(alphabet=st.sampled_from(list("0123456789abcxyz$*&()[]<>+-/.#,'\" _")), max_size=24))
def test_fuzzed_commands_are_one_line_errors(cmd, arg):
    from amddbg.errors import AmddbgError
    from amddbg.repl.commands import Quit

    dbg = _debugger()
    out: list[str] = []
    dbg.out = out.append
    try:
        dbg.execute(f"{cmd} {arg}")
    except (AmddbgError, Quit):
        pass
    except RecursionError:
        pytest.fail("recursion")


_DBG = []


def _debugger():
    if not _DBG:
        import amddbg
        from amddbg.repl.commands import Debugger

        _DBG.append(Debugger(amddbg.open(DEMO)))
    return _DBG[0]


def test_print_pretty_setting(chain_core):
    r = amddbg("-batch", "-ex", "print *(Sample *)0x40000000", "-ex", "set print pretty on", "-ex",
               "print *(Sample *)0x40000000", "-ex", "show print pretty", str(chain_core[0]))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("$1 = {count = 7, weight = ")
    assert lines[1:3] == ["$2 = {", "  count = 7,"] and lines[4] == "  tag = {7, 0}" and lines[5] == "}"
    assert lines[6] == "Pretty formatting of structures is on."


def test_gdb_options_before_the_file_open_the_debugger():
    r = amddbg("--json", "-batch", "-ex", "info agents", str(DEMO))
    assert r.returncode == 0 and json.loads(r.stdout)["agents"][0]["target"] == "gfx90a"
    r = amddbg("--sysroot", "/nonexistent", "-q", "-batch", "-ex", "info threads", str(DEMO))
    assert r.returncode == 0 and "AMDGPU Wave 1:1:1:1 (0,0,0)/0" in r.stdout
