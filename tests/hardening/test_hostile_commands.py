"""Issue 23 section 3: sizes and shapes a user (or a script) can type that used to exhaust memory, hang,
or end a batch with an internal error. Each case fails without its fix."""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

import pytest
from conftest import ROOT, assert_one_line_error, run

SCEN = ROOT / "corefiles" / "scenarios"
CORE = str(SCEN / "barrier-deadlock-gfx90a.gpu")
TEACH = str(ROOT / "corefiles" / "teach" / "divergence-gfx90a-O1.co")
RUN = ["run", TEACH, "--kernel", "divergence_demo", "--block", "64"]


def _no_internal(r) -> None:
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr[-2000:]


def test_batch_goes_on_after_python_level_failures(tmp_path):
    nest = tmp_path / "nest.gdb"  # 200 levels are an answer, as in gdb; 5000 a one-line error
    nest.write_text("print " + "(" * 200 + "1" + ")" * 200 + "\nprint " + "(" * 5000 + "1" + ")" * 5000 + "\n")
    r = run(["-batch", "-ex", "thread apply 1-999999999 bt 1", "-x", str(nest), "-ex", "print (char)1e400",
             "-ex", "echo still here\\n", CORE], timeout=120, data_limit=1 << 30)
    _no_internal(r)
    assert r.returncode == 1  # a command failed; the batch still ran to its end, as gdb's does
    assert "still here" in r.stdout
    assert r.stdout.count("\nThread ") == 4  # the four threads that exist, without building a 10^9 list
    assert "warning: Unknown threads 5-999999999" in r.stdout
    assert "$1 = 1" in r.stdout
    assert "amddbg: error: expression nested too deeply (more than 500 levels)" in r.stderr
    assert "amddbg: error: numeric overflow" in r.stderr


@pytest.mark.parametrize("cmd, want", [
    ("thread apply 9-999999999 bt", "Unknown threads 9-999999999"),
    ("info threads 3-4000000000", "Wave 1:1:1:4"),
])
def test_huge_thread_ranges_cost_what_the_core_has(cmd, want):
    r = run(["-batch", "-ex", cmd, CORE], timeout=60, data_limit=512 << 20)
    _no_internal(r)
    assert want in r.stdout + r.stderr


def test_thread_apply_flags_and_double_dash():
    r = run(["-batch", "-ex", "thread apply all -- print 7", "-ex", "thread apply 1-2 -q print 8", CORE])
    _no_internal(r)
    assert r.stdout.count("= 7") == 4 and r.stdout.count("Thread ") == 4
    assert r.stdout.count("= 8") == 2 and r.returncode == 0


def test_python_fifo_is_refused(fifo):
    r = run(["--python", str(fifo), CORE], timeout=60)
    assert_one_line_error(r)
    assert "FIFO" in r.stderr


def test_python_script_traceback_is_the_scripts(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("print(len(prog.threads))\ndef f():\n    return 1 / 0\nf()\n")
    r = run(["--python", str(script), CORE])
    assert r.returncode == 1 and r.stdout == "4\n"
    assert "internal error" not in r.stderr
    assert r.stderr.startswith("Traceback (most recent call last):")
    assert f'File "{script}", line 4' in r.stderr and "ZeroDivisionError: division by zero" in r.stderr
    assert "amddbg/cli" not in r.stderr  # amddbg's own frames are not the user's


@pytest.mark.parametrize("argv", [
    [*RUN, "--grid", "64", "--arg", "buf:i32:2", "--max-instructions", "-1"],
    [*RUN, "--grid", "64", "--arg", "buf:i32:2", "--max-instructions", "0"],
    ["divergence", TEACH, "--kernel", "divergence_demo", "--block", "64", "--grid", "64", "--arg", "buf:i32:2",
     "--max-instructions", "-1"],
])
def test_max_instructions_must_be_positive(argv):
    r = run(argv)
    assert r.returncode == 2 and "--max-instructions" in r.stderr and "positive" in r.stderr


def test_repl_divergence_max_instructions_must_be_positive():
    r = run(["-batch", "-ex", "divergence --kernel divergence_demo --grid 64 --block 64 --arg buf:i32:2 "
             "--max-instructions -1", TEACH])
    assert r.returncode == 1 and "not a positive count" in r.stderr


def test_grid_bound_is_checked_before_building_workgroups():
    # 67 million workgroups: the 65,536-wave bound answers at once, without a list of every workgroup
    r = run([*RUN, "--grid", "4294967295", "--arg", "buf:i32:2"], timeout=60, data_limit=512 << 20)
    assert_one_line_error(r)
    assert "67108864 waves" in r.stderr and "65,536" in r.stderr


def test_buffer_over_the_memory_budget_is_refused_before_allocation():
    # 200,000,000 i32 (800 MB, held three times while laid out) under a 1 GiB address-space budget
    r = run([*RUN, "--grid", "64", "--arg", "buf:i32:200000000:iota"], timeout=60,
            env={**os.environ, "AMDDBG_MEMORY_BUDGET": "1G"})
    assert_one_line_error(r)
    assert "2.2 GiB" in r.stderr and "memory budget of 1.0 GiB" in r.stderr and "AMDDBG_MEMORY_BUDGET" in r.stderr


def test_memory_budget_follows_ulimit():
    import resource
    import subprocess

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    r = subprocess.run([sys.executable, "-m", "amddbg", *RUN, "--grid", "64", "--arg", "buf:i32:200000000"],
                       capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert_one_line_error(r)
    assert "half of ulimit -v (3.0 GiB)" in r.stderr


def _memsz_core(tmp_path: Path, src: str = CORE) -> Path:
    """`src` with the first PT_LOAD of each embedded code object (the loaded image and the memory:// copy)
    claiming p_memsz = 1 TiB; p_filesz and the bytes are unchanged."""
    d = bytearray(Path(src).read_bytes())
    i = d.find(b"\x7fELF", 1)
    n = 0
    while i >= 0:
        if struct.unpack_from("<H", d, i + 18)[0] == 0xE0:
            phoff, phnum = struct.unpack_from("<Q", d, i + 32)[0], struct.unpack_from("<H", d, i + 56)[0]
            for k in range(phnum):
                b = i + phoff + 56 * k
                if struct.unpack_from("<I", d, b)[0] == 1:
                    struct.pack_into("<Q", d, b + 40, 1 << 40)
                    n += 1
                    break
        i = d.find(b"\x7fELF", i + 1)
    assert n == 2
    p = tmp_path / "memsz.gpu"
    p.write_bytes(d)
    return p


@pytest.mark.parametrize("argv, want", [
    (["explain", "{f}"], "verdict: hang"),
    (["repl", "{f}"], "Explain: hang"),  # the start-up summary runs the replay
    (["repl", "-batch", "-ex", "thread apply all bt", "-ex", "explain", "{f}"], "verdict: hang"),
], ids=["explain", "summary", "batch"])
def test_terabyte_p_memsz_maps_only_what_is_used(tmp_path, argv, want):
    core = _memsz_core(tmp_path)
    r = run([a.format(f=core) for a in argv], timeout=120, data_limit=1 << 30)
    _no_internal(r)
    assert want in r.stdout, (r.stdout[-1500:], r.stderr[-1500:])


def _without_dac(argv: list[str]) -> list[str]:
    """Run as this user without the capabilities that let root read any directory (so chmod 000 bites)."""
    import shutil

    if os.geteuid() != 0:
        return argv
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a chmod 000 directory stays listable")
    drop = "-dac_override,-dac_read_search"
    return ["setpriv", "--bounding-set", drop, "--inh-caps", drop, *argv]


def test_triage_unlistable_directory_and_symlinked_duplicates(tmp_path):
    import shutil
    import subprocess

    real = tmp_path / "real"
    real.mkdir()
    for name in ("barrier-deadlock-gfx90a.gpu", "lds-spin-gfx90a.gpu"):
        shutil.copyfile(SCEN / name, real / name)
    (tmp_path / "link").symlink_to(real)
    locked = tmp_path / "locked"
    locked.mkdir()
    shutil.copyfile(SCEN / "lds-spin-gfx942.gpu", locked / "x.gpu")
    locked.chmod(0)
    try:
        argv = _without_dac([sys.executable, "-m", "amddbg", "triage", "--json", str(real), str(tmp_path / "link"),
                             str(real / "lds-spin-gfx90a.gpu"), str(locked)])
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        only = subprocess.run(_without_dac([sys.executable, "-m", "amddbg", "triage", str(locked)]),
                              capture_output=True, text=True, timeout=120)
    finally:
        locked.chmod(0o755)
    _no_internal(r)
    import json

    doc = json.loads(r.stdout)
    assert r.returncode == 0
    assert doc["waves"] == 5  # each core once, though reached three ways
    assert "cannot list the directory: Permission denied" in r.stdout
    assert_one_line_error(only)
    assert "cannot list the directory: Permission denied" in only.stderr


def test_packet_lds_size_from_the_core_is_bounded(tmp_path):
    """The dispatch packet's group_segment_size (a u32 in the core) sized one LDS bytearray per workgroup:
    4 GiB each for 0xffffffff. Replay now refuses it by name; the rest of the core's view is unchanged."""
    from amddbg.core import open_core

    with open_core(CORE) as core:
        addr = core.dispatches[0].packet_address + 28  # hsa_kernel_dispatch_packet_t.group_segment_size
        seg = core._segments.find(addr)
        off = seg.offset + addr - seg.vaddr
    d = bytearray(Path(CORE).read_bytes())
    assert struct.unpack_from("<I", d, off)[0] < 1 << 16
    struct.pack_into("<I", d, off, 0xFFFFFFFF)
    p = tmp_path / "lds.gpu"
    p.write_bytes(d)
    r = run(["explain", str(p)], timeout=120, data_limit=1 << 30)
    _no_internal(r)
    assert "group_segment_size is 4294967295 bytes, more LDS than any AMD GPU has" in r.stdout
    r = run(["-batch", "-ex", "bt", str(p)], timeout=120, data_limit=1 << 30)
    assert r.returncode == 0 and "#0" in r.stdout
