"""The EXEC mask a wave runs its program with, when the core caught it inside a whole-wave sequence.

-O0 code spills SGPRs into VGPR lanes with every lane on: `s_or_saveexec_b64 s[20:21], -1` saves EXEC and turns
all lanes on, a few VGPR moves follow, and `s_mov_b64 exec, s[20:21]` restores it. A core taken between the two
shows EXEC all ones, which says nothing about which lanes the program has active (a spinning wave whose lock
holder lane is off would look whole). A called function's prologue does the same for the lanes that are off
(`s_xor_saveexec_b64 s[0:1], -1`: EXEC becomes the complement while it saves their VGPRs). The program's mask is
then the saved one.
"""

from __future__ import annotations

import re

from amddbg.errors import AmddbgError

_SAVE = re.compile(r"^s_(or|xor)_saveexec_b(32|64)$")  # xor: a callee saving the off lanes
_RESTORE = re.compile(r"^s_mov_b(32|64)$")


def program_exec(t, window: int = 16) -> int:
    """The wave's EXEC as its program sees it: the mask a whole-wave `s_or_saveexec ..., -1` (or a prologue's
    `s_xor_saveexec ..., -1`) saved, when the wave stopped before the matching restore; else the saved EXEC."""
    try:
        insns = t.program.disassemble(t.pc)
    except AmddbgError:
        return t.exec
    before = [i for i in insns if i.address < t.pc][-window:]
    for i in reversed(before):
        ops = list(i.operands)
        if i.is_branch:
            return t.exec
        if _RESTORE.match(i.mnemonic) and ops and ops[0].is_dest and ops[0].text.startswith("exec"):
            return t.exec  # restored: EXEC is the program's again
        if _SAVE.match(i.mnemonic) and len(ops) >= 2 and ops[0].is_dest and ops[0].register is not None and \
                ops[-1].text == "-1":
            try:
                v = 0
                for k in range(ops[0].count):
                    v |= t.registers.read_named(f"s{ops[0].register + k}") << (32 * k)
                return v & ((1 << t.lanes) - 1)
            except AmddbgError:
                return t.exec
    return t.exec
