"""Differential oracle: real clang-built kernels (corefiles/oracle/oracle.hip) run in the emulator must write exactly
what their host twins (corefiles/oracle/twins.py) compute, bit for bit, on every checked-in object (clang-19 and
clang-22, gfx90a, gfx942, gfx1100 and gfx1200 in wave32 and wave64, -O0 and -O2; gfx1250 from clang-22 in wave32,
the only compiler and wave size that build it).

The default run covers every kernel on the clang-22 -O2 objects of all seven target/wave combinations plus three
-O0 objects (gfx1250's among them, the newest target); the rest of the matrix is marked slow. Its CI sample
(tests/bounded.py: one case per kernel and target the defaults leave out) is empty, since the defaults cover every
kernel on every target; AMDDBG_SLOW_LIMIT=0 runs all of it, AMDDBG_SLOW_LIMIT=N N of its rotation over compilers
and levels. A second test decodes every instruction of every object and requires semantics for each mnemonic,
naming the missing ones.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
ORACLE = ROOT / "corefiles" / "oracle"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"amddbg_oracle_{name}", ORACLE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


runner = _load("runner")
CASES = {c.kernel: c for c in runner.twins.all_cases()}
OBJECTS = runner.objects()
DEFAULT = {f"oracle-llvm22-{t}-O2.co" for t in ("gfx90a-w64", "gfx942-w64", "gfx1100-w32", "gfx1100-w64",
                                                "gfx1200-w32", "gfx1200-w64", "gfx1250-w32")}
DEFAULT |= {"oracle-llvm19-gfx90a-w64-O0.co", "oracle-llvm22-gfx1100-w32-O0.co", "oracle-llvm22-gfx1250-w32-O0.co"}


def _params():
    cases = bounded.matrix(OBJECTS, list(CASES), fast=DEFAULT)
    return [pytest.param(c.obj, c.kernel, marks=[pytest.mark.slow] if c.slow else [],
                         id=f"{c.obj.stem[len('oracle-'):]}-{c.kernel}") for c in cases]


def test_corpus_is_complete():
    """26 objects: both compilers x (gfx90a, gfx942 wave64; gfx1100, gfx1200 wave32 and wave64) x O0/O2, and
    clang-22 gfx1250 wave32 x O0/O2 (clang-19 does not know gfx1250; clang-22 refuses wave64 for it)."""
    assert len(OBJECTS) == 26, [p.name for p in OBJECTS]
    assert {p.name for p in OBJECTS if "gfx1250" in p.name} == {"oracle-llvm22-gfx1250-w32-O0.co",
                                                                 "oracle-llvm22-gfx1250-w32-O2.co"}
    assert len(CASES) == 18


@pytest.mark.parametrize("obj,kernel", _params())
def test_kernel_matches_host_twin(obj, kernel):
    out = runner.run_case(obj, CASES[kernel])
    assert out.ok, f"{obj.name} {kernel}: {out.status}: {out.detail}"


def test_every_corpus_mnemonic_has_semantics():
    found = runner.corpus_mnemonics(OBJECTS)
    assert len(found) > 150  # the corpus really was decoded
    made_up = {"v_made_up_b32": {"x"}, "v_dual_mul_f32::v_dual_made_up_b32": {"x"}, "v_mul_f32_e32": {"x"}}
    assert set(runner.missing_mnemonics(made_up)) == {"v_made_up_b32", "v_dual_mul_f32::v_dual_made_up_b32"}
    missing = runner.missing_mnemonics(found)
    listing = "\n".join(f"  {mn} ({len(objs)} objects)" for mn, objs in sorted(missing.items()))
    print(f"{len(missing)} of {len(found)} mnemonics have no semantics:\n{listing}")
    assert not missing, f"{len(missing)} mnemonics in the oracle corpus have no semantics:\n{listing}"


def test_twins_catch_a_wrong_answer():
    """The comparison is bit-exact: one flipped bit in one output element is a mismatch (checked on a kernel that
    passes, with a deliberately corrupted expectation)."""
    import numpy as np

    case = CASES["bitops"]
    good = case.twin

    def corrupted(wave):
        outs = good(wave)
        outs[0] = outs[0].copy()
        outs[0][17] ^= np.uint32(1 << 9)
        return outs

    bad = runner.twins.Case(case.kernel, case.grid, case.block, case.args, corrupted)
    out = runner.run_case(ORACLE / "oracle-llvm22-gfx90a-w64-O2.co", bad)
    assert not out.ok and out.status == "mismatch" and f"1/{runner.twins.NBIT * 64} differ: [17]" in out.detail
