"""The AMDGPU manual's DW_AT_LLVM_lane_pc example (USAGE "DW_AT_LLVM_lane_pc", nested IF/THEN/ELSE for a
target with 64 lanes), evaluated with DWARF procedures reached through DW_OP_call_ref.

USAGE: "The DWARF procedure %__active_lane_pc is used to update the lane pc elements that are active, with
the current program location." "For an IF/THEN/ELSE region the divergent program location is at the start
of the region for the THEN region since it is executed first." "If they were not active on entry to the
subprogram, then will have the undefined location description."
"""

from __future__ import annotations

from amddbg.dwarf.expr import BaseType, CallTarget, Location, StaticContext, encode, lane_pcs
from amddbg.dwarf.expr.lanes import LaneState
from amddbg.dwarf.expr.location import DW_ATE_unsigned

PC, EXEC = 16, 17
UINT64 = 0x30  # DIE offsets of the example's entities (any distinct numbers)
ACTIVE, DIVERGENT, DIVERGENT_1_THEN, SAVE_EXEC_1 = 0x100, 0x200, 0x300, 0x400
LEX_1_START = 0x1100

active_lane_pc = encode([("DW_OP_regx", PC), ("DW_OP_LLVM_extend", 64, 64),
                         ("DW_OP_regval_type", EXEC, UINT64), ("DW_OP_LLVM_select_bit_piece", 64, 64)])
divergent_lane_pc = encode([("DW_OP_LLVM_undefined",), ("DW_OP_LLVM_extend", 64, 64)])
divergent_1_then = encode([("DW_OP_call_ref", DIVERGENT), ("DW_OP_addrx", 0), ("DW_OP_stack_value",),
                           ("DW_OP_LLVM_extend", 64, 64), ("DW_OP_call_ref", SAVE_EXEC_1),
                           ("DW_OP_deref_type", 8, UINT64), ("DW_OP_LLVM_select_bit_piece", 64, 64)])


def context(pc: int, exec_mask: int, saved_exec: int, save_exec: CallTarget | None = None) -> StaticContext:
    return StaticContext(
        {PC: pc, EXEC: exec_mask, 32 + 10: saved_exec & 0xFFFFFFFF, 32 + 11: saved_exec >> 32},
        wave_size=64,
        base_types={UINT64: BaseType(8, DW_ATE_unsigned, "__uint64")},
        procedures={ACTIVE: CallTarget(expression=active_lane_pc),
                    DIVERGENT: CallTarget(expression=divergent_lane_pc),
                    DIVERGENT_1_THEN: CallTarget(expression=divergent_1_then),
                    # %__lex_1_save_exec: a location computed separately (as from a location list)
                    SAVE_EXEC_1: save_exec or CallTarget(location=Location.register(32 + 10))},
        addresses=[LEX_1_START],
    )


def test_subprogram_entry_region():
    """$lex_start: lane_pc = call_ref %__divergent_lane_pc; call_ref %__active_lane_pc."""
    expr = encode([("DW_OP_call_ref", DIVERGENT), ("DW_OP_call_ref", ACTIVE)])
    exec_mask = 0x0000_0000_0000_00FF
    ctx = context(0x1000, exec_mask, 0)
    pcs = lane_pcs(ctx, expr, lanes=64, wave_pc=0x1000, active=exec_mask)
    assert all(p.state is LaneState.ACTIVE and p.pc == 0x1000 for p in pcs[:8])
    assert all(p.state is LaneState.NOT_IN_FRAME for p in pcs[8:])


def test_then_region_divergent_lanes_sit_at_the_region_start():
    """$lex_1_then: lanes active on region entry (saved EXEC) but not now are at &lex_1_start; lanes never
    active on entry are undefined; active lanes are at the current PC."""
    expr = encode([("DW_OP_call_ref", DIVERGENT_1_THEN), ("DW_OP_call_ref", ACTIVE)])
    saved = 0x0000_0000_0000_FFFF  # active on entry to the IF region
    exec_mask = 0x0000_0000_0000_00F0  # lanes 4..7 took the THEN branch
    pc = 0x1180
    # s[10:11] holds the saved exec: the artificial variable's location is the composite of both halves
    ctx = context(pc, exec_mask, saved, CallTarget(expression=encode(
        [("DW_OP_regx", 32 + 10), ("DW_OP_piece", 4), ("DW_OP_regx", 32 + 11), ("DW_OP_piece", 4)])))
    pcs = lane_pcs(ctx, expr, lanes=64, wave_pc=pc, active=exec_mask)
    assert [(p.pc, p.state) for p in pcs[4:8]] == [(pc, LaneState.ACTIVE)] * 4
    assert [(p.pc, p.state) for p in pcs[:4]] == [(LEX_1_START, LaneState.DIVERGENT)] * 4
    assert [(p.pc, p.state) for p in pcs[8:16]] == [(LEX_1_START, LaneState.DIVERGENT)] * 8
    assert all(p.state is LaneState.NOT_IN_FRAME for p in pcs[16:])
