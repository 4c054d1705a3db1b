"""`amddbg info` on code objects and containers: the JSON contract of the issue and the human view."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from amddbg.cli.main import main
from tests.codeobj import readelf_ref
from tests.conftest import CORPUS, host_objects


def _json(capsys, *argv):
    assert main(["info", "--json", *argv]) == 0
    return json.loads(capsys.readouterr().out)


def test_code_object_document(capsys):
    path = CORPUS / "llvm22-gfx942-w64-O2-hip.co"
    doc = _json(capsys, str(path))
    assert doc["processor"] == "gfx942"
    assert doc["target_id"].startswith("amdgcn-amd-amdhsa--gfx942")
    assert doc["code_object_version"] == 6 and doc["os_abi"] == "amdhsa"
    ref = readelf_ref.load(path.with_name(path.name + ".readelf.txt")).metadata["amdhsa.kernels"]
    assert [k["name"] for k in doc["kernels"]] == [k[".name"] for k in ref]
    for ours, theirs in zip(doc["kernels"], ref, strict=True):
        for key, value in theirs.items():
            if key == ".args":
                assert len(ours["args"]) == len(value)
                for a, b in zip(ours["args"], value, strict=True):
                    assert a == {k[1:]: v for k, v in b.items()}
            else:
                assert ours[key[1:]] == value, key
        for key in ("wavefront_size", "sgpr_count", "vgpr_count", "agpr_count", "group_segment_fixed_size",
                    "private_segment_fixed_size", "kernarg_segment_size", "max_flat_workgroup_size"):
            assert isinstance(ours[key], int)
        d = ours["descriptor"]
        assert d["compute_pgm_rsrc1"]["raw"] > 0 and "granulated_workitem_vgpr_count" in d["compute_pgm_rsrc1"]
        assert d["kernarg_size"] == ours["kernarg_segment_size"]


def test_kernel_filter_and_unknown_kernel(capsys):
    path = str(CORPUS / "llvm19-gfx1100-w32-O2-cl.co")
    doc = _json(capsys, "--kernel", "reduce", path)
    assert [k["name"] for k in doc["kernels"]] == ["reduce"]
    assert main(["info", "--kernel", "nope", path]) == 2
    assert "no kernel named 'nope'" in capsys.readouterr().err


def test_container_document(capsys):
    path = next(p for p in host_objects() if "compressed" not in p.name)
    doc = _json(capsys, str(path))
    entries = doc["code_objects"]
    devices = [e for e in entries if "processor" in e]
    assert {e["processor"] for e in devices} == {"gfx90a", "gfx1100"}
    for e in devices:
        assert {"bundle_entry_id", "offset", "size", "kernels", "target_id"} <= set(e)
        assert e["bundle_entry_id"].endswith(e["processor"])


def test_human_output_names_kernels_and_functions(capsys):
    assert main(["info", "--args", str(CORPUS / "llvm22-gfx90a-w64-O0-hip.co")]) == 0
    out = capsys.readouterr().out
    assert "_Z5probeIiEvPT_PiS2_i" in out and "_Z11third_leveli" in out
    assert "compute_pgm_rsrc2" in out and "global_buffer" in out


def test_console_script_entry_point_and_missing_file():
    r = subprocess.run([sys.executable, "-m", "amddbg", "info", "/nonexistent/x.co"], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr == "amddbg: error: /nonexistent/x.co: cannot read: No such file or directory\n"


@pytest.mark.parametrize("argv", [["info"], ["info", "--bogus", "x"]])
def test_usage_errors_exit_2(argv):
    r = subprocess.run([sys.executable, "-m", "amddbg", *argv], capture_output=True, text=True)
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_truncated_code_object_shows_what_it_can(tmp_path, capsys):
    """Cut before the section headers: the ELF header, program headers and note are still there, so the
    processor and the kernels from the metadata are shown; the damage is the one-line error (exit 2)."""
    data = (CORPUS / "llvm22-gfx90a-w64-O2-cl.co").read_bytes()
    path = tmp_path / "cut.co"
    path.write_bytes(data[:11000])
    assert main(["info", "--json", str(path)]) == 2
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert doc["processor"] == "gfx90a" and [k["name"] for k in doc["kernels"]] == ["probe", "reduce"]
    assert doc["errors"] and all(k["descriptor"] is None for k in doc["kernels"])
    assert err.startswith("amddbg: error: partial result: ") and len(err.strip().splitlines()) == 1
    assert "section header table extends past end of file" in err


def test_output_into_a_closed_pipe_exits_quietly():
    path = CORPUS / "llvm22-gfx90a-w64-O0-hip.co"
    r = subprocess.run(f"{sys.executable} -m amddbg info --args {path} | head -1", shell=True,
                       capture_output=True, text=True)
    assert r.stderr == "" and r.stdout.strip()


def test_core_waves_have_source_lines(capsys):
    """The demo hang core: waves at s_barrier map (through the inlined workgroup_barrier) to the source
    line holding __builtin_amdgcn_s_barrier, spinning waves to the s_sleep(2) line of the spin loop."""
    src = (CORPUS.parent / "src" / "probe.hip").read_text().splitlines()
    barrier_line = 1 + next(i for i, t in enumerate(src) if "__builtin_amdgcn_s_barrier()" in t)
    sleep_line = 1 + next(i for i, t in enumerate(src) if "__builtin_amdgcn_s_sleep(2)" in t)
    doc = _json(capsys, str(CORPUS.parent / "cores" / "gfx90a-divergent-barrier.gpu"))
    lines = [(w["wave_in_group"], w["source"]["line"], w["source"]["file"].endswith("probe.hip"))
             for w in doc["waves"]]
    assert lines == [(0, barrier_line, True), (1, sleep_line, True), (2, barrier_line, True),
                     (3, sleep_line, True)]
