"""A GPU core given with a host core that is not its other half (issue 23 section 2): every face warns with both
pids and says why, and the host core never replaces or hides the GPU core's own code objects, nor names the GPU's
waves with another run's code.

The inputs are written by `amddbg run --core` as a user would: `--layout pair` is what ROCr and the kernel write
(the GPU core holds agent memory only, the link map and the code object's bytes are in the host core), `split` a
GPU core that holds its own link map. Every run's core is process 4242, so the pids alone cannot tell two runs
apart: the link maps and the code at the load address do."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "corefiles" / "scenarios"
OTHER_PROCESS_HOST = ROOT / "corefiles" / "cores" / "gfx942-reduce.host.core"  # process 2024


def amddbg(*args, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                          timeout=600, stdin=subprocess.DEVNULL, **kw)


@pytest.fixture(scope="module")
def cores(tmp_path_factory) -> dict:
    """Run A (barrier_deadlock, -O2) as a pair and as a standalone GPU core; run B (spin_no_writer, -O0: another
    code object, loaded at the same address) as a pair."""
    d = tmp_path_factory.mktemp("pairs")
    a = ["run", SCEN / "scenarios-gfx90a.co", "--kernel", "barrier_deadlock", "--grid", "256", "--block", "256",
         "--arg", "buf:i32:1", "--arg", "buf:i32:256"]
    b = ["run", SCEN / "scenarios-gfx90a-O0.co", "--kernel", "spin_no_writer", "--grid", "128", "--block", "64",
         "--arg", "buf:i32:1", "--arg", "buf:i32:128", "--max-instructions", "200000"]
    for argv, core, layout in ((a, "a.gpu", "pair"), (a, "alone.gpu", "split"), (b, "b.gpu", "pair")):
        r = amddbg(*argv, "--core", d / core, "--layout", layout)
        assert r.returncode in (0, 3), r.stderr
    out = {name: d / name for name in ("a.gpu", "a.host.core", "alone.gpu", "b.gpu", "b.host.core")}
    assert all(p.exists() for p in out.values())
    return out


def repl(*files, commands=("info threads", "info sharedlibrary")) -> subprocess.CompletedProcess:
    argv = ["-batch"]
    for c in commands:
        argv += ["-ex", c]
    return amddbg(*argv, *files)


def test_run_writes_a_pair_whose_host_core_holds_the_link_map(cores):
    r = amddbg("run", "--help")
    assert "pair" in r.stdout
    alone = repl(cores["a.gpu"])  # the GPU half alone: the runtime's link map is in the host core
    assert "code objects unknown" in alone.stderr
    pair = repl(cores["a.gpu"], cores["a.host.core"])
    assert pair.returncode == 0 and NOT_A_PAIR not in pair.stderr, pair.stderr
    assert pair.stdout.count('"barrier_deadlock"') == 4 and "scenarios.hip:21" in pair.stdout
    assert "memory://4242#" in pair.stdout and "?? ()" not in pair.stdout.split("LWP 4242")[1].split("\n", 1)[1]


NOT_A_PAIR = "not a pair"


def _warning(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if NOT_A_PAIR in ln]
    assert len(lines) == 1, stderr
    return lines[0]


def test_gpu_core_with_its_own_link_map_keeps_its_code_objects(cores):
    """A standalone GPU core of run A with run B's host core: the link maps disagree; A's code objects stay."""
    for files in ((cores["alone.gpu"], cores["b.host.core"]), (cores["b.host.core"], cores["alone.gpu"])):
        r = repl(*files)
        w = _warning(r.stderr)
        assert w.startswith("amddbg: warning: b.host.core (process 4242) and alone.gpu (process 4242) are not a pair: "
                            "their link maps name different code objects; the GPU core's own code objects are used")
        assert r.stdout.count('"barrier_deadlock"') == 4 and "spin_no_writer" not in r.stdout
        assert re.search(r"memory://4242#offset=0x[0-9a-f]+&size=24576", r.stdout)  # A's object, not B's 55552
    info = amddbg("info", cores["alone.gpu"], cores["b.host.core"])
    assert info.returncode == 0 and "barrier_deadlock" in info.stdout
    assert _warning(info.stderr) == w
    exp = amddbg("explain", cores["alone.gpu"], cores["b.host.core"])
    assert _warning(exp.stderr) == w
    assert exp.returncode == 3 and exp.stdout.startswith("verdict: hang") and "scenarios.hip:19" in exp.stdout


def test_host_core_of_another_run_never_names_the_gpu_waves(cores):
    """The GPU half of run A's pair with run B's host core: the only link map is B's, and its code object is not
    the code A's GPU core holds at the load address; it is not used (B's names on A's waves would be wrong)."""
    for files in ((cores["a.gpu"], cores["b.host.core"]), (cores["b.host.core"], cores["a.gpu"])):
        r = repl(*files, commands=("info threads", "info sharedlibrary", "bt"))
        w = _warning(r.stderr)
        assert re.fullmatch(r"amddbg: warning: b\.host\.core \(process 4242\) and a\.gpu \(process unknown\) are not "
                            r"a pair: a\.gpu holds other code at 0x7f0000000000 than memory://4242#offset=0x[0-9a-f]+"
                            r"&size=55552 \(not used: its names would be wrong\); the host core's memory .*", w), w
        assert "spin_no_writer" not in r.stdout and "No shared libraries loaded" in r.stdout
        assert r.stdout.count("AMDGPU Wave") == 4  # A's waves are still shown, without names
    for argv in (("info",), ("explain",)):
        out = amddbg(*argv, cores["a.gpu"], cores["b.host.core"])
        assert "a.gpu holds other code at 0x7f0000000000" in _warning(out.stderr)
        assert "spin_no_writer" not in out.stdout


def test_host_core_of_another_process_warns_on_every_face(cores):
    """pids differ (the shipped host core is process 2024): REPL, info and explain say so with both pids."""
    gpu = cores["alone.gpu"]
    expected = f"gfx942-reduce.host.core is a core of process 2024, but {gpu.name} is of process 4242: not a pair"
    for argv in (("-batch", "-ex", "info threads"), ("info",), ("explain",)):
        r = amddbg(*argv, OTHER_PROCESS_HOST, gpu)
        assert expected in _warning(r.stderr), (argv, r.stderr)
        assert "barrier_deadlock" in r.stdout


def test_a_real_pair_from_the_other_run_is_not_warned_about(cores):
    for argv in (("-batch", "-ex", "info threads"), ("info",), ("explain",)):
        r = amddbg(*argv, cores["b.gpu"], cores["b.host.core"])
        assert NOT_A_PAIR not in r.stderr and "spin_no_writer" in r.stdout, (argv, r.stderr)
