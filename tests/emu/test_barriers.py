"""Barrier objects in the emulator on real clang-22 kernels (corefiles/barriers/barriers.hip): counts per
phase, no wave past a barrier before its workgroup arrived, the implicit drop of ending waves, GFX12 split
barriers and isfirst, GFX12.5 named barriers, misuse recorded (never raised), and traps as ROCm's trap
handler leaves them in a core that `amddbg.open` reads."""

from __future__ import annotations

from pathlib import Path

import pytest

import amddbg
from amddbg.emu.args import read_buffer
from amddbg.emu.barriers import NAMED_IDS, WORKGROUP, WorkgroupBarriers
from amddbg.emu.machine import Machine
from amddbg.session.threads import WaveState

ROOT = Path(__file__).resolve().parents[2]
BAR = ROOT / "corefiles" / "barriers"
TARGETS = ["gfx90a", "gfx1100", "gfx1200"]
ARRIVE = ("s_barrier", "s_barrier_signal", "s_barrier_signal_isfirst")
WAIT = ("s_barrier", "s_barrier_wait")


def machine(target: str, kernel: str, grid: int, block: int, args: list[str]) -> Machine:
    m = Machine(BAR / f"barriers-{target}.co")
    m.dispatch(kernel, (grid, 1, 1), (block, 1, 1), args)
    return m


@pytest.mark.parametrize("target", TARGETS)
def test_rounds_complete_each_phase_only_when_the_workgroup_arrived(target):
    m = machine(target, "barrier_rounds", 512, 256, ["buf:i32:512", "i32:3"])
    arrivals: dict[int, int] = {}
    after_wait: dict[int, bool] = {}
    violations = []
    expected_at_first = []

    def hook(ev):
        w, mn = ev.wave, ev.instruction.mnemonic
        if not expected_at_first and mn in ARRIVE:  # hardware-initialised: the waves of the workgroup
            expected_at_first.append(m.barriers_of(m.groups[w.group_key]).objects[WORKGROUP].expected)
        if after_wait.pop(w.index, False) and mn not in WAIT:  # the first instruction past a barrier wait
            group = [x.index for x in m.groups[w.group_key].waves]
            if min(arrivals.get(i, 0) for i in group) < arrivals[w.index]:
                violations.append((w.index, ev.pc))
        if mn in ARRIVE:
            arrivals[w.index] = arrivals.get(w.index, 0) + 1
        if mn in WAIT:  # blocked or not, the wave's next instruction is past the barrier
            after_wait[w.index] = True

    r = m.run(max_instructions=200_000, hook=hook)
    assert r.status == "completed", r.reason
    assert read_buffer(m, m.buffers[0]) == [sum((i % 256 ^ 64) + rr for rr in range(3)) for i in range(512)]
    assert not violations
    assert set(arrivals.values()) == {6} and expected_at_first == [256 // m.lanes]
    for g in m.barrier_view():
        (wg,) = [b for b in g["barriers"] if b["id"] == WORKGROUP]
        # every wave ended (dropped): expected 0; six phases completed; nothing left arrived or waiting
        assert (wg["phase"], wg["expected"], wg["arrived"], wg["waiting"]) == (6, 0, 0, [])
    assert m.barrier_misuse == []


@pytest.mark.parametrize("target", TARGETS)
def test_ending_waves_drop_the_workgroup_barrier(target):
    """Waves 2 and 3 never reach the barrier; waves 0 and 1 get through it once, because ending waves drop it
    (without the drop the run is a hang)."""
    m = machine(target, "drop_on_end", 256, 256, ["buf:i32:256"])
    r = m.run(max_instructions=50_000)
    assert r.status == "completed", r.reason
    ws = m.lanes
    assert read_buffer(m, m.buffers[0])[:2 * ws] == [((i + ws) % (2 * ws)) * 10 for i in range(2 * ws)]
    (wg,) = m.barrier_view()[0]["barriers"]
    assert (wg["phase"], wg["expected"], wg["members"]) == (1, 0, []) and m.barrier_misuse == []


def test_split_barrier_isfirst_and_arrive_then_drop():
    """GFX12: wave 0 signals (first: SCC=1) and ends without waiting; the misuse is recorded at its s_endpgm
    and its arrival still counts, so waves 1 and 2 complete the first phase and wave 3 is the first of the
    second, which completes when waves 1 and 2 end."""
    m = machine("gfx1200", "split_barrier", 128, 128, ["buf:i32:64:iota", "buf:i32:1", "buf:i32:128"])
    firsts = []

    def hook(ev):
        if ev.instruction.mnemonic == "s_barrier_signal_isfirst":
            firsts.append((ev.wave.wave_in_group, ev.wave.scc))

    r = m.run(max_instructions=50_000, hook=hook)
    assert r.status == "completed", r.reason
    assert firsts[0] == (0, 1) and [f for f in firsts if f[1]] == [(0, 1), (3, 1)]
    assert read_buffer(m, m.buffers[1]) == [4]
    assert read_buffer(m, m.buffers[2])[32::32] == [29, 30, 31]  # acc (28) + wave, for waves 1..3
    (mis,) = m.barrier_misuse
    assert (mis["kind"], mis["wave_in_group"], mis["barrier"]) == ("arrive_then_drop", 0, -1)
    assert m.instructions[mis["pc"]].mnemonic == "s_endpgm"
    assert m.barrier_view()[0]["barriers"][0]["phase"] == 2


def test_wait_without_signal_is_recorded_and_hangs():
    """GFX12: wave 1 waits on the workgroup barrier it never signalled; the misuse is recorded at its wait, and
    the barrier (expected 4, arrived 3) can never complete: all four waves wait, a hang."""
    m = machine("gfx1200", "wait_unsignaled", 128, 128, ["buf:i32:128"])
    r = m.run(max_instructions=20_000)
    assert r.status == "hang" and "barrier" in r.reason
    (mis,) = m.barrier_misuse
    assert (mis["kind"], mis["wave_in_group"], mis["barrier"]) == ("wait_without_arrive", 1, WORKGROUP)
    assert m.instructions[mis["pc"]].mnemonic == "s_barrier_wait"
    (wg,) = m.barrier_view()[0]["barriers"]
    assert (wg["expected"], wg["arrived"], wg["arrivals"], wg["waiting"]) == (4, 3, [0, 2, 3], [0, 1, 2, 3])


def test_named_barriers_join_signal_wait_leave():
    """gfx1250: waves 0 and 1 meet at named barrier 1 (count 2 from M0[22:16]) and leave it; wave 2 waits on a
    named barrier it never joined (recorded, the wait does nothing); each wave's byte counts its barriers."""
    m = machine("gfx1250", "named_pairs", 128, 128, ["buf:i32:1"])
    r = m.run(max_instructions=50_000)
    assert r.status == "completed", r.reason
    assert read_buffer(m, m.buffers[0]) == [0x01010202]
    (mis,) = m.barrier_misuse
    assert (mis["kind"], mis["wave_in_group"]) == ("wait_not_joined", 2)
    assert m.instructions[mis["pc"]].text == "s_barrier_wait 1"
    named = {b["id"]: b for b in m.barrier_view()[0]["barriers"]}
    assert named[1]["phase"] == 1 and named[1]["expected"] == 0 and named[1]["members"] == []


def test_named_barrier_short_of_arrivals_hangs_and_the_view_says_why():
    m = machine("gfx1250", "named_short", 128, 128, ["buf:i32:1"])
    r = m.run(max_instructions=50_000)
    assert r.status == "hang" and "barrier" in r.reason
    bars = {b["id"]: b for b in m.barrier_view()[0]["barriers"]}
    assert (bars[1]["expected"], bars[1]["arrived"], bars[1]["members"], bars[1]["waiting"]) == (3, 2, [0, 1], [0, 1])
    assert bars[WORKGROUP]["phase"] == 1 and bars[WORKGROUP]["waiting"] == []
    assert read_buffer(m, m.buffers[0]) == [0x01010000]  # waves 2 and 3 finished, 0 and 1 wait
    assert sorted(w.state for w in m.waves) == ["at barrier", "at barrier", "ended", "ended"]


def test_misuses_are_recorded_not_raised():
    """The execution model's undefined behaviours on one workgroup's barrier objects (a gfx1250 workgroup
    of the named_pairs kernel): each becomes a record and the counts stay usable."""
    m = machine("gfx1250", "named_pairs", 128, 128, ["buf:i32:1"])
    bars = WorkgroupBarriers(m.groups[0], m.processor, m.family)
    kinds = []
    kinds += [k for k, *_ in bars.leave(0)[0]]  # leave without joining
    kinds += [k for k, *_ in bars.arrive(0, 5)[0]]  # arrive on an uninitialised named barrier
    kinds += [k for k, *_ in bars.arrive(0, 5)[0]]  # again (still uninitialised), twice in one phase
    kinds += [k for k, *_ in bars.init(6, 0)]  # expected count 0
    kinds += [k for k, *_ in bars.drop(1, 6)]  # below zero
    assert kinds == ["leave_not_joined", "uninitialized", "uninitialized", "arrive_twice", "init_zero",
                     "drop_below_zero"]
    assert bars.objects[5].arrived == 2 and bars.objects[6].expected == 0 and set(NAMED_IDS) <= set(bars.objects)


# ---------------------------------------------------------------------------------------------- traps


def _ran(target: str, kernel: str, args: list[str], tmp_path: Path):
    m = machine(target, kernel, 128, 128, args)
    r = m.run(max_instructions=50_000)
    path = tmp_path / f"{kernel}-{target}.gpu"
    m.write_core(str(path))
    return m, r, amddbg.open(path)


@pytest.mark.parametrize("target", TARGETS)
def test_assert_trap_as_the_trap_handler_leaves_it(target, tmp_path):
    values = ",".join(str(-v if v == 37 else v) for v in range(128))
    m, r, prog = _ran(target, "assert_trap", [f"buf:i32:128:values={values}", "buf:i32:128"], tmp_path)
    assert r.status == "trap"
    (w,) = [w for w in m.waves if w.state == "trapped"]
    assert m.instructions[w.pc - 4].mnemonic == "s_trap"  # the handler resumes past the s_trap (r_version 10)
    assert w.ttmp[6] >> 25 & 0xF == 2 and w.ttmp[6] >> 30 & 1 and w.status >> 13 & 1
    (t,) = [t for t in prog.waves if t.state is WaveState.TRAPPED]
    assert t.stop_reason == ["assert_trap"] and t.wave.trap_id == 2 and t.pc == w.pc
    assert t.wave.status >> 13 & 1 and t.wave.ttmps[6] >> 30 & 1
    assert t.wave.parked and t.wave.hw_pc != t.pc  # GFX9/11/12 park the stopped wave; dbgapi reports the saved PC
    assert t.frames()[0].line == 55 and t.workgroup == (0, 0, 0) and t.wave_in_group == w.wave_in_group
    for other in prog.waves:
        if other is not t:  # halted by the debugger to write the core: STATUS.HALT, not stopped by the handler
            assert other.stop_reason == [] and not other.wave.ttmps[6] >> 30 & 1 and other.wave.status >> 13 & 1


@pytest.mark.parametrize("target", TARGETS)
def test_memory_violation_as_the_trap_handler_leaves_it(target, tmp_path):
    m, r, prog = _ran(target, "memory_fault", ["buf:i32:128", "i32:60"], tmp_path)
    assert r.status == "fault"
    (w,) = [w for w in m.waves if w.state == "faulted"]
    assert m.instructions[w.pc].mnemonic.startswith("global_store")
    (t,) = [t for t in prog.waves if t.state is WaveState.FAULTED]
    assert t.stop_reason == ["memory_violation"] and t.pc == w.pc and t.frames()[0].line == 64
    if target == "gfx1200":  # no TRAPSTS: EXCP_FLAG_PRIV carries it
        assert t.wave.trapsts is None and t.wave.hwreg("excp_flag_priv") >> 12 & 1
    else:
        assert t.wave.trapsts == 1 << 28  # XNACK_ERROR: a page fault, not an aperture violation (MEM_VIOL)
    assert t.wave.ttmps[6] >> 30 & 1 and t.wave.trap_id is None
