"""The in-place integer and true16 closures (amddbg/emu/semantics/fastint.py) against the generic semantics.

Every instruction of the speed kernels and of oracle/held-out objects whose closure fastint builds runs both
ways on the same random wave states (full, partial and empty EXEC), and the whole wave must come out the same.
Each builder (two-source ops, three-source ops, constant funnel shifts, true16 halves) must have been exercised.
"""

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
OBJECTS = ["speed/speed-llvm22-gfx942-w64-O2", "speed/speed-llvm22-gfx1100-w32-O2", "speed/speed-llvm22-gfx1200-w32-O2",
           "oracle/oracle-llvm22-gfx1100-w32-O0", "oracle/oracle-llvm22-gfx90a-w64-O2",
           "oracle/oracle-llvm19-gfx1200-w32-O2", "heldout/heldout-llvm19-gfx1100-w32-O2",
           "heldout/heldout-llvm22-gfx942-w64-O2"]
BUILDERS = ("binop", "ternop", "_funnel", "half16")


def _builder(fn) -> str | None:
    if getattr(fn, "__module__", "") != "amddbg.emu.semantics.fastint":
        return None
    return fn.__qualname__.split(".")[0]


@pytest.mark.parametrize("name", OBJECTS)
def test_fastint_closures_match_the_generic_semantics(name):
    m = Machine(COREFILES / f"{name}.co")
    m.clock = 1000
    lanes = 32 if "-w32-" in name else 64
    rng = random.Random(name)
    seen: dict[str, int] = {}
    forms: dict[str, int] = {}
    for insn in m.instructions.values():
        generic = lookup(insn)
        fast = compile_fast(insn, generic, lanes)
        kind = _builder(fast)
        if kind is None:
            continue
        seen[kind] = seen.get(kind, 0) + 1
        forms[insn.text] = forms.get(insn.text, 0) + 1
        if forms[insn.text] > 1:
            continue
        for exec_kind in ("all", "some", "none", "all", "some"):
            seed = rng.getrandbits(32)
            w1 = _wave(m, lanes, random.Random(seed), exec_kind)
            w2 = _wave(m, lanes, random.Random(seed), exec_kind)
            want = _run(generic, m, w1, insn)
            got = _run(fast, m, w2, insn)
            assert got == want, f"{name} {insn.address:#x} {insn.text} (exec {exec_kind})"
    assert seen, f"{name}: no fastint closure built"
    if name.startswith("speed/"):  # the hash loop: rotates (alignbit), true16 moves, xor/add/mul/shift
        assert {"binop", "ternop"} <= set(seen) or {"binop", "_funnel"} <= set(seen), seen


def test_every_builder_is_exercised():
    """Across the corpus each builder makes closures (a builder no instruction reaches is untested)."""
    seen: set[str] = set()
    for name in OBJECTS:
        m = Machine(COREFILES / f"{name}.co")
        lanes = 32 if "-w32-" in name else 64
        for insn in m.instructions.values():
            kind = _builder(compile_fast(insn, lookup(insn), lanes))
            if kind:
                seen.add(kind)
    assert seen == set(BUILDERS), seen


def test_wrapping_and_shift_masks_on_edge_values():
    """Edge lanes the random states may miss: wrapping add/sub/mul, shift amounts of 32 and more (masked to 5
    bits), constant funnel shifts of 0 and 31, and the true16 high half next to a low half."""
    m = Machine(COREFILES / "speed" / "speed-llvm22-gfx1100-w32-O2.co")
    edge = np.array([0, 1, 31, 32, 33, 63, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFF0000, 0x0000FFFF, 0x12345678]
                    * 3, dtype=np.uint32)[:32]
    checked = 0
    for insn in m.instructions.values():
        generic = lookup(insn)
        fast = compile_fast(insn, generic, 32)
        if _builder(fast) is None:
            continue
        for roll in range(0, 32, 5):
            w1 = _wave(m, 32, random.Random(roll), "all")
            w2 = _wave(m, 32, random.Random(roll), "all")
            for w in (w1, w2):
                w.v[:] = np.roll(edge, roll)[None, :] ^ np.arange(w.v.shape[0], dtype=np.uint32)[:, None]
                w.s = [int(x) for x in np.resize(np.roll(edge, roll), 128)]
            assert _run(fast, m, w2, insn) == _run(generic, m, w1, insn), insn.text
            checked += 1
    assert checked >= 50
