"""Issue 14: cores that AMD's debugger library (ROCdbgapi 0.77) would open, and the reader warning as
dbgapi does when an agent could not have been debugged."""

from __future__ import annotations

import pytest
from conftest import CO_PATH, CORES

from amddbg.core import open_core
from amddbg.core.elffile import ElfCore
from amddbg.core.host import NT_PRPSINFO, parse_prpsinfo
from amddbg.core.kfd import (
    AGENT_PROFILES,
    HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED,
    HSA_CAP_TRAP_DEBUG_SUPPORT,
    NOTE_NAME,
    NT_AMDGPU_KFD_CORE_STATE,
)
from amddbg.core.layouts import NOTE_HEADER
from amddbg.core.writer import CoreBuilder, HostImage

DEMO = [["gfx90a-divergent-barrier.gpu"], ["gfx1100-probe.core"], ["gfx942-reduce.host.core", "gfx942-reduce.gpu"]]


def _open(names):
    return open_core([str(CORES / n) for n in names], solib_search_path=str(CO_PATH.parent))


@pytest.mark.parametrize("names", DEMO, ids=lambda n: n[-1])
def test_demo_agents_are_what_real_boards_report(names):
    core = _open(names)
    assert core.agents
    for a in core.agents:
        e = a.entry
        assert e["capability"] & HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED and e["capability"] & HSA_CAP_TRAP_DEBUG_SUPPORT
        for k in ("fw_version", "device_id", "location_id", "vendor_id", "debug_prop", "simd_count",
                  "max_waves_per_simd", "array_count", "simd_arrays_per_engine", "num_xcc"):
            assert e[k], (a.processor, k)
        assert e["device_id"] == AGENT_PROFILES[a.processor]["device_id"]
    assert not [w for w in core.warnings if "dbgapi" in w or "firmware" in w], core.warnings
    assert 8 <= core.r_version <= 10


@pytest.mark.parametrize("names", DEMO, ids=lambda n: n[-1])
def test_note_sizes_multiple_of_8_and_consumed_exactly(names):
    for n in names:
        f = ElfCore(str(CORES / n))
        for note in f.notes:
            if note.name == NOTE_NAME and note.type == NT_AMDGPU_KFD_CORE_STATE:
                d = bytes(note.desc)
                h = NOTE_HEADER.unpack(d, 8)
                sizes = (h["runtime_info_size"], h["agent_entry_size"], h["queue_entry_size"])
                assert all(s % 8 == 0 for s in sizes)
                assert 8 + NOTE_HEADER.size + sizes[0] + h["agent_entry_count"] * sizes[1] + \
                    h["queue_entry_count"] * sizes[2] == len(d)


def test_unified_and_host_cores_have_prpsinfo():
    for name, pid in (("gfx1100-probe.core", 4711), ("gfx942-reduce.host.core", None)):
        notes = [n for n in ElfCore(str(CORES / name)).notes if n.name == "CORE" and n.type == NT_PRPSINFO]
        assert len(notes) == 1, name
        info = parse_prpsinfo(bytes(notes[0].desc))
        assert info["pid"] > 1 and (pid is None or info["pid"] == pid)
    core = _open(["gfx1100-probe.core"])
    assert core.host.process["pid"] == 4711 == core.host.threads[0].tid


def test_reader_warns_like_dbgapi(tmp_path):
    b = CoreBuilder(arch="gfx90a")
    b.add_agent("gfx90a", capability=HSA_CAP_TRAP_DEBUG_SUPPORT, fw_version=0, simd_count=0)
    p = tmp_path / "old.gpu"
    b.write_split(str(p))
    w = " | ".join(open_core(p).warnings)
    assert "firmware version 0 not supported" in w and "HSA_CAP_TRAP_DEBUG_FIRMWARE_SUPPORTED" in w
    assert "simd_count" in w and "Invalid node properties" in w


def test_r_version_outside_8_to_10_is_warned(tmp_path):
    from amddbg.core.layouts import R_DEBUG

    b = CoreBuilder(arch="gfx90a")
    b.add_code_object(CO_PATH.read_bytes(), load_address=0x7000_0000_0000)
    p = tmp_path / "r7.gpu"
    b.write_split(str(p))
    core = open_core(p)
    rd_addr = core.runtime_info["r_debug"]
    raw = bytearray(p.read_bytes())
    # patch r_version in the file: find the r_debug bytes (unique: r_version 10 then r_map)
    rd = R_DEBUG.pack(dict(core.r_debug))
    at = raw.find(rd)
    assert at > 0 and rd_addr
    raw[at : at + 4] = (7).to_bytes(4, "little")
    p.write_bytes(raw)
    core = open_core(p)
    core.code_objects  # noqa: B018 - walks r_debug
    assert any("r_version is 7" in w for w in core.warnings)


def test_all_allocated_sgprs_are_exposed(tmp_path):
    b = CoreBuilder(arch="gfx90a")
    q = b.add_queue()
    d = b.add_dispatch(q, entry=0x7000_1000)
    b.add_wave(d, pc=0x7000_1010, sgprs=list(range(1, 11)), sgpr_count=64, vgprs=[[0] * 64] * 4)
    p = tmp_path / "s.gpu"
    b.write_split(str(p))
    w = open_core(p).waves[0]
    assert len(w.sgprs) == 64  # s0..s63 as dbgapi shows them, alias slots included
    assert w.sgprs[:10] == list(range(1, 11))
    demo = _open(["gfx90a-divergent-barrier.gpu"]).waves[0]
    assert len(demo.sgprs) == demo.sizes.sgprs  # the whole allocation


def test_split_host_core_from_builder_has_prpsinfo(tmp_path):
    b = CoreBuilder(arch="gfx942", pid=777)
    g, h = tmp_path / "g.gpu", tmp_path / "h.core"
    b.write_split(str(g), host_path=str(h), host=HostImage(threads=[(777, {"rip": 1}, 11)], fname="app"))
    notes = [n for n in ElfCore(str(h)).notes if n.type == NT_PRPSINFO]
    info = parse_prpsinfo(bytes(notes[0].desc))
    assert info["pid"] == 777 and info["fname"] == "app"
