"""Scenario kernels (corefiles/scenarios/scenarios.hip, clang-22 -O2, gfx90a and gfx1100): the emulator ends
each run the way the source says, and the checked-in cores (written by `amddbg run --core`) explain as built."""

from __future__ import annotations

from pathlib import Path

import pytest

from amddbg.emu.machine import Machine
from amddbg.replay.explain import explain_core

ROOT = Path(__file__).resolve().parents[2]
SC = ROOT / "corefiles" / "scenarios"
import sys  # noqa: E402

sys.path.insert(0, str(SC))
from make_scenarios import SCENARIOS, STOP_AT  # noqa: E402

# scenario -> (verdict, finding kind, cause, source line of the first location)
EXPECTED = {
    "barrier-deadlock": ("hang", "barrier_deadlock", "missing_arrivals", 9),
    "spin-no-writer": ("hang", "spin_forever", "no_writer", 32),
    "memory-fault": ("fault", "memory_violation", None, 42),
    "assert-trap": ("trap", "trap", "assert_trap", 50),
}


@pytest.mark.parametrize("target", ["gfx90a", "gfx942", "gfx1100", "gfx1200"])
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_run_status(name, target):
    kernel, grid, block, args, status = SCENARIOS[name]
    if target == "gfx1100" and name in GFX11_WGP_COMPLETES:
        status = "completed"
    m = Machine(SC / f"scenarios-{target}.co")
    m.dispatch(kernel, (int(grid), 1, 1), (int(block), 1, 1), args)
    r = m.run(max_instructions=STOP_AT.get(name, 200_000))
    assert r.status == status, r.reason


# GFX11 in WGP mode (the default): a workgroup-scope acquire load carries `glc` (the waves of a workgroup may sit on
# both CUs of the WGP), and on GFX11 `glc` makes both the L0 and the GL1 MISS_EVICT (AMDGPUUsage: agent scope is
# `glc=1`, "If GFX11, omit dlc=1"), so the load reads L2 and sees the other workgroup's store: these "wrong scope"
# spins end on gfx1100, as they would on the hardware. (GFX10's `glc` reads the GL1, GFX12's SCOPE_SE the shader
# engine's cache, GFX9's workgroup-scope load the L1: stale there.)
GFX11_WGP_COMPLETES = {"spin-wrong-scope", "handshake-wrong-scope"}


@pytest.mark.parametrize("target", ["gfx90a", "gfx942", "gfx1100", "gfx1200"])
def test_wrong_scope_spins_on_a_stale_line(target):
    """The consumer's workgroup-scope acquire reads its own CU's cached line, which never sees the producer's store
    (made by a wave of another workgroup, on another CU); the flag is 1 in L2 all along."""
    kernel, grid, block, args, _ = SCENARIOS["spin-wrong-scope"]
    m = Machine(SC / f"scenarios-{target}.co")
    m.dispatch(kernel, (int(grid), 1, 1), (int(block), 1, 1), args)
    r = m.run(max_instructions=200_000)
    if target == "gfx1100":  # (GFX11_WGP_COMPLETES: the glc load reads L2)
        assert r.status == "completed", r.reason
        assert all(w.state == "ended" for w in m.waves)
        return
    assert r.status == "hang"
    flag = m.buffers[0]["address"]
    assert int.from_bytes(m.memory.read(flag, 4), "little") == 1
    spinning = [w for w in m.waves if w.state != "ended"]
    assert spinning and all(w.workgroup == (1, 0, 0) for w in spinning)


@pytest.mark.parametrize("suffix", ["gpu", "core"])
@pytest.mark.parametrize("target", ["gfx90a", "gfx1100"])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_cores_explain_as_built(name, target, suffix):
    verdict, kind, cause, line = EXPECTED[name]
    exp = explain_core(str(SC / f"{name}-{target}.{suffix}"))
    assert exp.verdict == verdict
    f = next(f for f in exp.findings if f.kind == kind)
    if cause is not None:
        assert f.cause == cause
    assert f.locations[0]["line"] == line and f.locations[0]["file"].endswith("scenarios.hip")


@pytest.mark.parametrize("target,lanes", [("gfx90a", 64), ("gfx1100", 32)])
def test_divergence_demo_core_stops_inside_the_loop(target, lanes):
    """divergence_demo stopped inside `for (i < (lane & 7))`: the lanes whose trip count is used up are off."""
    import amddbg

    prog = amddbg.open(SC / f"divergence-demo-{target}.gpu")
    w = prog.waves[0]
    assert w.frames()[0].line == 53
    done = {ln for ln in range(lanes) if ln not in w.active_lanes}
    assert done and all((ln & 7) <= min(ln2 & 7 for ln2 in w.active_lanes) for ln in done)
