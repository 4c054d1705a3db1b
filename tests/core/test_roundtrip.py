"""Round trip: build -> write -> read gives back every field and every wave's registers, for each
architecture family, in the split layout, the split pair (host core + GPU core) and the unified layout."""

from __future__ import annotations

from pathlib import Path

import pytest
from core_scenarios import ARCHS, Scenario, build

from amddbg.amdgpu import AddressSpace
from amddbg.core import open_core
from amddbg.core.writer import HostImage

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "co" / "llvm22-gfx90a-w64-O2-hip.co"


def write(sc: Scenario, tmp_path: Path, layout: str) -> list[Path]:
    host = HostImage(threads=[(sc.builder.pid, {"rip": 0x401000, "rsp": 0x7FFD0}, 6)])
    if layout == "split":
        p = tmp_path / "gpucore.gpu"
        sc.builder.write_split(str(p))
        return [p]
    if layout == "pair":
        g, h = tmp_path / "gpucore.gpu", tmp_path / "host.core"
        sc.builder.write_split(str(g), host_path=str(h), host=host)
        return [h, g]
    p = tmp_path / "unified.core"
    sc.builder.write_unified(str(p), host=host)
    return [p]


def check(sc: Scenario, paths: list[Path], layout: str) -> None:
    core = open_core(paths if len(paths) > 1 else paths[0])
    assert core.layout == ("unified" if layout == "unified" else "split")
    assert core.kfd_version == (1, 15)
    assert core.warnings == []
    [agent] = core.agents
    assert (agent.gpu_id, agent.processor, agent.num_xcc) == (sc.gpu_id, sc.arch, sc.num_xcc)
    assert agent.exceptions == ["EC_QUEUE_WAVE_TRAP"]
    assert [(q.queue_id, q.ring_size) for q in core.queues] == sc.queues
    assert [(c.uri, c.load_address) for c in core.code_objects] == [(u, a) for u, a, _ in sc.code_objects]
    for ref, (_, _, data) in zip(core.code_objects, sc.code_objects, strict=True):
        assert ref.data == data
    got = {(w.queue_id, w.dispatch_id, w.workgroup, w.wave_in_group): w for w in core.waves}
    assert len(got) == len(core.waves) == len(sc.waves)
    for e in sc.waves:
        w = got[(e.queue_id, e.dispatch_id, e.workgroup, e.wave_in_group)]
        assert w.gpu_id == sc.gpu_id and w.xcc_id == e.xcc
        d = w.dispatch
        assert (d.grid_size, d.workgroup_size, d.kernel_object) == (e.grid, e.wg_size, e.kernel_object)
        assert d.kernel_descriptor.entry_address == e.entry
        assert (w.pc, w.exec, w.status, w.trapsts, w.mode) == (e.pc, e.exec, e.status, e.trapsts, e.mode)
        assert w.stop_reason == e.stop_reason
        assert w.wave_size == e.wave_size
        assert w.sgprs[: len(e.sgprs)] == e.sgprs and len(w.sgprs) >= len(e.sgprs)  # all allocated SGPRs shown
        assert w.vgprs == e.vgprs
        assert w.accvgprs == e.accvgprs
        assert w.lds == e.lds
        if e.lds:
            assert w.memory.read(AddressSpace.LOCAL, 5, 7) == e.lds[5:12]
    # dispatches: one per (queue, packet id), each with its packet
    assert {(d.queue_id, d.dispatch_id) for d in core.dispatches} == {(e.queue_id, e.dispatch_id) for e in sc.waves}
    if layout != "split":
        [t] = core.host.threads
        assert t.tid == sc.builder.pid and t.pc == 0x401000 and t.registers["rsp"] == 0x7FFD0
    core.close()


@pytest.mark.parametrize("layout", ["split", "pair", "unified"])
@pytest.mark.parametrize("arch", ARCHS)
def test_roundtrip(arch, layout, tmp_path):
    sc = build(arch, seed=ARCHS.index(arch) + 1, code_object=CO.read_bytes())
    check(sc, write(sc, tmp_path, layout), layout)


@pytest.mark.parametrize("arch", ["gfx1030", "gfx1100", "gfx1201"])
def test_roundtrip_wave64_gfx10plus(arch, tmp_path):
    sc = build(arch, seed=11, wave_size=64)
    check(sc, write(sc, tmp_path, "split"), "split")


@pytest.mark.parametrize("arch", ["gfx90a", "gfx942", "gfx1100"])
def test_roundtrip_multi_xcc(arch, tmp_path):
    sc = build(arch, seed=5, num_xcc=2, groups=3)
    check(sc, write(sc, tmp_path, "split"), "split")
