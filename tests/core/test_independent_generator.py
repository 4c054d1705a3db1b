"""Cores written by an independent generator (tests/core/cgen/gen_core.c, plain C over the published
structs, sharing no code with amddbg's writer) are read correctly. Skipped when gcc is absent."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from amddbg.amdgpu import AddressSpace
from amddbg.core import open_core

SRC = Path(__file__).parent / "cgen" / "gen_core.c"
GCC = shutil.which("gcc") or shutil.which("cc")


@pytest.fixture(scope="module")
def generator(tmp_path_factory) -> Path:
    if GCC is None:
        pytest.skip("gcc not found: cannot build the independent core generator")
    exe = tmp_path_factory.mktemp("cgen") / "gen_core"
    subprocess.run([GCC, "-std=c11", "-O1", "-Wall", "-o", str(exe), str(SRC)], check=True)
    return exe


@pytest.mark.parametrize("arch", ["gfx90a", "gfx1100"])
def test_reads_independently_generated_core(generator, arch, tmp_path):
    out = tmp_path / f"gpucore.{arch}"
    expected = json.loads(
        subprocess.run([str(generator), str(out), arch], check=True, capture_output=True, text=True).stdout
    )
    core = open_core(out)
    assert core.layout == "split" and core.kfd_version == (1, 16)
    [agent] = core.agents
    assert (agent.gpu_id, agent.processor) == (expected["gpu_id"], arch)
    assert agent.exceptions == ["EC_QUEUE_WAVE_ILLEGAL_INSTRUCTION", "EC_DEVICE_MEMORY_VIOLATION"]
    assert core.kfd.entry_sizes == {"runtime_info": 24, "agent": 128, "queue": 64}
    [q] = core.queues
    assert q.queue_id == expected["queue_id"] and q.exceptions == ["EC_QUEUE_WAVE_TRAP"]
    [co] = core.code_objects
    assert (co.uri, co.load_address) == (expected["uri"], expected["load_address"])
    assert co.data == bytes(expected["code_object"])
    waves = core.waves
    assert core.warnings == []
    assert len(waves) == len(expected["waves"])
    for w, e in zip(waves, expected["waves"], strict=True):
        assert w.dispatch_id == e["dispatch_id"]
        assert list(w.dispatch.grid_size) == e["grid"]
        assert w.dispatch.kernel_descriptor.entry_address == e["entry"]
        assert list(w.workgroup) == e["workgroup"] and w.wave_in_group == e["wave_in_group"]
        assert (w.pc, w.exec, w.status, w.mode) == (e["pc"], e["exec"], e["status"], e["mode"])
        assert w.stopped == bool(e["stopped"])
        want = set()
        if e["stopped"]:
            want |= {1: {"breakpoint"}, 2: {"assert_trap"}}.get(e["trap_id"], set())
            if e["first"] and e["lds_seed"] == 0:  # wave 0 also has TRAPSTS.illegal_inst
                want.add("illegal_instruction")
        assert set(w.stop_reason) == want
        assert w.sgprs[: len(e["sgprs"])] == e["sgprs"]  # dbgapi shows every allocated SGPR
        assert w.vgprs == e["vgprs"]
        assert w.accvgprs == e["accvgprs"]
        assert w.record_begin == w.context_save_address + (64 if arch == "gfx90a" else 0) - e["record_size"]
        lds = w.lds
        assert lds is not None and len(lds) == 1024
        assert lds[:4] == bytes((e["lds_seed"] * 7 + i) & 0xFF for i in range(4))
        assert w.memory.read(AddressSpace.LOCAL, 1000, 2) == bytes((e["lds_seed"] * 7 + i) & 0xFF for i in (1000, 1001))
