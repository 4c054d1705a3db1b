"""The demo cores in corefiles/cores/ (made by corefiles/make_demo_cores.py from real corpus code objects):
reproducible from the script, and their waves stop at real instructions of the kernels they name (checked
against the stored llvm-objdump reference dumps)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.amdgpu import AddressSpace
from amddbg.core import open_core

ROOT = Path(__file__).resolve().parents[2]
CORES = ROOT / "corefiles" / "cores"
CO = ROOT / "corefiles" / "co"


def objdump_addresses(co_name: str) -> dict[int, str]:
    """{address: mnemonic} from the stored llvm-objdump dump (the external oracle)."""
    out = {}
    for line in (CO / f"{co_name}.objdump.txt").read_text().splitlines():
        m = re.match(r"^\t(\S+).*// ([0-9A-F]{12}):", line)
        if m:
            out[int(m.group(2), 16)] = m.group(1)
    return out


def test_demo_cores_are_reproducible(tmp_path):
    script = ROOT / "corefiles" / "make_demo_cores.py"
    subprocess.run([sys.executable, str(script), "--out", str(tmp_path)], check=True, capture_output=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in CORES.iterdir())
    for p in sorted(CORES.iterdir()):
        assert (tmp_path / p.name).read_bytes() == p.read_bytes(), p.name
        assert p.stat().st_size < 300_000


def test_gfx90a_divergent_barrier():
    core = open_core(CORES / "gfx90a-divergent-barrier.gpu")
    assert core.layout == "split" and core.warnings == []
    [co] = core.code_objects
    assert co.uri.startswith("memory://31337#offset=") and co.data == (CO / "llvm22-gfx90a-w64-O2-hip.co").read_bytes()
    insns = objdump_addresses("llvm22-gfx90a-w64-O2-hip.co")
    [d] = core.dispatches
    assert core.kernel_name(d) == "_Z17divergent_barrierPiS_"
    assert d.kernel_descriptor.entry_address - co.load_address == 0x2300  # the kernel symbol in objdump
    seen = []
    for w in core.waves:
        rel = w.pc - co.load_address
        seen.append(insns[rel])
        assert core.symbolize(w.pc)[1] == "_Z17divergent_barrierPiS_"
        # the code at the PC is the loaded image of the code object
        assert core.memory.read(AddressSpace.GLOBAL, w.pc, 4) == co.codeobj.read_address(rel, 4)
    # waves 0 and 2 take the `lane & 64 == 0` branch to the barrier; 1 and 3 spin on the flag
    assert seen == ["s_barrier", "s_sleep", "s_barrier", "s_sleep"]
    # every wave of the workgroup sees the workgroup's LDS (saved with its first wave): stage[i] = i
    assert core.waves[1].lds == b"".join(i.to_bytes(4, "little") for i in range(256))


def test_gfx1100_unified_assert_and_host():
    core = open_core(CORES / "gfx1100-probe.core")
    assert core.layout == "unified" and core.warnings == []
    insns = objdump_addresses("llvm22-gfx1100-w32-O2-hip.co")
    [co] = core.code_objects
    stopped = [w for w in core.waves if w.stop_reason]
    assert len(stopped) == 1 and stopped[0].stop_reason == ["assert_trap"]
    assert insns[stopped[0].pc - co.load_address].startswith("global_store")
    assert all(w.wave_size == 32 and (w.pc - co.load_address) in insns for w in core.waves)
    t = core.host.threads[0]
    assert t.tid == 4711 and t.signal == 6
    assert core.host.disassemble(core.memory, t.pc, 1)[0][1] == "ud2"
    assert core.host.mappings[0].path == "/opt/demo/bin/probe"


def test_gfx942_split_pair_with_file_uri(tmp_path):
    host, gpu = CORES / "gfx942-reduce.host.core", CORES / "gfx942-reduce.gpu"
    core = open_core([host, gpu], solib_search_path=[str(CO)])
    assert core.layout == "split" and core.agents[0].num_xcc == 2
    assert {w.xcc_id for w in core.waves} == {0, 1}
    [co] = core.code_objects
    assert co.uri == "file:///opt/rocm/demo/llvm22-gfx942-w64-O0-cl.co"
    assert core.kernel_name(core.dispatches[0]) == "reduce"
    insns = objdump_addresses("llvm22-gfx942-w64-O0-cl.co")
    assert all(insns[w.pc - co.load_address] == "s_barrier" for w in core.waves)
    # without the search path the code object is named but its bytes are unavailable
    assert open_core([host, gpu]).code_objects[0].uri == co.uri
    with pytest.raises(Exception, match="not found"):
        open_core([host, gpu]).code_objects[0].data  # noqa: B018
