"""The emulator on real clang-built code objects: results checked against what the kernel source computes
(corefiles/src/probe.hip), the same results on every target that runs the kernel, hang detection, cores
written from the final state opened by the debugger, and the `amddbg run` contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.emu.args import parse_arg, read_buffer
from amddbg.emu.errors import EmulatorError
from amddbg.emu.machine import Machine

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "co"
DIVERGENT = "_Z17divergent_barrierPiS_"


def run_divergent(name: str, flag: int, lanes_per_group: int = 256):
    m = Machine(CO / name)
    m.dispatch("divergent_barrier", (lanes_per_group, 1, 1), (lanes_per_group, 1, 1),
               [f"buf:i32:{lanes_per_group}", f"buf:i32:1:fill={flag}"])
    return m, m.run(max_instructions=200_000)


def expected_divergent(n: int) -> list[int]:
    """probe.hip divergent_barrier: stage[lane] = lane; lanes whose (lane / 64) is even wait at the barrier and
    store stage[(lane + 1) & 255]; the others spin until *flag != 0 and store -1."""
    return [((lane + 1) & 255) if (lane // 64) % 2 == 0 else -1 for lane in range(n)]


@pytest.mark.parametrize("name", ["llvm22-gfx90a-w64-O2-hip.co", "llvm19-gfx90a-w64-O2-hip.co",
                                  "llvm22-gfx942-w64-O2-hip.co", "llvm22-gfx906-w64-O2-hip.co",
                                  "llvm22-gfx1030-w64-O2-hip.co", "llvm22-gfx1100-w64-O2-hip.co",
                                  # wave64 GFX10+ at -O0: lane masks name one SGPR in the text, the hardware a pair
                                  "llvm19-gfx1100-w64-O0-hip.co", "llvm19-gfx1030-w64-O0-hip.co",
                                  "llvm22-gfx1200-w64-O0-hip.co", "llvm22-gfx90a-w64-O0-hip.co"])
def test_divergent_barrier_completes_with_the_flag_set(name):
    m, r = run_divergent(name, 1)
    assert r.status == "completed", r.reason
    assert read_buffer(m, m.buffers[0]) == expected_divergent(256)


@pytest.mark.parametrize("name", ["llvm22-gfx90a-w64-O2-hip.co", "llvm22-gfx942-w64-O2-hip.co"])
def test_divergent_barrier_hangs_without_the_flag(name):
    m, r = run_divergent(name, 0)
    assert r.status == "hang" and "repeats" in r.reason
    states = sorted((w.wave_in_group, w.state) for w in m.waves)
    spin = ("sleeping", "at waitcnt")  # the spin loop sleeps or waits for its load (vmcnt) when the state repeats
    assert [s for s in states if s[1] not in spin] == [(0, "at barrier"), (2, "at barrier")]
    assert [s[0] for s in states if s[1] in spin] == [1, 3]
    src = [m.wave_source(w)["line"] for w in sorted(m.waves, key=lambda w: w.wave_in_group)]
    assert src[0] == src[2] == 13 and src[1] == src[3] == 89


@pytest.mark.parametrize("name,lanes", [("llvm22-gfx90a-w64-O2-hip.co", 64), ("llvm22-gfx1030-w32-O2-hip.co", 32),
                                        ("llvm22-gfx1030-w64-O2-hip.co", 64), ("llvm19-gfx906-w64-O2-hip.co", 64)])
def test_probe_atomics_and_readfirstlane(name, lanes):
    """probe<int>: every work-item adds 1 to counters[0] (workgroup scope), readfirstlane(global) to counters[1]
    (agent scope), max(global) into counters[2]; then lanes wait for a flag only global 0 sets inside the
    same divergent branch, which the compiled code reaches after the spin: a SIMT deadlock."""
    m = Machine(CO / name)
    m.dispatch("probe<int>", (128, 1, 1), (64, 1, 1), ["buf:i32:128", "buf:i32:4", "buf:i32:1", "i32:5"])
    r = m.run(max_instructions=200_000)
    counters = read_buffer(m, m.buffers[1])
    firsts = range(0, 128, lanes)
    assert counters[:3] == [128, sum(f * lanes for f in firsts), 127]
    assert r.status == "hang"


def test_core_of_the_final_state_opens_in_the_debugger(tmp_path):
    import amddbg

    m, r = run_divergent("llvm22-gfx90a-w64-O2-hip.co", 0)
    out = tmp_path / "hang.gpu"
    m.write_core(str(out))
    prog = amddbg.open(out)
    states = [str(w.state) for w in prog.waves]
    assert states == ["at barrier", "spinning", "at barrier", "spinning"]
    assert [w.frames()[0].line for w in prog.waves] == [13, 89, 13, 89]
    # LDS as the kernel left it: stage[lane] = lane
    assert prog.read("local", 4 * 77, 4) == (77).to_bytes(4, "little")


def test_arg_specs_and_errors():
    assert parse_arg("i32:-3").value == -3 and parse_arg("f32:1.5").value == 1.5
    assert parse_arg("buf:u16:8:iota").count == 8
    for bad in ("i33:1", "i8:300", "buf:i32", "buf:i32:0", "buf:i32:4:maybe", "u32:x"):
        with pytest.raises(EmulatorError):
            parse_arg(bad)
    m = Machine(CO / "llvm22-gfx90a-w64-O2-hip.co")
    with pytest.raises(EmulatorError):
        m.dispatch("nope", (1, 1, 1), (1, 1, 1))
    with pytest.raises(EmulatorError):
        m.dispatch(DIVERGENT, (64, 1, 1), (2048, 1, 1), ["buf:i32:1", "buf:i32:1"])
    with pytest.raises(EmulatorError):
        m.dispatch(DIVERGENT, (64, 1, 1), (64, 1, 1), ["i32:1", "buf:i32:1"])


def test_run_cli_json_contract(tmp_path):
    core = tmp_path / "c.core"
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(CO / "llvm22-gfx90a-w64-O2-hip.co"), "--kernel",
                        "divergent_barrier", "--grid", "256", "--block", "256", "--arg", "buf:i32:256", "--arg",
                        "buf:i32:1:values=1", "--json", "--core", str(core), "--layout", "unified"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["status"] == "completed" and doc["wave_instructions"] > 0
    assert doc["buffers"][0]["arg"] == 0 and doc["buffers"][0]["values"] == expected_divergent(256)
    assert doc["buffers"][1]["values"] == [1]
    assert {w["state"] for w in doc["waves"]} == {"ended"} and len(doc["waves"]) == 4
    assert core.exists()
    bad = subprocess.run([sys.executable, "-m", "amddbg", "run", str(CO / "llvm22-gfx90a-w64-O2-hip.co"), "--kernel",
                          "divergent_barrier", "--grid", "0", "--block", "64"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("amddbg: error: ") and bad.stderr.count("\n") == 1


def test_run_cli_core_never_overwrites_an_input(tmp_path):
    """`--core OUT` naming the code object or a `file=` input is a one-line error and leaves the file alone."""
    import shutil

    co = tmp_path / "k.co"
    shutil.copy(CO / "llvm22-gfx90a-w64-O2-hip.co", co)
    data = tmp_path / "in.bin"
    data.write_bytes((1).to_bytes(4, "little"))
    before = {p: p.read_bytes() for p in (co, data)}
    base = [sys.executable, "-m", "amddbg", "run", str(co), "--kernel", "divergent_barrier", "--grid", "64",
            "--block", "64", "--arg", "buf:i32:64", "--arg", f"buf:i32:1:file={data}"]
    for out in (co, data, tmp_path / "." / "k.co"):
        r = subprocess.run(base + ["--core", str(out)], capture_output=True, text=True, timeout=120)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "would overwrite an input" in r.stderr, r.stderr
    assert {p: p.read_bytes() for p in (co, data)} == before
    ok = subprocess.run(base + ["--core", str(tmp_path / "out.core")], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr


def test_run_cli_core_that_cannot_be_written_is_one_line_before_the_run(tmp_path):
    """`--core` in a missing directory, naming a directory, or refused by the system when written: one line naming
    the path, exit 2, no traceback (the directory checks come before the run; the write's own failure after it)."""
    base = [sys.executable, "-m", "amddbg", "run", str(CO / "llvm22-gfx90a-w64-O2-hip.co"), "--kernel",
            "divergent_barrier", "--grid", "64", "--block", "64", "--arg", "buf:i32:64", "--arg", "buf:i32:1"]
    cases = [(tmp_path / "no" / "such" / "x.gpu", "no such directory"), (tmp_path, "names a directory"),
             (Path("/proc/amddbg-test.gpu"), "/proc/amddbg-test.gpu: ")]
    for out, said in cases:
        # --explore writes a core only for a hang (this kernel completes): its directory checks come first all the same
        for extra in ([], ["--explore", "2"]) if "/proc" not in str(out) else ([],):
            r = subprocess.run(base + extra + ["--core", str(out)], capture_output=True, text=True, timeout=120)
            assert r.returncode == 2, (out, extra, r.stderr)
            assert r.stderr.startswith("amddbg: error: ") and r.stderr.count("\n") == 1, r.stderr
            assert said in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_unsupported_instruction_stops_the_wave_with_its_text():
    m = Machine(CO / "llvm22-gfx1100-w32-O2-hip.co")
    m.dispatch("probe<int>", (64, 1, 1), (64, 1, 1), ["buf:i32:64", "buf:i32:4", "buf:i32:1", "i32:5"])
    r = m.run(max_instructions=50_000)
    if r.status == "unsupported":
        assert r.reason.startswith("unsupported instruction ") and " at 0x" in r.reason


def test_step_executes_one_instruction_round_robin():
    """Machine.step(): one instruction of the next ready wave each call, in turn; the same end as run()."""
    m = Machine(CO / "llvm22-gfx90a-w64-O2-hip.co")
    m.dispatch("divergent_barrier", (256, 1, 1), (256, 1, 1), ["buf:i32:256", "buf:i32:1:fill=1"])
    first = [m.step() for _ in range(4)]
    assert [ev.wave.index for ev in first] == [0, 1, 2, 3]
    assert all(ev.pc == first[0].pc for ev in first)  # every wave starts at the entry
    n = 4
    while m.step() is not None:
        n += 1
        assert n < 100_000
    assert all(w.state == "ended" for w in m.waves)
    assert read_buffer(m, m.buffers[0]) == expected_divergent(256)
