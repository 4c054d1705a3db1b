"""The session API on the demo cores (host + GPU pair, unified), on damaged copies, and the chain core's
registers and per-wave address spaces. Expected values come from how the cores were built
(corefiles/make_demo_cores.py, tests/session/chain_core.py), not from amddbg."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

import amddbg
from amddbg.errors import AmddbgError, Unavailable
from amddbg.session import WaveState

ROOT = Path(__file__).resolve().parents[2]
CORES = ROOT / "corefiles" / "cores"
PAIR = [CORES / "gfx942-reduce.gpu", CORES / "gfx942-reduce.host.core"]
UNIFIED = CORES / "gfx1100-probe.core"
DEMO = CORES / "gfx90a-divergent-barrier.gpu"


def test_host_gpu_pair_threads_and_file_code_object():
    # the code object is a file:// URI under /opt/rocm/demo: without a search path it is missing (a warning,
    # frames say why) but the waves, their ids and register-derived states are still there
    prog = amddbg.open(PAIR)
    host = [t for t in prog.threads if not t.is_wave]
    assert [(t.number, t.target_id) for t in host] == [(1, "LWP 2024")]
    assert [w.number for w in prog.waves] == list(range(2, 2 + len(prog.waves)))
    assert prog.waves[0].target_id == "AMDGPU Wave 1:1:1:1 (0,0,0)/0"  # dbgapi handles count from 1
    assert any("llvm22-gfx942-w64-O0-cl.co" in w and "not found" in w for w in prog.warnings)
    f = prog.waves[0].frames()
    assert len(f) == 1 and f[0].function is None and "no loaded code object" in f[0].stop_reason
    # with the search path, the same waves sit at the barrier of the OpenCL kernel's body
    prog = amddbg.open(PAIR, solib_search_path=str(ROOT / "corefiles" / "co"))
    assert len(prog.code_objects) == 1 and not prog.warnings
    states = {w.state for w in prog.waves}
    assert states == {WaveState.AT_BARRIER}
    f0 = prog.waves[0].frames()[0]
    assert f0.function == "__clang_ocl_kern_imp_reduce" and f0.file.endswith("probe.cl") and f0.line == 71
    assert prog.waves[0].state_reason == "waiting at s_barrier"


def test_unified_core_states_and_host_threads():
    prog = amddbg.open(UNIFIED)
    assert [t.target_id for t in prog.threads if not t.is_wave] == ["LWP 4711", "LWP 4712"]
    by_state = {w.target_id: (w.state, w.state_reason) for w in prog.waves}
    assert by_state["AMDGPU Wave 1:1:1:3 (1,0,0)/0"] == (WaveState.TRAPPED, "assert_trap")
    trapped = next(w for w in prog.waves if w.state is WaveState.TRAPPED)
    (f,) = trapped.frames()
    assert f.function == "void probe<int>(int*, int*, int*, int)" and f.line == 66 and f.method == "context"
    # host threads have one frame and say why there are no more
    h = prog.threads[0].frames()
    assert len(h) == 1 and h[0].method == "host" and h[0].pc == 0x5555_5555_9123


def test_inputs_are_never_written(tmp_path):
    files = [DEMO, UNIFIED, *PAIR]
    before = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in files}
    for paths in ([DEMO], [UNIFIED], PAIR):
        prog = amddbg.open(paths, solib_search_path=str(ROOT / "corefiles" / "co"))
        for w in prog.waves:
            for f in w.frames():
                for v in f.arguments() + f.locals():
                    v.lane_values().format()
        prog.close()
    after = {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in files}
    assert before == after


def test_truncated_core_still_opens(tmp_path):
    data = DEMO.read_bytes()
    # 99 %: the end of the last segment (LDS) is cut: waves, frames and registers stay, LDS is unavailable
    cut = tmp_path / "cut99.gpu"
    cut.write_bytes(data[:len(data) * 99 // 100])
    prog = amddbg.open(cut)
    assert any("truncated" in w for w in prog.warnings)
    assert len(prog.waves) == 4
    assert [f.function for f in prog.waves[0].frames()] == ["workgroup_barrier()", "divergent_barrier(int*, int*)"]
    assert prog.evaluate("$v0", lane=3).to_int() == 3
    with pytest.raises(Unavailable):
        prog.read("local", 0, 4)
    # half a core: it opens with warnings and no waves (their records are gone); nothing raises
    half = tmp_path / "cut50.gpu"
    half.write_bytes(data[:len(data) // 2])
    prog = amddbg.open(half)
    assert prog.warnings and prog.waves == []
    # not a core nor a code object: one AmddbgError, no traceback from deep inside
    junk = tmp_path / "junk.gpu"
    junk.write_bytes(b"\x7fELF" + b"\0" * 60)
    with pytest.raises(AmddbgError):
        amddbg.open(junk)


def test_chain_core_registers_and_private_spaces(chain_core):
    import chain_core as cc

    path, exp = chain_core
    prog = amddbg.open(path)
    w = prog.waves[0]
    assert w.target_id == "AMDGPU Wave 1:1:1:1 (1,0,0)/0"
    regs = w.registers
    assert regs.read_named("s32") == 0x1C00 and regs.read_named("s33") == 0x1800
    ra_first = cc.LOAD + exp["ra"][2]
    assert regs.read_named("v10", lane=0) == ra_first & 0xFFFFFFFF and regs.read_named("v10", lane=5) == 0xA005
    with pytest.raises(Unavailable):
        regs.read_named("v10")  # a vector register needs a lane
    assert prog.evaluate("$s33").to_int() == 0x1800
    assert prog.evaluate("$v10", lane=1).to_int() == ra_first >> 32
    # private_wave: unswizzled offsets into the wave's scratch slot (what the core put at SCRATCH + 0x1400)
    assert prog.read("private_wave", 0x1400, 4) == bytes((0x10, 0x11, 0x12, 0x13))
    assert prog.read("private_wave", 0x1800, 2) == bytes((0x60, 0x61))
    # private_lane: dword-swizzled (lane L's dword at address A lives at (A/4)*64*4 + 4L in the slot)
    for lane in (0, 1, 31, 63):
        want = bytes((0x10 + 4 * lane + i) & 0xFF for i in range(4))
        assert prog.read("private_lane", 0x50, 4, lane=lane) == want
        got = prog.evaluate("*(int private_lane *)0x50", lane=lane).to_int()
        assert got == int.from_bytes(want, "little", signed=True)
    prog.select_lane(2)
    assert prog.read("private_lane", 0x50, 4) == bytes((0x18, 0x19, 0x1A, 0x1B))  # the focused lane
    # generic: the buffer the lanes' v0 point at
    assert prog.read("generic", cc.ARGBUF + 4 * 40, 4) == (9).to_bytes(4, "little")
    assert prog.evaluate(f"*(int *){cc.ARGBUF + 4 * 63}").to_int() == 10
    with pytest.raises(Unavailable):
        prog.read("private_wave", 0x10_0000, 4)  # beyond the wave's slot


def test_chain_core_variable_locations_and_convenience(chain_core):
    path, _ = chain_core
    prog = amddbg.open(path)
    frames = prog.waves[0].frames()
    x = frames[0].variable("x")
    assert x.kind == "arg" and x.location_text() == "DW_OP_bregx VGPR0+0, DW_OP_lit1, DW_OP_swap, DW_OP_xderef"
    kernel = frames[-1]
    assert kernel.variable("n").value(0).format() == "<optimized out>"
    assert {v.name for v in kernel.locals()} >= {"scratch", "sample", "lane"}
    assert prog.evaluate("$_wave_id").format() == '"(1,0,0)/0"'
    assert prog.evaluate("$_dispatch_pos").format() == '"(1,0,0)/0"'
    assert prog.evaluate("$_lane_workgroup_pos", lane=5).format() == '"[5,0,0]"'
    assert prog.evaluate("$_thread_workgroup_pos").to_int() == 0
    with pytest.raises(AmddbgError):
        prog.evaluate("$_lane = 3")


def test_frames_cached_and_focus_moves(chain_core):
    path, _ = chain_core
    prog = amddbg.open(path)
    w = prog.waves[0]
    assert w.frames() is w.frames()
    lco = w.frames()[0].code_object
    assert lco.source_frames(w.pc) is lco.source_frames(w.pc)  # symbolisation cached per (code object, pc)
    f2 = prog.select_frame(2)
    assert prog.current_frame is f2 and f2.function == "first_level(int, Sample*)"
    with pytest.raises(AmddbgError):
        prog.select_frame(9)


def test_copied_core_outside_the_tree(tmp_path):
    # the demo core is self-contained (memory:// code object): a copy elsewhere answers the same
    dst = tmp_path / "copy.gpu"
    shutil.copyfile(DEMO, dst)
    a, b = amddbg.open(DEMO), amddbg.open(dst)
    assert [w.target_id for w in a.waves] == [w.target_id for w in b.waves]
    assert [(f.function, f.line) for f in a.waves[1].frames()] == [(f.function, f.line) for f in b.waves[1].frames()]


def test_generic_addresses_through_the_apertures(chain_core):
    # generic (flat) addresses in the agent's LDS / scratch apertures (KFD note: lds_base, scratch_base)
    # reach the focused wave's LDS and the lane's swizzled private memory
    prog = amddbg.open(DEMO)
    lds = prog.agents[0].entry["lds_base"]
    assert lds == 1 << 48
    assert prog.read("generic", lds + 20, 4) == prog.read("local", 20, 4) == (5).to_bytes(4, "little")
    assert prog.evaluate(f"*(int *){lds + 24}").to_int() == 6
    chain = amddbg.open(chain_core[0])
    scratch = chain.agents[0].entry["scratch_base"]
    for lane in (1, 40):
        assert chain.read("generic", scratch + 0x50, 4, lane=lane) == chain.read("private_lane", 0x50, 4, lane=lane)
