"""Issue 14, usability: 80-column terminals, piped output, warnings on stderr, several cores at once,
demangled kernel names, coremerge's output handling (folders, devices, full disk)."""

from __future__ import annotations

import errno
import io
import os
import re
import subprocess

import pytest
from conftest import CO_PATH, CORES, assert_one_line_error, run

from amddbg.cli.info_view import _Console

CORE = str(CORES / "gfx90a-divergent-barrier.gpu")
HOST, GPU = str(CORES / "gfx942-reduce.host.core"), str(CORES / "gfx942-reduce.gpu")


def _render_core(width: int) -> str:
    from amddbg.cli.core_info import render
    from amddbg.core import open_core

    out = io.StringIO()
    render(open_core(CORE), registers=True, console=_Console(file=out, width=width, highlight=False,
                                                             soft_wrap=False, color_system=None))
    return out.getvalue()


def test_wave_table_is_readable_at_80_columns():
    text = _render_core(80)
    lines = text.splitlines()
    assert max(len(ln.rstrip()) for ln in lines) <= 80
    # every wave's PC, exec mask and whole function name are on screen, none cut or folded
    for pc in ("0x7f3a40002388", "0x7f3a4000234c"):
        assert pc in text
    assert "0xffffffffffffffff" in text
    assert text.count("_Z17divergent_barrierPiS_+0x") == 4
    assert "…" not in text  # nothing cut: dispatch kernels and wave functions get lines of their own
    assert "    kernel _Z17divergent_barrierPiS_" in lines


def test_piped_output_never_wraps_identifiers():
    r = run(["info", str(CO_PATH)])
    assert r.returncode == 0
    names = ["_Z10scale_intoIiET_S0_PS0_i", "_Z17divergent_barrierPiS_", "_Z5probeIiEvPT_PiS2_i"]
    for n in names:  # grep finds each whole name on one line
        assert re.search(rf"(^|\W){re.escape(n)}(\W|$)", r.stdout, re.M), n
    assert "…" not in r.stdout
    r = run(["info", CORE])
    assert "memory://31337#offset=0x7f1200002000&size=18648" in r.stdout


def test_warnings_go_to_stderr(tmp_path):
    from amddbg.core.writer import CoreBuilder

    b = CoreBuilder(arch="gfx90a")
    b.add_agent("gfx90a", capability=0x8000)  # firmware bit missing: a warning
    p = tmp_path / "w.gpu"
    b.write_split(str(p))
    r = run(["info", str(p)])
    assert r.returncode == 0
    assert "firmware version" in r.stderr and "amddbg: warning:" not in r.stdout


def test_info_on_several_cores_shows_each():
    r = run(["info", CORE, str(CORES / "gfx1100-probe.core"), HOST, GPU, "--solib-search-path",
             str(CO_PATH.parent)])
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("Waves (") == 3
    assert "gfx90a" in r.stdout and "gfx1100" in r.stdout and "gfx942" in r.stdout
    import json

    j = json.loads(run(["info", "--json", CORE, str(CORES / "gfx1100-probe.core")]).stdout)
    assert [len(c["waves"]) for c in j["cores"]] == [4, 4]


@pytest.mark.parametrize("name", ["_Z17divergent_barrierPiS_", "divergent_barrier(int*, int*)", "divergent_barrier"])
def test_kernel_accepts_demangled_names(name):
    r = run(["info", str(CO_PATH), "--kernel", name])
    kernels = r.stdout.split("device")[0]
    assert r.returncode == 0 and "_Z17divergent_barrierPiS_" in kernels and "probeIi" not in kernels
    r = run(["info", CORE, "--kernel", name])
    assert r.returncode == 0 and "Waves (4)" in r.stdout


def test_kernel_names_a_device_function():
    r = run(["info", str(CO_PATH), "--kernel", "third_level"])
    assert_one_line_error(r)
    assert "third_level is a device function" in r.stderr and "not a kernel" in r.stderr


def test_kernel_template_name_matches_instantiations():
    r = run(["info", str(CO_PATH), "--kernel", "probe<int>"])
    assert r.returncode == 0 and "_Z5probeIiEvPT_PiS2_i" in r.stdout and "_Z5probeIfEvPT_PiS2_i" not in r.stdout


@pytest.mark.parametrize("out", ["{d}/missing/u.core", "{d}", "/dev/null", "{fifo}"])
def test_coremerge_output_errors(tmp_path, fifo, out):
    r = run(["coremerge", HOST, GPU, "-o", out.format(d=tmp_path, fifo=fifo), "-f"], timeout=120)
    assert_one_line_error(r)


def test_coremerge_failure_keeps_old_output(tmp_path):
    out = tmp_path / "u.core"
    out.write_bytes(b"previous output")
    r = run(["coremerge", HOST, str(CO_PATH), "-o", str(out), "-f"])  # second input is not a GPU core
    assert_one_line_error(r)
    assert out.read_bytes() == b"previous output"
    assert sorted(os.listdir(tmp_path)) == ["u.core"]  # no temp file left behind
    r = run(["coremerge", HOST, GPU, "-o", str(out), "-f"])
    assert r.returncode == 0 and out.read_bytes()[:4] == b"\x7fELF"
    assert os.stat(out).st_mode & 0o777 != 0o600 or os.umask(0o22) is None


def _tiny_tmpfs(path) -> bool:
    path.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(path)], capture_output=True)
    return r.returncode == 0


def test_coremerge_full_disk_is_one_line(tmp_path, monkeypatch):
    disk = tmp_path / "disk"
    if _tiny_tmpfs(disk):
        try:
            (disk / "u.core").write_bytes(b"old")
            r = run(["coremerge", HOST, GPU, "-o", str(disk / "u.core"), "-f"])
            assert_one_line_error(r)
            assert "No space left on device" in r.stderr
            assert (disk / "u.core").read_bytes() == b"old" and os.listdir(disk) == ["u.core"]
        finally:
            subprocess.run(["umount", str(disk)], check=False)
        return
    # no mount permission: make the writer's writes fail with ENOSPC instead
    from amddbg.core import merge
    from amddbg.errors import AmddbgError

    def full(*a, **k):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(merge, "write_core", full)
    with pytest.raises(AmddbgError, match="No space left on device"):
        merge.merge_cores(HOST, GPU, str(tmp_path / "u.core"))
    assert os.listdir(tmp_path) == ["disk"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("argv", [["info", CORE], ["info", "--json", str(CO_PATH)], ["disasm", str(CO_PATH)],
                                  ["addr2line", "-e", str(CO_PATH), "0x2800"], ["dwarf", "cfi", str(CO_PATH)]])
def test_output_to_a_full_disk_is_one_line(argv):
    """/dev/full fails every write with ENOSPC, like a full disk; small outputs fail at the final flush."""
    import sys

    with open("/dev/full", "w") as full:
        r = subprocess.run([sys.executable, "-c", "from amddbg.cli.main import entry; entry()", *argv],
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr == "amddbg: error: cannot write the output: No space left on device\n"


def test_info_on_a_core_and_a_code_object_shows_both():
    r = run(["info", CORE, str(CO_PATH)])
    assert r.returncode == 0 and "Waves (4)" in r.stdout and "4 kernel(s)" in r.stdout
    assert_one_line_error(run(["info", "--json", CORE, str(CO_PATH)]))
