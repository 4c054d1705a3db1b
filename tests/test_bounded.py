"""tests/bounded.py, the sampler every slow corpus matrix uses: the default sample covers every (kernel class,
target) with the fast cases, every compiler and -O level; AMDDBG_SLOW_LIMIT=0 is everything, N is N; the same
names always give the same cases."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parent.parent
# a real corpus's 24 names: clang-19/22 x gfx90a, gfx942 w64, gfx1100, gfx1200 w32/w64 x -O0/-O2 (the corpus's
# gfx1250 objects, clang-22 wave32 only, left out: the properties below are stated for this six-target shape)
OBJECTS = sorted(p.name for p in (ROOT / "corefiles" / "causehangs").glob("causehangs-llvm*.co")
                 if "gfx1250" not in p.name)
KERNELS = ["a1", "a2", "a3", "b1", "b2", "c1"]
FAST = {"causehangs-llvm22-gfx90a-w64-O2.co", "causehangs-llvm19-gfx1100-w32-O0.co"}


def _cls(k):
    return k[0]


def _matrix(monkeypatch, value):
    if value is None:
        monkeypatch.delenv(bounded.ENV, raising=False)
    else:
        monkeypatch.setenv(bounded.ENV, value)
    return bounded.matrix(OBJECTS, KERNELS, fast=FAST, classes=_cls, sample="cells")


def test_the_default_sample_covers_every_class_target_compiler_and_level(monkeypatch):
    assert len(OBJECTS) == 24
    cases = _matrix(monkeypatch, None)
    fast = [c for c in cases if not c.slow]
    slow = [c for c in cases if c.slow]
    assert {(c.kernel, c.obj) for c in fast} == {(k, o) for k in KERNELS for o in FAST}
    targets = {bounded.axes(o)[1] for o in OBJECTS}
    assert len(targets) == 6
    for cls in "abc":
        mine = [c for c in cases if _cls(c.kernel) == cls]
        assert {bounded.axes(c.obj)[1] for c in mine} == targets  # every target
        assert {bounded.axes(c.obj)[0] for c in mine} == {"19", "22"}
        assert {bounded.axes(c.obj)[2] for c in mine} == {"O0", "O2"}
        # one slow case per target the fast objects leave out (4 of them), each kernel of the class in turn
        picked = [c for c in slow if _cls(c.kernel) == cls]
        assert len(picked) == 4 and len({bounded.axes(c.obj)[1] for c in picked}) == 4
        assert {c.kernel for c in picked} == {k for k in KERNELS if _cls(k) == cls}
        # the samples of a class take both compilers and both levels on their own
        assert {bounded.axes(c.obj)[0] for c in picked} == {"19", "22"}
        assert {bounded.axes(c.obj)[2] for c in picked} == {"O0", "O2"}
    assert cases == _matrix(monkeypatch, "")  # deterministic; empty is unset


def test_zero_is_everything_and_n_is_n(monkeypatch):
    every = _matrix(monkeypatch, "0")
    assert len(every) == len(KERNELS) * len(OBJECTS)
    assert sum(not c.slow for c in every) == len(KERNELS) * len(FAST)
    default = {(c.kernel, c.obj) for c in _matrix(monkeypatch, None) if c.slow}
    for n in (1, 5, 12, 40, 500):
        slow = [(c.kernel, c.obj) for c in _matrix(monkeypatch, str(n)) if c.slow]
        assert len(slow) == min(n, len(KERNELS) * (len(OBJECTS) - len(FAST)))
        if n >= len(default):  # the sample first, then the next rotations
            assert default <= set(slow)
    # the rounds are a partition of the slow cases
    slow = [(k, o) for k in KERNELS for o in OBJECTS if o not in FAST]
    rounds = bounded.rounds(slow, [(k, o) for k in KERNELS for o in FAST], _cls)
    flat = [c for r in rounds for c in r]
    assert sorted(flat) == sorted(slow) and len(set(flat)) == len(flat)


def test_a_fully_covered_matrix_samples_nothing_by_default(monkeypatch):
    """The fast cases already run every kernel on every target (tests/emu/test_oracle.py's shape)."""
    fast = {o for o in OBJECTS if "llvm22" in o and o.endswith("-O2.co")}
    monkeypatch.delenv(bounded.ENV, raising=False)
    assert not [c for c in bounded.matrix(OBJECTS, KERNELS, fast=fast, sample="cells") if c.slow]
    # the cover also wants the other compiler and level: one case has both
    slow = [c for c in bounded.matrix(OBJECTS, KERNELS, fast=fast) if c.slow]
    assert len(slow) == 1 and bounded.axes(slow[0].obj)[::2] == ("19", "O0")
    monkeypatch.setenv(bounded.ENV, "6")
    slow = [c for c in bounded.matrix(OBJECTS, KERNELS, fast=fast, sample="cells") if c.slow]
    assert len(slow) == 6 and {c.kernel for c in slow} == set(KERNELS)  # spread over the round's cells


def test_count_and_bad_values(monkeypatch):
    monkeypatch.delenv(bounded.ENV, raising=False)
    assert bounded.count(12, 88) == 12 and bounded.count(40) == 40
    monkeypatch.setenv(bounded.ENV, "0")
    assert bounded.count(12, 88) == 88 and bounded.count(40) == 40  # a fuzzer keeps its count
    monkeypatch.setenv(bounded.ENV, "7")
    assert bounded.count(12, 88) == 7
    monkeypatch.setenv(bounded.ENV, "-1")
    with pytest.raises(ValueError, match="AMDDBG_SLOW_LIMIT=-1"):
        bounded.limit()
    with pytest.raises(ValueError, match="not a corpus object name"):
        bounded.axes("probe.co")
    assert bounded.spread(list(range(10)), 3) == [0, 3, 6] and bounded.spread([1, 2], 5) == [1, 2]


def test_the_axes_cover_runs_every_class_target_compiler_and_level_somewhere(monkeypatch):
    """sample="axes": a few cases instead of one per (class, target), every class, target, compiler and level still
    run; the cover avoids what `avoid` names; =0 is still everything and N starts with the cover."""
    monkeypatch.delenv(bounded.ENV, raising=False)
    for fast in (set(), FAST):
        cases = bounded.matrix(OBJECTS, KERNELS, fast=fast, classes=_cls, sample="axes")
        assert {(c.kernel, c.obj) for c in cases if not c.slow} == {(k, o) for k in KERNELS for o in fast}
        assert {_cls(c.kernel) for c in cases} == set("abc")
        assert {bounded.axes(c.obj)[1] for c in cases} == {bounded.axes(o)[1] for o in OBJECTS}
        assert {bounded.axes(c.obj)[0] for c in cases} == {"19", "22"}
        assert {bounded.axes(c.obj)[2] for c in cases} == {"O0", "O2"}
        slow = [c for c in cases if c.slow]
        assert len(slow) <= 6  # six targets; the cells sample takes one per (class, target) the fast ones leave
        assert cases == bounded.matrix(OBJECTS, KERNELS, fast=fast, classes=_cls, sample="axes")
    gfx90a = [c for c in bounded.matrix(OBJECTS, KERNELS, classes=_cls, sample="axes",
                                        avoid=lambda k, name: "gfx90a" in name)]
    assert "gfx90a-w64" not in {bounded.axes(c.obj)[1] for c in gfx90a} and len(gfx90a) == 5
    cover = [(c.kernel, c.obj) for c in bounded.matrix(OBJECTS, KERNELS, classes=_cls, sample="axes")]
    monkeypatch.setenv(bounded.ENV, "0")
    assert len(bounded.matrix(OBJECTS, KERNELS, classes=_cls, sample="axes")) == len(KERNELS) * len(OBJECTS)
    monkeypatch.setenv(bounded.ENV, "9")
    nine = [(c.kernel, c.obj) for c in bounded.matrix(OBJECTS, KERNELS, classes=_cls, sample="axes")]
    assert len(nine) == 9 and set(cover) <= set(nine)
    with pytest.raises(ValueError):
        bounded.matrix(OBJECTS, KERNELS, sample="everything")
