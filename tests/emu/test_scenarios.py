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
    m = Machine(SC / f"scenarios-{target}.co")
    m.dispatch(kernel, (int(grid), 1, 1), (int(block), 1, 1), args)
    r = m.run(max_instructions=STOP_AT.get(name, 200_000))
    assert r.status == status, r.reason


@pytest.mark.parametrize("target", ["gfx90a", "gfx942", "gfx1100", "gfx1200"])
def test_wrong_scope_spins_on_a_stale_line(target):
    """The consumer's workgroup-scope acquire reads its own CU's cached line, which never sees the producer's store
    (made by a wave of another workgroup, on another CU); the flag is 1 in L2 all along."""
    kernel, grid, block, args, _ = SCENARIOS["spin-wrong-scope"]
    m = Machine(SC / f"scenarios-{target}.co")
    m.dispatch(kernel, (int(grid), 1, 1), (int(block), 1, 1), args)
    r = m.run(max_instructions=200_000)
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
