"""Held-out proxy corpus: real clang-built kernels written apart from the emulator (corefiles/heldout/heldout.hip:
softmax/layernorm rows, shuffle reductions and scans, ballot compaction, LDS-tiled f32 and half2 GEMMs, a stencil,
CSR SpMV, radix digit counts, a chained scan, bit tricks, hashes, conversions, grid-stride loops, structs by value,
a bytecode interpreter, recursion, float atomics, bucket atomics, int8 dot products, vector types, block votes,
dynamic LDS, transcendentals) must write what their host twins (corefiles/heldout/twins.py) compute, on every
checked-in object (clang-19/22; gfx90a, gfx942, gfx1100 and gfx1200 wave32/wave64; clang-22 gfx1250 wave32;
-O0/-O2).

By default every kernel runs on three objects (one per ISA family, -O2 and -O0); the rest of the matrix is marked
slow, and CI runs its cover (tests/bounded.py: the cases that, with the defaults, run every kernel, target, compiler
and level somewhere, rotating; AMDDBG_SLOW_LIMIT=0 runs all of it).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
HELDOUT = ROOT / "corefiles" / "heldout"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"amddbg_heldout_{name}", HELDOUT / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


runner = _load("runner")
CASES = {c.kernel: c for c in runner.twins.all_cases()}
OBJECTS = runner.objects()
DEFAULT = {"heldout-llvm22-gfx90a-w64-O2.co", "heldout-llvm19-gfx1100-w32-O2.co", "heldout-llvm22-gfx1200-w64-O0.co",
           "heldout-llvm22-gfx1250-w32-O2.co"}
# known failures, each with its cause (docs/emulator.md, "Held-out proxy corpus"); the test fails if one passes
MISCOMPILED = [f"heldout-llvm22-gfx1100-w{w}-O0.co" for w in (32, 64)]
KNOWN = {(o, "bit_twiddle"): "clang-22 -O0 true16 miscompiles __builtin_bswap64 (a 16-bit copy feeds v_perm_b32); "
         "test_bswap64_miscompile_runs_as_emitted checks the emulator runs the emitted code" for o in MISCOMPILED}


def _params():
    """Every kernel on DEFAULT, and the slow sample of the rest (tests/bounded.py); known failures are strict xfails."""
    out = []
    for c in bounded.matrix(OBJECTS, list(CASES), fast=DEFAULT):
        marks = [pytest.mark.slow] if c.slow else []
        if (c.obj.name, c.kernel) in KNOWN:
            marks.append(pytest.mark.xfail(reason=KNOWN[(c.obj.name, c.kernel)], strict=True))
        out.append(pytest.param(c.obj, c.kernel, marks=marks, id=f"{c.obj.stem[len('heldout-'):]}-{c.kernel}"))
    return out


def test_corpus_is_complete():
    """26 objects: both compilers x (gfx90a, gfx942 wave64; gfx1100, gfx1200 wave32 and wave64) x O0/O2, and
    clang-22 gfx1250 wave32 x O0/O2; 24 kernels."""
    assert len(OBJECTS) == 26, [p.name for p in OBJECTS]
    assert len(CASES) == 24


@pytest.mark.parametrize("obj,kernel", _params())
def test_kernel_matches_host_twin(obj, kernel):
    out = runner.run_case(obj, CASES[kernel])
    assert out.ok, f"{obj.name} {kernel}: {out.status}: {out.detail}"


def test_tolerance_is_tight():
    """A tolerance case still fails on a wrong answer: one softmax output off by 1e-4 relative is a mismatch."""
    import numpy as np

    case = CASES["softmax_rows"]

    def off(wave):
        outs = case.twin(wave)
        outs[0] = outs[0].copy()
        outs[0][5] *= np.float32(1.0001)
        return outs

    bad = runner.twins.Case(case.kernel, case.grid, case.block, case.args, off, tolerance=case.tolerance)
    out = runner.run_case(HELDOUT / "heldout-llvm22-gfx90a-w64-O2.co", bad)
    assert not out.ok and out.status == "mismatch" and "[5]" in out.detail


def test_every_corpus_mnemonic_has_semantics():
    missing = runner.missing_mnemonics(runner.corpus_mnemonics(OBJECTS))
    assert not missing, sorted(missing)


def _bswap32(v):
    import numpy as np

    v = np.asarray(v, dtype=np.uint64) & np.uint64(0xFFFFFFFF)
    return ((v & np.uint64(0xFF)) << np.uint64(24) | (v & np.uint64(0xFF00)) << np.uint64(8)
            | (v >> np.uint64(8)) & np.uint64(0xFF00) | v >> np.uint64(24))


@pytest.mark.parametrize("name", MISCOMPILED)
def test_bswap64_miscompile_runs_as_emitted(name):
    """clang-22 at -O0 for gfx1100 (real true16, its default) selects __builtin_bswap64(x) as two v_perm_b32 byte
    reversals whose 32-bit sources are 16-bit copies (isel: `vgpr_16 = COPY x.sub0`, `vgpr_32 = COPY vgpr_16`):
    `v_mov_b16 v1.l, v2.l; v_perm_b32 v1, 0, v1, 0x10203` and `v_mov_b16 v2.l, v3.l; v_perm_b32 v5, 0, v2, ..`. The
    high halves are never written, so the code computes bswap64 only where they happen to hold the right bytes: a
    compiler bug (-mattr=-real-true16 or -O1 emit plain v_perm_b32 of x's halves), not an emulator one. What the
    emitted code computes when a true16 write of one half keeps the other (zeroing it instead would not give
    bswap64 either; it changes the low word's prediction, which this checks):
    low word = bswap32(x.lo[31:16] : x.hi[15:0]) ^ bswap32(y) (v2 still holds x.lo when its low half is replaced);
    high word = bswap32(v1.h : x.lo[15:0]), v1 holding the private (stack) offset of x, below 64 KiB, so v1.h = 0.
    Every other output of the kernel matches the host twin."""
    import numpy as np

    case = CASES["bit_twiddle"]
    out = runner.run_case(HELDOUT / name, case)
    assert out.status == "mismatch" and "arg 2:" in out.detail  # the twin (the source's meaning) is not met
    from amddbg.emu.machine import Machine

    m = Machine(HELDOUT / name)
    x, y = case.args[0], case.args[1]
    specs = [f"buf:u64:{x.size}", f"buf:u64:{y.size}", f"buf:u64:{case.args[2].count}"]
    m.dispatch(case.kernel, case.grid, case.block, specs)
    m.memory.write(m.buffers[0]["address"], x.tobytes())
    m.memory.write(m.buffers[1]["address"], y.tobytes())
    assert m.run(max_instructions=case.max_instructions).status == "completed"
    got = np.frombuffer(m.memory.read(m.buffers[2]["address"], 8 * case.args[2].count), dtype=np.uint64)
    got = got.reshape(x.size, -1)
    want = np.asarray(case.expected(m.lanes)[0], dtype=np.uint64).reshape(x.size, -1)
    others = [k for k in range(got.shape[1]) if k != 3]
    assert (got[:, others] == want[:, others]).all()
    m16, m16h = np.uint64(0xFFFF), np.uint64(0xFFFF0000)
    lo, hi = x & np.uint64(0xFFFFFFFF), x >> np.uint64(32)
    emitted = (_bswap32(lo & m16) << np.uint64(32)) | (_bswap32((lo & m16h) | (hi & m16)) ^ _bswap32(y))
    assert (got[:, 3] == emitted).all()
    assert (emitted != want[:, 3]).sum() == 126  # the source's bswap64(x) ^ bswap32(y) differs on 126 of 128


def test_recursion_overruns_the_default_stack_at_O0():
    """With the whole low byte as powmod_rec's exponent (nine frames deep) the -O0 kernel needs more than the 1 KiB
    per work-item a HIP launch gives a dynamic-stack kernel (ROCm CLR's default hipLimitStackSize): the emulator
    faults on the first private access past it and says why; with a 2 KiB limit (hipDeviceSetLimit, or
    `amddbg run --stack-size`) the same launch completes and matches the host twin."""
    import dataclasses

    deep = runner.twins.case_recursion(exponent_mask=0xFF)
    for name in ("heldout-llvm19-gfx90a-w64-O0.co", "heldout-llvm22-gfx1200-w32-O0.co"):
        out = runner.run_case(HELDOUT / name, deep)
        assert out.status == "fault", (name, out)
        assert "private write outside the 1024-byte private segment" in out.detail, out.detail
        assert "dynamic stack" in out.detail and "--stack-size" in out.detail, out.detail
        assert runner.run_case(HELDOUT / name, dataclasses.replace(deep, stack_size=2048)).ok
        assert runner.run_case(HELDOUT / name, runner.twins.case_recursion()).ok  # the corpus's depth fits


def test_stack_size_sets_a_dynamic_stack_kernels_private_segment():
    """As ROCm CLR does: max(limit rounded up to 16, the kernel's fixed size), at most 16 KiB, for a kernel whose
    metadata says uses_dynamic_stack; a kernel without one keeps its fixed size; past 128 KiB - 16 is refused."""
    from amddbg.emu.errors import EmulatorError
    from amddbg.emu.machine import Machine

    co = HELDOUT / "heldout-llvm22-gfx942-w64-O0.co"
    args = ["buf:i32:640", "buf:i32:640", "buf:u32:64", "buf:u64:64"]
    sizes = {}
    for limit in (None, 0, 1000, 4096, 20000):
        m = Machine(co)
        m.dispatch("recursion", (64, 1, 1), (64, 1, 1), args, **({} if limit is None else {"stack_size": limit}))
        sizes[limit] = m.dispatch_info["private_size"]
    assert sizes == {None: 1024, 0: 256, 1000: 1008, 4096: 4096, 20000: 16384}  # 256: the fixed size
    m = Machine(HELDOUT / "heldout-llvm22-gfx942-w64-O2.co")  # at -O2 bit_twiddle has no dynamic stack
    m.dispatch("bit_twiddle", (64, 1, 1), (64, 1, 1), ["buf:u64:64", "buf:u64:64", "buf:u64:1024"], stack_size=4096)
    assert not m.kernel.metadata.uses_dynamic_stack
    assert m.dispatch_info["private_size"] == (m.kernel.descriptor.private_segment_fixed_size + 3) // 4 * 4
    with pytest.raises(EmulatorError, match="hipLimitStackSize"):
        Machine(co).dispatch("recursion", (64, 1, 1), (64, 1, 1), args, stack_size=128 * 1024)


def test_run_cli_stack_size(tmp_path):
    """`amddbg run --stack-size BYTES` is hipDeviceSetLimit(hipLimitStackSize) for the launch."""
    import json
    import subprocess

    co = HELDOUT / "heldout-llvm22-gfx1100-w32-O0.co"
    base = [sys.executable, "-m", "amddbg", "run", str(co), "--kernel", "recursion", "--grid", "32", "--block", "32",
            "--arg", "buf:i32:320:fill=255", "--arg", "buf:i32:320", "--arg", "buf:u32:32", "--arg", "buf:u64:32",
            "--json"]
    docs = {}
    for extra in ([], ["--stack-size", "2048"]):
        r = subprocess.run(base + extra, capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        docs[tuple(extra)] = json.loads(r.stdout)
    assert docs[()]["status"] == "fault" and "dynamic stack" in docs[()]["reason"]
    done = docs[("--stack-size", "2048")]
    assert done["status"] == "completed"
    assert done["buffers"][1]["values"] == [255] * 320  # sorted copies of ten 255s
    assert done["buffers"][3]["values"] == [pow(255, 255, 1000000007)] * 32
    bad = subprocess.run(base + ["--stack-size", "200000"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--stack-size" in bad.stderr
