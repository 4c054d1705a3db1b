"""Wait counters that block, on real clang-22 kernels (corefiles/barriers/barriers.hip): memory instructions
are issued with a completion clock on their generation's counters, and `s_waitcnt` / `s_waitcnt_vscnt` /
GFX12 `s_wait_*` keep the wave from running on until the counters allow; hang detection still tells a
waiting wave from a stuck one."""

from __future__ import annotations

from pathlib import Path

import pytest

from amddbg.emu.args import read_buffer
from amddbg.emu.barriers import LATENCY, WAITING_COUNTERS, WaitCounters, counters_for
from amddbg.emu.machine import Machine

ROOT = Path(__file__).resolve().parents[2]
BAR = ROOT / "corefiles" / "barriers"
SC = ROOT / "corefiles" / "scenarios"
TARGETS = ["gfx90a", "gfx1100", "gfx1200"]


@pytest.mark.parametrize("target", TARGETS)
def test_store_does_not_issue_before_its_load_returns(target):
    """wait_chain: out[i] = in[i] * k + 1. Each wave's global store comes after the wait for its load; the
    step hook sees the wait block once (the wave `at waitcnt`), and the store no earlier than the load's
    completion clock."""
    m = Machine(BAR / f"barriers-{target}.co")
    m.dispatch("wait_chain", (256, 1, 1), (256, 1, 1), ["buf:i32:256:iota", "buf:i32:256", "i32:3"])
    loads: dict[int, int] = {}
    stores: dict[int, int] = {}
    blocked: dict[int, int] = {}

    def hook(ev):
        w, mn = ev.wave, ev.instruction.mnemonic
        issued = m.clock - 1  # the hook runs after the clock counted this instruction
        if mn.startswith("global_load"):
            loads[w.index] = issued
        elif mn.startswith("global_store"):
            stores.setdefault(w.index, issued)
        elif w.state == WAITING_COUNTERS and 0 in (ev.instruction.waitcnt.get("vmcnt"),
                                                   ev.instruction.waitcnt.get("loadcnt")):
            blocked[w.index] = blocked.get(w.index, 0) + 1
            assert w.pc == ev.pc  # a blocked wave stays on its wait

    r = m.run(max_instructions=50_000, hook=hook)
    assert r.status == "completed", r.reason
    assert read_buffer(m, m.buffers[1]) == [3 * i + 1 for i in range(256)]
    assert set(loads) == set(stores) == set(blocked) == {w.index for w in m.waves}
    for i, t in loads.items():
        assert stores[i] >= t + LATENCY["vmem_load"], (i, t, stores[i])
    assert set(blocked.values()) == {1}


@pytest.mark.parametrize("target", TARGETS)
def test_barrier_rounds_wait_for_lds_and_scalar_loads(target):
    """barrier_rounds: the LDS write before each barrier and the kernarg loads are waited for (lgkmcnt on
    GFX9/11, dscnt and kmcnt on GFX12); the waves still meet six times and compute the same sums."""
    m = Machine(BAR / f"barriers-{target}.co")
    m.dispatch("barrier_rounds", (256, 1, 1), (256, 1, 1), ["buf:i32:256", "i32:3"])
    waited: set[str] = set()

    def hook(ev):
        if ev.wave.state == WAITING_COUNTERS:
            waited.update(c for c, v in ev.instruction.waitcnt.items() if v == 0)

    r = m.run(max_instructions=100_000, hook=hook)
    assert r.status == "completed", r.reason
    assert read_buffer(m, m.buffers[0]) == [sum((i ^ 64) + rr for rr in range(3)) for i in range(256)]
    want = {"dscnt", "kmcnt"} if target == "gfx1200" else {"lgkmcnt"}
    assert want <= waited


def _insn(target: str, kernel: str, prefix: str):
    m = Machine(BAR / f"barriers-{target}.co")
    k = m.find_kernel(kernel)
    start = m.load + k.entry_address
    return next(i for a, i in sorted(m.instructions.items()) if a >= start and i.mnemonic.startswith(prefix))


@pytest.mark.parametrize("target,store,smem,lds", [
    ("gfx90a", "vmcnt", "lgkmcnt", "lgkmcnt"),
    ("gfx1100", "vscnt", "lgkmcnt", "lgkmcnt"),
    ("gfx1200", "storecnt", "kmcnt", "dscnt"),
])
def test_counters_per_generation(target, store, smem, lds):
    fam = Machine(BAR / f"barriers-{target}.co").family
    load = "loadcnt" if target == "gfx1200" else "vmcnt"
    assert counters_for(fam, _insn(target, "wait_chain", "global_load")) == [(load, "vmem_load")]
    assert counters_for(fam, _insn(target, "wait_chain", "global_store")) == [(store, "vmem_store")]
    assert counters_for(fam, _insn(target, "wait_chain", "s_load")) == [(smem, "smem")]
    assert counters_for(fam, _insn(target, "barrier_rounds", "ds_")) == [(lds, "lds")]


def test_in_order_and_out_of_order_returns():
    """Vector memory returns in issue order: a store issued after a slower load completes no earlier than
    it. Scalar memory (lgkmcnt) may return out of order: lgkmcnt(1) is satisfied by whichever op ends first."""
    c = WaitCounters()
    assert c.issue("vmcnt", 0, LATENCY["vmem_load"]) == 160
    assert c.issue("vmcnt", 1, LATENCY["vmem_store"]) == 160  # not 97: in order behind the load
    assert c.ready_at({"vmcnt": 1}, 2) == 160 and c.ready_at({"vmcnt": 2}, 2) == 2
    assert c.issue("lgkmcnt", 0, LATENCY["smem"]) == 40
    assert c.issue("lgkmcnt", 1, LATENCY["lds"]) == 25  # out of order: before the scalar load
    assert c.ready_at({"lgkmcnt": 1}, 2) == 25 and c.ready_at({"lgkmcnt": 0}, 2) == 40
    before = c.state_bytes(2)
    c.retire(30)
    assert c.outstanding("lgkmcnt", 30) == 1 and c.state_bytes(30) != before


@pytest.mark.parametrize("target", ["gfx90a", "gfx1200"])
def test_spin_on_memory_is_still_a_hang(target):
    """spin-no-writer polls a flag with a load and a wait each time round: the waits repeat with the loop, so
    the machine state (pending counters relative to the clock included) repeats and the run is a hang."""
    m = Machine(SC / f"scenarios-{target}.co")
    m.dispatch("spin_no_writer", (128, 1, 1), (64, 1, 1), ["buf:i32:1", "buf:i32:128"])
    saw_wait = []
    r = m.run(max_instructions=200_000, hook=lambda ev: saw_wait.append(1) if ev.wave.state == WAITING_COUNTERS
              else None)
    assert r.status == "hang" and "repeats" in r.reason and saw_wait


@pytest.mark.parametrize("target", ["gfx1100-w32", "gfx1200-w64", "gfx90a-w64"])
def test_a_wave_waiting_for_its_load_is_not_spinning(target):
    """corefiles/gridhangs xwg_relaxed_signed: workgroup 0 sums its input (a load and a wait per element) while the
    other workgroups poll a flag it sets at the end. Two state samples can catch workgroup 0 at the same wait with
    the same registers while the pollers repeat their loop; that is no repeat of the machine (workgroup 0 re-ran
    nothing, its load is still in flight): it must finish its sum and publish whatever the pollers then do."""
    m = Machine(ROOT / "corefiles" / "gridhangs" / f"gridhangs-llvm22-{target}-O2.co")
    m.dispatch("xwg_relaxed_signed", (512, 1, 1), (128, 1, 1),
               ["buf:i32:1", "buf:i32:64:iota", "buf:i32:512", "i32:3"])
    m.run(max_instructions=400_000)
    producer = [w for w in m.waves if w.workgroup == (0, 0, 0)]
    assert producer and all(w.state == "ended" for w in producer), [(w.state, hex(w.pc)) for w in producer]
    assert read_buffer(m, m.buffers[0]) == [3]
    assert read_buffer(m, m.buffers[2])[:64] == [sum(range(64))] * 64
