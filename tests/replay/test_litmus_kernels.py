"""Litmus-derived kernels (issue 11 acceptance): the emulator's outcomes against the memory model's verdicts.

Every message-passing, store-buffering and barrier litmus test that the generator can map
(amddbg/replay/litmus_kernels.py) is a kernel in corefiles/litmus-kernels/litmus-<target>.co. Each is run
under a bounded exploration of schedules and visibility orders (amddbg/emu/explore.py) and the outcomes are
compared with `amddbg.models.verdict.decide` on the same litmus file:
- soundness: an outcome the model forbids is never reached (a hard failure: the emulator's caches, or the
  compiler mapping, let through something the AMDGPU memory model does not allow) — both the test's own
  question and every whole outcome (all registers and final locations) the runs end in;
- completeness: an outcome the model allows is reached, or the test is in CANNOT_PRODUCE with the reason;
  an entry there that the emulator does reach fails too, so the table stays true.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amddbg.replay import litmus_kernels as lk

pytestmark = pytest.mark.skipif(not lk.LITMUS_DIR.is_dir(), reason=f"litmus oracle not found at {lk.LITMUS_DIR}")

CANNOT_PRODUCE = lk.CANNOT_PRODUCE  # the justified table lives next to the mapping (amddbg litmus --emulate prints it)

FAST_TARGETS = ("gfx90a", "gfx1100")
SLOW_TARGETS = ("gfx942", "gfx1200")
FAST_SEEDS = range(10)  # odd seeds 1..9: five launch orders one after another (the identity first); even: overlapped
SLOW_SEEDS = range(20)

_KERNELS: list | None = None
_VERDICTS: dict = {}


def kernels() -> list:
    global _KERNELS
    if _KERNELS is None:
        _KERNELS = lk.all_kernels()
    return _KERNELS


def mapped() -> list:
    return [k for k in kernels() if not k.skip]


def verdict(k):
    from amddbg.models.verdict import decide

    if k.name not in _VERDICTS:
        _VERDICTS[k.name] = decide(k.test)
    return _VERDICTS[k.name]


def test_checked_in_sources_are_the_generators_output():
    """The .hip files are what the generator makes today (rebuild with corefiles/litmus-kernels/build.py)."""
    src = lk.ROOT / "src"
    on_disk = {p.stem: p.read_text() for p in src.glob("*.hip")}
    made = {k.name: k.source() for k in mapped()}
    assert set(on_disk) == set(made)
    for name, text in made.items():
        assert on_disk[name] == text, f"{name}.hip is stale: rerun corefiles/litmus-kernels/build.py"
    for t in lk.TARGETS:
        assert lk.code_object(t).is_file()


def test_mapping_covers_the_three_families_and_says_why_it_skips():
    names = [Path(k.path).stem for k in mapped()]
    assert any(n.startswith("mp") for n in names)
    assert any(n.startswith("SB") for n in names)
    assert any(n.startswith(("barrier", "quorum", "cbar")) for n in names)
    assert len(mapped()) >= 40
    for k in kernels():
        if k.skip:
            assert len(k.skip) > 20  # a reason, not a flag
    skipped = {Path(k.path).name: k.skip for k in kernels() if k.skip}
    assert "quorum" in skipped["quorum1-hang.litmus"]
    assert "spans workgroups" in skipped["barrier-not-inscope.litmus"]
    assert "cbar-1.litmus" not in skipped and "xf-barrier.litmus" not in skipped  # spin loops are mapped


def test_mapping_of_scopes_orders_and_availability():
    k = lk.from_file(lk.LITMUS_DIR / "khronos" / "mp.test")
    src = k.source()
    assert "__hip_atomic_store(&mem[16], 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP)" in src
    assert "__hip_atomic_load(&mem[16], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP)" in src
    # st.av.scopedev: the store, then the release that makes it available; ld.vis: the acquire first
    assert src.index("*(&mem[0]) = 1;") < src.index('__builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent")')
    acq = src.index('__builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent")')
    assert acq < src.index("= *(&mem[0]);")
    assert (len(k.groups), k.waves_per_group) == (1, 2)  # one litmus workgroup: two waves of one HIP workgroup
    k2 = lk.from_file(lk.LITMUS_DIR / "khronos" / "mpnotinscope1.test")
    assert (len(k2.groups), k2.waves_per_group) == (2, 1)
    assert "__HIP_MEMORY_SCOPE_AGENT" in k2.source()
    bar = lk.from_file(lk.LITMUS_DIR / "dat3m" / "Barrier" / "barrier-inscope.litmus").source()
    assert '__builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");\n    __builtin_amdgcn_s_barrier();' in bar
    xf = lk.from_file(lk.LITMUS_DIR / "dat3m" / "Manual" / "xf-barrier.litmus")
    src = xf.source()
    assert (len(xf.groups), xf.waves_per_group) == (3, 2)
    assert "P0_LC00:;" in src and "if (r9 != 0) goto P0_LC01;" in src and "goto P0_LC00;" in src
    # a plain load in a test with loops is a relaxed atomic, so the spin's load stays in the loop
    assert "r0 = __hip_atomic_load(&mem[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT);" in src


def _check_target(target: str, seeds) -> list[str]:
    from amddbg.codeobj import CodeObject

    co = CodeObject.from_path(lk.code_object(target))
    problems = []
    for k in mapped():
        runs = lk.explore_kernel(k, target, seeds=seeds, co=co)
        c = lk.compare(k, target, runs, verdict(k))
        if c.failures:
            problems.append(f"{k.name} ({target}): runs did not complete: {c.failures[:3]}")
        if not c.termination_agrees:
            problems.append(f"{k.name} ({target}): {c.hangs} of {c.runs} runs hang, the model says terminates="
                            f"{c.model_terminates}")
        for o in c.outcomes:  # every outcome reached, not only the test's question, must be allowed
            if k.model_allows_outcome(o) is False:
                problems.append(f"UNSOUND {k.name} ({target}): the model has no execution ending in {o}")
        if not c.sound:
            bad = [o for o in c.outcomes if k.target(o)]
            problems.append(f"UNSOUND {k.name} ({target}): the model forbids {k.question()} but the emulator "
                            f"reached {bad[0]}")
        elif c.model_allows and not c.reached and k.name not in CANNOT_PRODUCE:
            problems.append(f"{k.name} ({target}): the model allows {k.question()}, not reached in {c.runs} runs; "
                            f"outcomes: {sorted(c.outcomes)}")
        elif c.reached and k.name in CANNOT_PRODUCE:
            problems.append(f"{k.name} ({target}): reached although CANNOT_PRODUCE says it cannot be")
    return problems


@pytest.mark.parametrize("target", FAST_TARGETS)
def test_emulator_outcomes_agree_with_the_model(target):
    assert _check_target(target, FAST_SEEDS) == []


@pytest.mark.slow
@pytest.mark.parametrize("target", SLOW_TARGETS)
def test_emulator_outcomes_agree_with_the_model_more_targets(target):
    assert _check_target(target, FAST_SEEDS) == []


@pytest.mark.slow
def test_longer_sweep_stays_sound():
    """More seeds on gfx90a: still no forbidden outcome (the bound is what makes the fast test fast)."""
    problems = [p for p in _check_target("gfx90a", SLOW_SEEDS) if p.startswith("UNSOUND")]
    assert problems == []


def test_a_loop_that_never_exits_hangs_in_the_emulator_too():
    """cbar-2: P1 spins until x != 1 and x stays 1, so the model says the test does not terminate; every run
    of the kernel ends in a hang (the machine state repeats), none completes."""
    k = lk.from_file(lk.LITMUS_DIR / "dat3m" / "Manual" / "cbar-2.litmus")
    c = lk.compare(k, "gfx90a", lk.explore_kernel(k, "gfx90a", seeds=range(3)), verdict(k))
    assert c.model_terminates is False and c.hangs == c.runs and not c.outcomes and c.agrees


def test_forbidden_outcomes_are_there_to_be_found():
    """The soundness check is not vacuous: forbidden questions exist, and the same kernels reach other outcomes
    (the exploration does vary what the readers see)."""
    forbidden = [k for k in mapped() if not k.model_allows_target(verdict(k))]
    assert len(forbidden) >= 5
    k = next(k for k in forbidden if k.name == "litmus_khronos_mpnotinscope1")
    runs = lk.explore_kernel(k, "gfx90a", seeds=FAST_SEEDS)
    assert len({r.outcome for r in runs}) >= 3


def test_whole_outcome_check_rejects_what_the_model_forbids():
    """`model_allows_outcome` is not a rubber stamp: message passing's stale read is refused where the test
    synchronizes, thin-air values are refused, and store buffering's (0, 0) is allowed."""
    mp = lk.from_file(lk.LITMUS_DIR / "khronos" / "mpnotinscope1.test")
    assert mp.model_allows_outcome((("P1:r2", 1), ("P1:r3", 0), ("x", 1), ("y", 1))) is False
    assert mp.model_allows_outcome((("P1:r2", 1), ("P1:r3", 1), ("x", 1), ("y", 1))) is True
    assert mp.model_allows_outcome((("P1:r2", 7), ("P1:r3", 1), ("x", 1), ("y", 1))) is False
    av = lk.from_file(lk.LITMUS_DIR / "dat3m" / "Manual" / "MP-avvis.litmus")
    assert av.model_allows_outcome((("P1:r0", 1), ("P1:r1", 0), ("x", 1), ("y", 1))) is False
    assert av.model_allows_outcome((("P1:r0", 1), ("P1:r1", 1), ("x", 0), ("y", 1))) is False  # final x lost
    sb = lk.from_file(lk.LITMUS_DIR / "dat3m" / "Manual" / "SB-2-dv.litmus")
    assert sb.model_allows_outcome((("P0:r0", 0), ("P1:r1", 0), ("x", 1), ("y", 1))) is True


def test_cli_emulate_prints_the_outcomes_next_to_the_verdict(capsys):
    import json

    from amddbg.cli.main import main

    path = str(lk.LITMUS_DIR / "khronos" / "mpnotinscope1.test")
    assert main(["litmus", path, "--emulate", "--seeds", "4"]) == 0
    out = capsys.readouterr().out
    assert "condition holds: no" in out
    assert "emulator (gfx90a, kernel litmus_khronos_mpnotinscope1, 32 runs)" in out
    assert "model forbids it, emulator did not reach it -> agrees" in out
    sb = str(lk.LITMUS_DIR / "dat3m" / "Manual" / "SB-2-wg.litmus")
    assert main(["litmus", "--json", sb, "--emulate", "--target", "gfx1100", "--seeds", "2"]) == 0
    e = json.loads(capsys.readouterr().out)["emulator"]
    assert e["kernel"] == "litmus_manual_SB_2_wg" and e["sound"] is True and e["reached_question"] is False
    assert "one CU" in e["cannot_produce"]
    assert all(x["model_allows"] for x in e["outcomes"])
    hang = str(lk.LITMUS_DIR / "dat3m" / "Barrier" / "quorum1-hang.litmus")
    assert main(["litmus", hang, "--emulate"]) == 0
    assert "not run: barrier quorum 4 differs" in capsys.readouterr().out
    spin = str(lk.LITMUS_DIR / "dat3m" / "Manual" / "cbar-2.litmus")
    assert main(["litmus", spin, "--emulate", "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert "terminates: no" in out and "16 of 16 runs hang (the model: some execution does not terminate)" in out
