"""Bounded exploration (amddbg/emu/explore.py): seeded schedules and visibility choices on real kernels.

The kernels are the clang-22 litmus kernels of corefiles/litmus-kernels (their sources are checked in next to
them); these tests check the mechanisms one at a time, tests/replay/test_litmus_kernels.py checks the
outcomes against the memory model.
"""

from __future__ import annotations

import pytest

from amddbg.codeobj import CodeObject
from amddbg.emu.caches import _store_wait
from amddbg.emu.explore import NONE, Visibility, apply_visibility, explore, outcomes
from amddbg.emu.machine import Machine, _nth_permutation
from amddbg.replay import litmus_kernels as lk

pytestmark = pytest.mark.skipif(not lk.LITMUS_DIR.is_dir(), reason=f"litmus oracle not found at {lk.LITMUS_DIR}")

CO = {}


def co(target: str):
    if target not in CO:
        CO[target] = CodeObject.from_path(lk.code_object(target))
    return CO[target]


def kernel(rel: str):
    return lk.from_file(lk.LITMUS_DIR / rel)


def make_for(k, target):
    grid, block = k.launch(lk.wave_size(target))

    def make(seed, _vis):
        m = Machine(co(target), seed=seed)
        m.dispatch(k.name, grid, block, k.args())
        return m

    return make


def test_seed_zero_is_the_deterministic_round_robin():
    """explore(seeds=[0]) with no visibility choice is exactly a plain run: same outcome, same instruction count."""
    k = kernel("khronos/mp3.test")
    make = make_for(k, "gfx90a")
    m = make(0, NONE)
    plain = m.run(max_instructions=20_000)
    runs = explore(make, seeds=[0, 0], visibilities=[NONE], outcome=lambda m, _r: k.outcome(m))
    assert [r.result.wave_instructions for r in runs] == [plain.wave_instructions] * 2
    assert runs[0].outcome == runs[1].outcome == k.outcome(m)
    assert runs[0].seed == 0 and runs[0].visibility == NONE and runs[0].result.status == "completed"


def test_seeds_reproduce_and_vary_the_schedule():
    k = kernel("khronos/mp.test")
    make = make_for(k, "gfx90a")
    a = explore(make, seeds=range(1, 17), outcome=lambda m, _r: k.outcome(m))
    b = explore(make, seeds=range(1, 17), outcome=lambda m, _r: k.outcome(m))
    assert [r.outcome for r in a] == [r.outcome for r in b]  # one seed, one schedule
    reads = {(dict(o)["P1:r2"], dict(o)["P1:r3"]) for o in outcomes(a)}
    assert {(0, 0), (1, 1)} <= reads  # the reader entirely before, and entirely after, the writer


def test_odd_seeds_enumerate_launch_orders():
    assert _nth_permutation([0, 1, 2], 0) == [0, 1, 2]
    assert {tuple(_nth_permutation([0, 1, 2], n)) for n in range(6)} == {
        (0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)}
    assert _nth_permutation([0, 1, 2], 6) == [0, 1, 2]


@pytest.mark.parametrize("target", ["gfx90a", "gfx1100"])
def test_prefilled_line_is_a_stale_copy_only_without_an_agent_acquire(target):
    """A line the reader's CU holds before the waves start is returned by a workgroup-scope acquire (a plain
    load) even after the writer's store reached L2."""
    k = kernel("dat3m/Manual/SB-2-dv.litmus")  # two workgroups: two CUs
    make = make_for(k, target)
    x_line = (1, 0, 0)  # workgroup 1 (P1, which reads x) holds x's line before the waves start
    seen_stale = explore(make, seeds=range(1, 12, 2), visibilities=[Visibility(prefill=(x_line,))],
                         outcome=lambda m, _r: k.outcome(m))
    # P1 reads x with an acquire at workgroup scope: a plain load that hits the stale line, even after P0's
    # store reached L2 (odd seeds run P0 entirely first in half of the orders)
    assert any(dict(r.outcome)["P1:r1"] == 0 and dict(r.outcome)["x"] == 1 for r in seen_stale)


def test_delayed_write_through_gives_store_buffering_and_waitcnt_bounds_it():
    """SB across two workgroups: both loads miss the other's store only if the stores are still in flight.
    Without the delay no run ends (0, 0) on gfx90a; with it some do."""
    k = kernel("dat3m/Manual/SB-2-dv.litmus")
    make = make_for(k, "gfx90a")
    seeds = range(0, 40, 2)  # overlapped launches

    def both_zero(runs):
        return any(dict(r.outcome)["P0:r0"] == 0 and dict(r.outcome)["P1:r1"] == 0 for r in runs)

    plain = explore(make, seeds=seeds, visibilities=[NONE], outcome=lambda m, _r: k.outcome(m))
    delayed = explore(make, seeds=seeds, visibilities=[Visibility(delay=True, drain=0.05, seed=3)],
                      outcome=lambda m, _r: k.outcome(m))
    assert both_zero(delayed)
    assert not both_zero(plain)  # stores written through at once: some load always comes after the other store
    assert all(r.result.status == "completed" for r in plain + delayed)
    # the final memory has every store: nothing stays in flight after the run
    assert all(dict(r.outcome)["x"] == 1 and dict(r.outcome)["y"] == 1 for r in delayed)


def test_release_at_agent_scope_drains_the_write_path():
    """mp (Khronos) st.av.scopedev = store + release fence at agent scope (s_waitcnt vmcnt(0)): with stores
    delayed and never drained by chance (drain=0), the wave's own waitcnt still pushes x to L2 before y."""
    k = kernel("khronos/mp.test")
    target = "gfx90a"
    grid, block = k.launch(lk.wave_size(target))
    m = Machine(co(target), seed=0)
    m.dispatch(k.name, grid, block, k.args())
    apply_visibility(m, Visibility(delay=True, drain=0.0, seed=1))
    seen = []

    def hook(ev):
        if ev.instruction.mnemonic.startswith("global_store") and ev.wave.wave_in_group == 0:
            seen.append(m.caches.pending_stores())

    r = m.run(max_instructions=20_000, hook=hook)
    assert r.status == "completed"
    assert seen[0] == 1  # x waits in the write path after its store
    assert m.caches.pending_stores() == 0  # and everything reached memory by the end
    assert k.outcome(m)[-2:] == (("x", 1), ("y", 1))


def test_store_wait_counts_per_generation():
    assert _store_wait("s_waitcnt", "s_waitcnt vmcnt(0) lgkmcnt(0)", "gfx9") == 0
    assert _store_wait("s_waitcnt", "s_waitcnt vmcnt(2)", "gfx9") == 2
    assert _store_wait("s_waitcnt", "s_waitcnt lgkmcnt(0)", "gfx9") is None
    assert _store_wait("s_waitcnt_vscnt", "s_waitcnt_vscnt null, 0x0", "gfx11") == 0
    assert _store_wait("s_waitcnt", "s_waitcnt vmcnt(0)", "gfx11") is None  # GFX10+: vmcnt counts loads only
    assert _store_wait("s_wait_storecnt", "s_wait_storecnt 0x1", "gfx12") == 1
    assert _store_wait("s_wait_loadcnt", "s_wait_loadcnt 0x0", "gfx12") is None


def test_visibility_labels_and_bad_prefill():
    assert NONE.label() == "none"
    assert Visibility(prefill=((0, 0, 0),), delay=True, drain=0.2, seed=2).label() == "prefill1+delay0.2#2"
    k = kernel("khronos/mp.test")
    m = make_for(k, "gfx90a")(0, NONE)
    with pytest.raises(ValueError):
        apply_visibility(m, Visibility(prefill=((0, 7, 0),)))
