"""The f32 unary closures (fastpath._unary32: v_rcp, v_sqrt, v_rsq, v_floor, v_fract, v_exp, v_log...) against
the generic semantics (vfloat._arith), on random wave states and on edge values (zeros of both signs, denormals,
infinities, NaNs, negatives under sqrt/log, huge and tiny magnitudes) under every MODE `_wave` draws."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from test_fastpath import _run, _wave

from amddbg.emu.machine import Machine
from amddbg.emu.semantics import lookup
from amddbg.emu.semantics.fastpath import compile_fast

COREFILES = Path(__file__).resolve().parents[2] / "corefiles"
OBJECTS = ["speed/speed-llvm22-gfx942-w64-O2", "speed/speed-llvm22-gfx1100-w32-O2",
           "oracle/oracle-llvm22-gfx1100-w32-O0", "oracle/oracle-llvm22-gfx90a-w64-O2",
           "oracle/oracle-llvm19-gfx1200-w32-O2", "heldout/heldout-llvm22-gfx942-w64-O2",
           "heldout/heldout-llvm22-gfx1200-w64-O2"]
EDGES = [0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000,
         0x7F800001, 0x3F800000, 0xBF800000, 0x40490FDB, 0x3EAAAAAB, 0x5F000000, 0x20000000, 0xC2F00000,
         0x42FE0000, 0x4B000001, 0xCB7FFFFF, 0x3F000000, 0x3FC00000, 0xBFC00000]
# no lane whose result is a NaN (any NaN sends the whole instruction to the generic path): the fast branch itself
POSITIVE = [x for x in EDGES if not x >> 31 and (x & 0x7F800000) != 0x7F800000] + [0x7F800000, 1, 0x007FFFFF, 2]


def _unary(fn) -> bool:
    return getattr(fn, "__qualname__", "").startswith("_unary32.")


@pytest.mark.parametrize("name", OBJECTS)
def test_unary_closures_match_the_generic_semantics(name):
    m = Machine(COREFILES / f"{name}.co")
    m.clock = 1000
    lanes = 32 if "-w32-" in name else 64
    rng = random.Random(name)
    seen = 0
    done: set[str] = set()
    edges = [np.resize(np.array(e, dtype=np.uint32), lanes) for e in (EDGES, POSITIVE)]
    for insn in m.instructions.values():
        generic = lookup(insn)
        fast = compile_fast(insn, generic, lanes)
        if not _unary(fast) or insn.text in done:
            continue
        done.add(insn.text)
        seen += 1
        for exec_kind in ("all", "some", "none", "all-finite", "some-finite", "all", "some"):
            # random states with `_wave`'s MODE; edge values under each MODE: the default, everything flushed,
            # f32 denormals flushed on input or output only, and directed rounding
            for mode in (None, 0x3F0, 0x0, 0x3C0, 0x3D0, 0x3E0, 0x3F1, 0x3F3):
                seed = rng.getrandbits(32)
                w1 = _wave(m, lanes, random.Random(seed), exec_kind)
                w2 = _wave(m, lanes, random.Random(seed), exec_kind)
                if mode is not None:
                    for w in (w1, w2):
                        w.v[:] = np.roll(edges[seed % 2], seed % lanes)[None, :]
                        w.mode = mode
                want = _run(generic, m, w1, insn)
                got = _run(fast, m, w2, insn)
                assert got == want, f"{name} {insn.address:#x} {insn.text} (exec {exec_kind}, mode {mode})"
    if name.startswith("speed/"):  # f32_newton: v_rcp_f32 and v_sqrt_f32
        assert seen >= 2, seen
