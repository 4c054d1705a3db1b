"""The session API on cores whose answers are known by construction (tests/session/chain_core.py) and on the
demo cores; expected source lines come from the stored llvm-addr2line-22 output, not from amddbg."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import amddbg
from amddbg.errors import AmddbgError, Unavailable
from amddbg.session import WaveState

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corefiles" / "cores" / "gfx90a-divergent-barrier.gpu"
CO = ROOT / "corefiles" / "co" / "llvm22-gfx90a-w64-O2-hip.co"


def addr2line_ref(address: int) -> list[tuple[str, str, int]]:
    """(function, file, line) frames llvm-addr2line-22 -f -i printed for an instruction address."""
    doc = json.loads(Path(f"{CO}.addr2line.json").read_text())
    for addrs, text in doc["groups"]:
        if address in addrs:
            lines = text.strip().split("\n")
            out = []
            for fn, loc in zip(lines[0::2], lines[1::2], strict=True):
                file, _, line = loc.rpartition(":")
                out.append((fn, file, int(line)))
            return out
    raise KeyError(hex(address))


def test_call_chain_three_deep(chain_core):
    import chain_core as cc

    path, exp = chain_core
    prog = amddbg.open(path)
    (wave,) = prog.waves
    frames = wave.frames()
    assert [f.linkage_name for f in frames] == [cc.THIRD, cc.SECOND, cc.FIRST, cc.KERNEL]
    assert [f.method for f in frames] == ["context", "abi", "abi", "abi"]
    assert [f.pc - cc.LOAD for f in frames] == [exp["pc"], *exp["ra"]]
    # lines: frame 0 at its PC, callers at the call instruction (return address - 4: s_swappc_b64)
    want = [addr2line_ref(exp["pc"])[0]] + [addr2line_ref(ra - 4)[0] for ra in exp["ra"]]
    assert [(f.linkage_name, f.file, f.line) for f in frames] == want
    assert frames[0].function == "third_level(int)"
    assert frames[-1].stop_reason == ""


def test_per_lane_values_and_grouping(chain_core):
    import chain_core as cc

    prog = amddbg.open(chain_core[0])
    frame = prog.waves[0].frames()[0]
    assert [v.name for v in frame.arguments()] == ["x"]
    for lane in (0, 31, 32, 63):
        assert frame.value("x", lane).to_int() == cc.x_of_lane(lane)
    assert frame.value("x", "all").format() == "{lanes 0-31: 7, 32-62: 9, 63: 10}"
    assert prog.evaluate_lanes("x * 2").format() == "{lanes 0-31: 14, 32-62: 18, 63: 20}"
    assert prog.evaluate("x + 1", lane=40).to_int() == 10


def test_unified_layout_same_answers(chain_unified):
    import chain_core as cc

    prog = amddbg.open(chain_unified[0])
    frames = prog.waves[0].frames()
    assert [f.linkage_name for f in frames] == [cc.THIRD, cc.SECOND, cc.FIRST, cc.KERNEL]
    assert [t.target_id for t in prog.threads if not t.is_wave] == ["LWP 4242"]
    assert prog.threads[0].number == 1 and prog.waves[0].number == 2


def test_target_ids_states_and_focus():
    prog = amddbg.open(DEMO)
    ids = [w.target_id for w in prog.waves]
    assert ids == [f"AMDGPU Wave 1:1:1:{i + 1} (0,0,0)/{i}" for i in range(4)]  # dbgapi handles from 1
    assert [w.state for w in prog.waves] == [WaveState.AT_BARRIER, WaveState.SPINNING] * 2
    # the barrier waves sit in the inlined workgroup_barrier(), at the __builtin_amdgcn_s_barrier() line
    f0 = prog.waves[0].frames()
    assert [(f.function, f.line, f.inlined) for f in f0] == [
        ("workgroup_barrier()", 13, True), ("divergent_barrier(int*, int*)", 86, False)]
    prog.select_thread(2)
    prog.select_lane(17)
    assert prog.evaluate("$_lane").to_int() == 17
    assert prog.evaluate("$_lane_workgroup_pos").format() == '"[81,0,0]"'  # wave 1 of a 256-wide group
    assert prog.evaluate("$_dispatch_pos").format() == '"(0,0,0)/1"'
    assert prog.evaluate("$_thread_workgroup_pos").to_int() == 1
    with pytest.raises(AmddbgError, match=r"^Lane 64 does not exist on this thread\.$"):  # ROCgdb's words
        prog.select_lane(64)
    with pytest.raises(AmddbgError):
        prog.select_thread(99)


def test_memory_spaces():
    prog = amddbg.open(DEMO)
    # LDS of workgroup (0,0,0): stage[lane] = lane, written by the kernel before the barrier
    assert prog.read("local", 4 * 5, 4) == (5).to_bytes(4, "little")
    assert prog.evaluate("*(int local *)20").to_int() == 5
    assert prog.evaluate("*(int *)local#24").to_int() == 6
    with pytest.raises(Unavailable):
        prog.read("global", 0xDEAD_0000, 4)
    with pytest.raises(Unavailable):
        prog.read("region", 0, 4)
    with pytest.raises(AmddbgError):
        prog.read("nowhere", 0, 4)


def test_registers_and_history():
    prog = amddbg.open(DEMO)
    w = prog.waves[0]
    assert prog.evaluate("$pc").to_int() == w.pc
    assert prog.evaluate("$exec").to_int() == (1 << 64) - 1
    assert prog.evaluate("$v0", lane=9).to_int() == 9
    assert prog.evaluate_lanes("$v0 < 32").format() == "{lanes 0-31: 1, 32-63: 0}"
    prog.record(prog.evaluate("41"))
    assert prog.evaluate("$1 + 1").to_int() == 42 and prog.evaluate("$").to_int() == 41


def test_static_code_object_session():
    prog = amddbg.open(CO)
    assert prog.core is None and prog.threads == []
    hits = prog.lookup_function("third_level")
    assert hits and hits[0][1].name == "_Z11third_leveli"
    lco, sym = hits[0]
    insns = prog.disassemble(sym.address, function=None)
    assert insns and insns[0].address == sym.address
    src = prog.symbolize(sym.address)
    assert src[0].function == "third_level(int)" and src[0].line == 33
    with pytest.raises(Unavailable):
        prog.read("local", 0, 4)


def test_10k_waves_states_fast(tmp_path):
    """Every wave's frames of a 2,000-wave core (symbolisation cached per PC)."""
    from tests_session_scale import build_scale_core

    path = build_scale_core(tmp_path / "scale.gpu", waves=2000)
    prog = amddbg.open(path)
    n = sum(len(w.frames()) for w in prog.waves)  # its speed: bench/session.py (no wall-clock bound in a test)
    assert n >= 2000
