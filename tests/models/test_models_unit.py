"""Unit tests of the models on hand-made event sets, each derived from a statement of the specs."""

from __future__ import annotations

import pytest

from amddbg.amdgpu import Scope
from amddbg.errors import UsageError
from amddbg.models.asyncops import AsyncMarks, AsyncQueues, async_happens_before
from amddbg.models.barriers import BarrierSystem, bar_op, barrier_objects, generation, s_barrier
from amddbg.models.checker import Scenario, enumerate_executions
from amddbg.models.events import INIT, Event, Kind
from amddbg.models.memory import Options

J, A, W, I, D = Kind.BAR_JOIN, Kind.BAR_ARRIVE, Kind.BAR_WAIT, Kind.BAR_INIT, Kind.BAR_DROP


# ----------------------------------------------------------------------------- barrier objects
def test_generations_and_objects() -> None:
    assert generation("gfx90a") == "GFX6-11" and generation("gfx1100") == "GFX6-11"
    assert generation("gfx1201") == "GFX12" and generation("gfx1250") == "GFX12.5"
    assert list(barrier_objects("gfx942")) == [-1]
    assert barrier_objects("gfx942")[-1].implicit_drop
    assert sorted(barrier_objects("gfx1200")) == [-2, -1]
    objs = barrier_objects("gfx1250")
    assert sorted(objs) == [-4, -3, -2, -1, 0] + list(range(1, 17))
    assert objs[0].null and objs[0].named
    assert all(objs[i].named and not objs[i].implicit_drop for i in range(1, 17))
    assert objs[-3].scope is Scope.CLUSTER and objs[-3].one_arrive_per_workgroup
    assert objs[-2].privileged and objs[-4].privileged
    with pytest.raises(UsageError):
        generation("sm_90")


def test_expected_four_with_three_participants_never_completes() -> None:
    # "When an operation causes arrive count to be equal to expected count, the barrier is completed"
    def program(k: int):
        threads = [[bar_op(J, t, 1), bar_op(A, t, 1), bar_op(W, t, 1)] for t in range(3)]
        return BarrierSystem("gfx1250", threads, initial={1: k}).explore()

    hang = program(4)
    assert not hang.completes
    assert {b.thread for b in hang.blocked} == {0, 1, 2}
    assert all(b.expected == 4 and b.arrived == 3 for b in hang.blocked)
    assert "1 arrival(s) missing" in hang.explain()[0]
    assert program(3).completes


def test_gfx6_11_single_barrier_implicit_drop_at_wave_end() -> None:
    # expected count = waves in the workgroup; a wave that ends drops the barrier implicitly
    threads = [s_barrier(0), s_barrier(1), []]
    assert BarrierSystem("gfx90a", threads).explore().completes
    assert BarrierSystem("gfx90a", [s_barrier(0), s_barrier(1), s_barrier(2)]).explore().completes


def test_gfx12_5_named_barrier_has_no_implicit_drop() -> None:
    # "When a thread ends, it does not implicitly drop any named barrier objects"
    threads = [[bar_op(J, 0, 2), bar_op(A, 0, 2), bar_op(W, 0, 2)],
               [bar_op(J, 1, 2), bar_op(A, 1, 2), bar_op(W, 1, 2)],
               [bar_op(J, 2, 2)]]
    res = BarrierSystem("gfx1250", threads, initial={2: 3}).explore()
    assert not res.completes and not res.undefined
    # the workgroup barrier -1 of the same threads is dropped at wave end instead
    assert BarrierSystem("gfx1250", [s_barrier(0), s_barrier(1), []]).explore().completes


def test_gfx12_split_barrier_arrive_and_wait_separately() -> None:
    t0 = [bar_op(A, 0, -1), bar_op(W, 0, -1)]
    t1 = [bar_op(A, 1, -1), bar_op(W, 1, -1)]
    assert BarrierSystem("gfx1200", [t0, t1]).explore().completes
    # waiting without the other wave ever arriving blocks
    res = BarrierSystem("gfx1200", [t0, [bar_op(W, 1, -1)]]).explore()
    assert not res.completes
    # cluster barriers do not exist before GFX12.5
    res = BarrierSystem("gfx1200", [[bar_op(A, 0, -3)]]).explore()
    assert any("no barrier object -3" in u for u in res.undefined)


def test_null_barrier_and_named_wait_without_join() -> None:
    assert BarrierSystem("gfx1250", [[bar_op(A, 0, 0), bar_op(W, 0, 0)]]).explore().completes
    res = BarrierSystem("gfx1250", [[bar_op(I, 0, 3, count=1), bar_op(A, 0, 3), bar_op(W, 0, 3)]]).explore()
    assert res.completes
    assert any("without a join" in u for u in res.undefined)


def test_cluster_barrier_one_arrive_per_workgroup() -> None:
    # two workgroups in the cluster: expected count 2, one arriving wave per workgroup
    ok = [[bar_op(A, 0, -3, workgroup=0), bar_op(W, 0, -3)], [bar_op(W, 1, -3)],
          [bar_op(A, 2, -3, workgroup=1), bar_op(W, 2, -3)]]
    res = BarrierSystem("gfx1250", ok, workgroup_of=[0, 0, 1]).explore()
    assert res.completes and not res.undefined
    bad = [[bar_op(A, 0, -3), bar_op(W, 0, -3)], [bar_op(A, 1, -3), bar_op(W, 1, -3)], []]
    res = BarrierSystem("gfx1250", bad, workgroup_of=[0, 0, 1]).explore()
    assert any("second arrive from workgroup 0" in u for u in res.undefined)


def test_drop_below_zero_is_undefined() -> None:
    res = BarrierSystem("gfx1250", [[bar_op(I, 0, 4, count=1), bar_op(J, 0, 4), bar_op(D, 0, 4),
                                     bar_op(J, 0, 4), bar_op(D, 0, 4)]]).explore()
    assert any("negative" in u for u in res.undefined)


# ----------------------------------------------------------------------------- async operations
def test_async_marks_uneven_blocks_wait_two_completes_first_block() -> None:
    m = AsyncMarks()
    for op in ("a1", "a2", "a3"):
        m.op(op)
    m.asyncmark()
    for op in ("b1", "b2", "b3", "b4", "b5"):
        m.op(op)
    m.asyncmark()
    m.op("c1")
    m.op("c2")
    m.asyncmark()
    assert m.wait(2) == ["a1", "a2", "a3"]
    assert m.outstanding() == ["b1", "b2", "b3", "b4", "b5", "c1", "c2"]
    assert m.wait(0) == ["b1", "b2", "b3", "b4", "b5", "c1", "c2"]


def test_unmarked_ops_are_not_completed_by_waits() -> None:
    m = AsyncMarks()
    m.op("x")
    assert m.wait(0) == [] and m.outstanding() == ["x"]


def test_tvm_queues_fifo_per_queue() -> None:
    q = AsyncQueues()
    for g in range(3):
        q.op(0, f"q0g{g}")
        q.commit(0)
    q.op(1, "q1g0")
    q.commit(1)
    assert q.wait(0, 1) == ["q0g0", "q0g1"]  # the two oldest groups, in order
    assert q.in_flight(0) == 1 and q.in_flight(1) == 1
    assert q.wait(1, 0) == ["q1g0"]


def test_async_lds_dma_happens_before() -> None:
    trace = [("access", ("x0", "lds")), ("async", ("dma", "lds")), ("access", ("x1", "lds")),
             ("mark", None), ("wait", 0), ("access", ("x2", "lds"))]
    edges = async_happens_before(trace)
    assert ("x0", "dma") in edges  # X before A: X happens-before A
    assert ("dma", "x1") not in edges  # A not completed before x1
    assert ("dma", "x2") in edges


# ----------------------------------------------------------------------------- memory model
def _ev(kind, thread, wg, loc=None, **kw):
    inst = {Scope.WAVEFRONT: (wg, thread), Scope.WORKGROUP: wg, Scope.CLUSTER: wg, Scope.QUEUE_FAMILY: 0,
            Scope.AGENT: 0, Scope.SYSTEM: 0}
    return Event(kind, thread, inst, loc=loc, ref=loc, storage_class=0 if loc else None, **kw)


def _mp(scope: Scope, wg_reader: int, av_vis: bool):
    evs = [
        _ev(Kind.STORE, 0, 0, "x", av=av_vis, nonpriv=av_vis, scope=Scope.AGENT if av_vis else None,
            write_value=1, label="st x=1"),
        _ev(Kind.STORE, 0, 0, "y", atomic=True, release=True, av=True, scope=scope, semsc=frozenset({0}),
            write_value=1, label="st.rel y=1"),
        _ev(Kind.LOAD, 1, wg_reader, "y", atomic=True, acquire=True, vis=True, scope=scope,
            semsc=frozenset({0}), read_value=1, label="ld.acq y"),
        _ev(Kind.LOAD, 1, wg_reader, "x", vis=av_vis, nonpriv=av_vis, scope=Scope.AGENT if av_vis else None,
            label="ld x"),
    ]
    return Scenario(evs, [[0, 1], [2, 3]], rf_allowed={2: [1]})


def test_message_passing_needs_av_vis_and_scope() -> None:
    # release/acquire in scope plus availability/visibility: no race, x must be read as 1
    exs = [e for e in enumerate_executions(_mp(Scope.WORKGROUP, 0, True)) if e.consistent]
    assert exs and all(not e.races for e in exs)
    assert {e.witness_rf()[3] for e in exs} == {0} and all(
        all(s[3] == 0 for s in sols) for e in exs for sols in e.feasible.values() if any(3 in s for s in sols))
    # without av/vis (private accesses) the pair races
    assert any(e.races for e in enumerate_executions(_mp(Scope.WORKGROUP, 0, False)) if e.consistent)
    # workgroup scope across workgroups: not in scope, no synchronization, race
    assert any(e.races for e in enumerate_executions(_mp(Scope.WORKGROUP, 1, True)) if e.consistent)
    # device scope across workgroups: fine again
    assert all(not e.races for e in enumerate_executions(_mp(Scope.AGENT, 1, True)) if e.consistent)


def test_nochains_breaks_transitive_availability() -> None:
    from amddbg.models.litmus.khronos import parse

    text = """NEWWG
NEWSG
NEWTHREAD
st.av.scopewg.sc0 x = 1
st.atom.rel.scopewg.sc1.semsc0.semsc1 y = 1
NEWSG
NEWTHREAD
ld.atom.acq.scopewg.sc1.semsc0.semsc1 y = 1
st.atom.rel.scopedev.sc1.semsc0.semsc1.semav z = 1
NEWWG
NEWSG
NEWTHREAD
ld.atom.acq.scopedev.sc1.semsc0.semsc1 z = 1
ld.vis.scopedev.sc0 x = 1
"""
    sc = parse(text, "inline.test").scenario
    with_chains = [e for e in enumerate_executions(sc, Options(chains=True)) if e.consistent]
    without = [e for e in enumerate_executions(sc, Options(chains=False)) if e.consistent]
    assert with_chains and not any(e.races for e in with_chains)
    assert without and all(e.races for e in without)


def test_coherence_forbids_reading_older_value_after_newer() -> None:
    # CoRR with device-scope atomics in one thread: a later read cannot see an older write
    evs = [_ev(Kind.STORE, 0, 0, "x", atomic=True, av=True, scope=Scope.AGENT, write_value=1),
           _ev(Kind.LOAD, 1, 0, "x", atomic=True, vis=True, scope=Scope.AGENT, read_value=1),
           _ev(Kind.LOAD, 1, 0, "x", atomic=True, vis=True, scope=Scope.AGENT, read_value=0)]
    sc = Scenario(evs, [[0], [1, 2]], rf_allowed={1: [0], 2: [INIT]})
    assert not any(e.consistent for e in enumerate_executions(sc))


def test_api_analyze_with_workgroup_barrier() -> None:
    # store; s_barrier (release/acquire, workgroup; AMDGPU release/acquire make available/visible by
    # default) ; load in another wave of the workgroup: no race, the load sees only the stored value.
    # Without MakeAvailable/MakeVisible the non-atomic pair races; across workgroups the barrier does
    # not pair at all.
    from amddbg.models.api import analyze

    def prog(wg_reader: int, avvis: bool = True):
        st = _ev(Kind.STORE, 0, 0, "x", nonpriv=True, write_value=1, label="global_store x")
        b0 = _ev(Kind.CBAR, 0, 0, acquire=True, release=True, scope=Scope.WORKGROUP, semsc=frozenset({0}),
                 barrier="s_barrier#1", label="s_barrier", semav=avvis, semvis=avvis)
        b1 = _ev(Kind.CBAR, 1, wg_reader, acquire=True, release=True, scope=Scope.WORKGROUP,
                 semsc=frozenset({0}), barrier="s_barrier#1", label="s_barrier", semav=avvis, semvis=avvis)
        ld = _ev(Kind.LOAD, 1, wg_reader, "x", nonpriv=True, label="global_load x")
        return analyze([[st, b0], [b1, ld]]), ld

    a, ld = prog(0)
    idx = a.events.index(ld)
    assert not a.races and a.read_values[idx] == {1}
    a, ld = prog(0, avvis=False)
    assert a.races and "missing" in " ".join(a.races[0].explanation)
    a, ld = prog(1)
    assert a.races and "not ordered by happens-before" in a.races[0].explanation[1]
    assert a.read_values[a.events.index(ld)] == {0, 1}


def test_amdgpu_release_acquire_make_available_unless_av_none() -> None:
    # "A synchronization operation with at least release ordering is a MakeAvailable operation with
    # scope syncscope, if it is not marked as !{!"amdgcn-av", !"none"}" (and acquire -> MakeVisible)
    from amddbg.models.api import amdgpu_event, analyze

    def inst(t):
        return {Scope.WAVEFRONT: t, Scope.WORKGROUP: 0, Scope.CLUSTER: 0, Scope.QUEUE_FAMILY: 0,
                Scope.AGENT: 0, Scope.SYSTEM: 0}

    def prog(av_none: bool):
        st = amdgpu_event(Kind.STORE, 0, inst(0), loc="data", write_value=1, label="store data")
        rel = amdgpu_event(Kind.STORE, 0, inst(0), loc="flag", ordering="release", syncscope=Scope.AGENT,
                           av_none=av_none, write_value=1, label="store atomic release flag")
        acq = amdgpu_event(Kind.LOAD, 1, inst(1), loc="flag", ordering="acquire", syncscope=Scope.AGENT,
                           av_none=av_none, read_value=1, label="load atomic acquire flag")
        ld = amdgpu_event(Kind.LOAD, 1, inst(1), loc="data", label="load data")
        return analyze([[st, rel], [acq, ld]])

    ok = prog(False)
    assert not ok.races and ok.read_values[3] == {1}
    bad = prog(True)
    assert bad.races and bad.read_values[3] == {0, 1}
