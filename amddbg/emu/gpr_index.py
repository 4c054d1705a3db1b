"""GFX9 VGPR index mode: what `s_set_gpr_idx_on` turns on until `s_set_gpr_idx_off`.

While MODE.GPR_IDX_EN (bit 27) is set, every VALU instruction's VGPR operands that M0[15:12] selects (bit 0 SRC0,
1 SRC1, 2 SRC2, 3 DST) name the register M0[7:0] further on; LLVM uses it for dynamically indexed arrays kept in
VGPRs (`s_set_gpr_idx_on s2, gpr_idx(DST)`, one `v_mov_b32`, `s_set_gpr_idx_off`, in a waterfall loop when the
index differs between lanes). The machine reads code in this mode through `IndexedPlans`, a plan table whose
instructions have those operands renumbered, so the ordinary path pays nothing: the mode instructions end the
wave's turn (`errors.ModeSwitch`) and the next turn picks the table.
"""

from __future__ import annotations

import dataclasses
import re

from amddbg.emu.semantics import lookup
from amddbg.emu.semantics.salu import GPR_IDX_EN  # the MODE bit (GFX9) s_set_gpr_idx_on sets
from amddbg.isa.model import OperandKind


def index_mode(w) -> bool:
    return w.family == "gfx9" and bool(w.mode & GPR_IDX_EN)


def _renamed(op, idx: int):
    reg = op.register + idx
    text = f"v{reg}" if op.count == 1 else f"v[{reg}:{reg + op.count - 1}]"
    return dataclasses.replace(op, register=reg, text=text)


def indexed(insn, idx: int, modes: int):
    """`insn` with the VGPR operands `modes` selects moved up by `idx` (the instruction itself when none is)."""
    if not insn.mnemonic.startswith("v_") or insn.memory is not None or not (idx and modes):
        return insn
    ops = list(insn.operands)
    text = insn.text
    source = 0
    changed = False
    for k, op in enumerate(ops):
        if op.is_dest:
            pick = bool(modes & 8) and op.kind is OperandKind.VGPR
        else:
            pick = source < 3 and bool(modes >> source & 1) and op.kind is OperandKind.VGPR
            source += 1
        if pick:
            new = _renamed(op, idx)
            ops[k] = new
            text = re.sub(rf"(?<![\w\[:]){re.escape(op.text)}(?![\w\]])", new.text, text, count=1)
            changed = True
    return dataclasses.replace(insn, operands=tuple(ops), text=text) if changed else insn


class IndexedPlans:
    """A wave's plan table in index mode: the machine's plans with `indexed` instructions (generic semantics),
    made per (address, index, mode) and kept on the machine."""

    __slots__ = ("machine", "idx", "modes")

    def __init__(self, machine, w) -> None:
        self.machine = machine
        self.idx = w.m0 & 0xFF
        self.modes = w.m0 >> 12 & 0xF

    def get(self, pc: int):
        m = self.machine
        base = m._plans.get(pc) or m._plan(pc)
        if base is None:
            return None
        key = (pc, self.idx, self.modes)
        hit = m.indexed_plans.get(key)
        if hit is not None and hit[0] is base:  # (an instruction replay replaced has a new base plan)
            return hit[1]
        insn = indexed(base[0], self.idx, self.modes)
        plan = base if insn is base[0] else (insn, lookup(insn) or base[1], base[2], base[3])
        m.indexed_plans[key] = (base, plan)
        return plan
