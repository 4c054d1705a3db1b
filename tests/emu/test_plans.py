"""What the machine derives per instruction and keeps: execution plans, shared by instructions decoded from the
same bytes (`isa.model.shared_fields`) but never by their addresses, and the SDWA forms kept per register-file
size. Real clang code objects from the oracle corpus."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from amddbg.emu import machine as emu_machine
from amddbg.emu.machine import Machine
from amddbg.emu.semantics import Ctx, forget_instructions, lookup
from amddbg.emu.wave import Wave
from amddbg.isa.model import shared_fields

ORACLE = Path(__file__).resolve().parents[2] / "corefiles" / "oracle"
OBJECTS = ["oracle-llvm22-gfx90a-w64-O2", "oracle-llvm19-gfx942-w64-O0", "oracle-llvm22-gfx1100-w32-O0",
           "oracle-llvm19-gfx1200-w64-O2"]


def _wave(m: Machine, vgprs: int, seed: int) -> Wave:
    lanes = m.lanes
    w = Wave(family=m.family, processor=m.processor, lanes=lanes, vgprs=vgprs, workgroup=(0, 0, 0), wave_in_group=0,
             group_key=0, index=0)
    rng = np.random.default_rng(seed)
    w.v = rng.integers(0, 1 << 32, size=(vgprs, lanes), dtype=np.uint32)
    w.s = [int(x) for x in rng.integers(0, 1 << 32, size=128)]
    w.exec = int(rng.integers(1, 1 << 62)) & w.mask or 1
    w.vcc = int(rng.integers(0, 1 << 62)) & w.mask
    w.scc = 1
    return w


@pytest.mark.parametrize("obj", OBJECTS)
def test_same_bytes_share_the_semantics_not_the_address(obj):
    """Two instructions with the same bytes at different addresses: one semantic function and one counter list,
    each its own instruction and fall-through PC."""
    emu_machine.forget_decoded()
    m = Machine(ORACLE / f"{obj}.co")
    first: dict[bytes, object] = {}
    pairs = 0
    for pc, insn in sorted(m.instructions.items()):
        if shared_fields(insn) is None or insn.is_branch:
            continue
        prev = first.setdefault(insn.raw, insn)
        if prev is insn:
            continue
        assert shared_fields(prev) is shared_fields(insn)
        a, b = m._plan(prev.address), m._plan(pc)
        assert a[1] is b[1] and a[3] == b[3]
        assert a[0] is prev and b[0] is insn
        assert (a[2], b[2]) == (prev.address + prev.size, pc + insn.size)
        pairs += 1
    assert pairs > 50


@pytest.mark.parametrize("obj", ["oracle-llvm19-gfx942-w64-O0", "oracle-llvm22-gfx1100-w32-O0"])
def test_each_branch_jumps_to_its_own_target(obj):
    """Branches with the same bytes at different addresses (the same relative offset) go to different targets:
    whatever the decoder shares, a branch's plan is its own."""
    emu_machine.forget_decoded()
    m = Machine(ORACLE / f"{obj}.co")
    seen: dict[bytes, int] = {}
    checked = 0
    for pc, insn in sorted(m.instructions.items()):
        if insn.mnemonic != "s_branch":
            continue
        seen[insn.raw] = seen.get(insn.raw, 0) + 1
        plan = m._plan(pc)
        w = _wave(m, 16, pc)
        ctx = Ctx(w, m)
        plan[1](ctx, insn)
        simm16 = int.from_bytes(insn.raw[:2], "little", signed=True)
        assert ctx.next_pc == pc + 4 + 4 * simm16, insn.text
        checked += 1
    assert checked and any(n > 1 for n in seen.values()), "-O0 code repeats its loop-back branches"


def test_sdwa_forms_follow_the_register_file_size():
    """An SDWA instruction extracts its sources into temporary VGPRs after the wave's register file, whose size can
    differ from one execution to the next: the form kept from a first execution on a small file must give a larger
    file exactly what a first execution on it gives."""
    m = Machine(ORACLE / "oracle-llvm22-gfx90a-w64-O2.co")
    sdwa = [i for i in m.instructions.values() if i.mnemonic.endswith("_sdwa")]
    assert sdwa, "the gfx90a -O2 oracle object has SDWA instructions"
    rng = random.Random(7)
    for insn in rng.sample(sdwa, min(12, len(sdwa))):
        fn = lookup(insn)
        top = max(o.register + o.count for o in insn.operands if o.kind.name == "VGPR")
        forget_instructions()
        fn(Ctx(_wave(m, top, 1), m), insn)  # a first execution on the smallest file its operands allow
        kept = _wave(m, top + 40, 2)
        fn(Ctx(kept, m), insn)
        forget_instructions()
        fresh = _wave(m, top + 40, 2)
        fn(Ctx(fresh, m), insn)
        assert kept.v.shape == fresh.v.shape and np.array_equal(kept.v, fresh.v), insn.text
        assert (kept.vcc, kept.s, kept.exec) == (fresh.vcc, fresh.s, fresh.exec), insn.text
