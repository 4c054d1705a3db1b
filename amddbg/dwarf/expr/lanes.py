"""Per-lane program locations: `DW_AT_LLVM_lane_pc` and `DW_AT_LLVM_active_lane`.

The manual: an active lane's PC is the current PC; an inactive lane that was active on entry is at "the
program location in the subprogram at which execution of the lane is conceptually positioned"; a lane not
active on entry has the undefined location, and "conceptually the lane only has the call frames that it
has a non-undefined DW_AT_LLVM_lane_pc". Producers without lane PCs (upstream clang) give no such
information: their inactive lanes are reported at the wave PC and marked as such.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from amddbg.dwarf.expr.context import Context
from amddbg.dwarf.expr.evaluator import Evaluator, read_bits
from amddbg.dwarf.expr.location import UndefinedLocation
from amddbg.dwarf.expr.ops import Op


class LaneState(enum.Enum):
    ACTIVE = "active"  # lane executes at the wave PC
    DIVERGENT = "divergent"  # inactive, positioned at the lane PC the producer described
    NOT_IN_FRAME = "not-in-frame"  # undefined lane PC: not active on entry to this subprogram
    INACTIVE_AT_WAVE_PC = "inactive-at-wave-pc"  # inactive, producer has no lane PC: shown at wave PC

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True, slots=True)
class LanePC:
    lane: int
    pc: int | None
    state: LaneState


def active_mask(context: Context, expression: bytes | Sequence[Op] | None, *, lanes: int,
                exec_mask: int, **options) -> int:
    """`DW_AT_LLVM_active_lane`: "read an integral value of bit size DW_AT_LLVM_lanes; bit N = lane N
    active". Without the attribute the hardware EXEC mask is the answer."""
    if expression is None:
        return exec_mask & ((1 << lanes) - 1)
    loc = Evaluator(context, cfi=False, **options).run(expression).result()
    return read_bits(context, loc, lanes)


def lane_pcs(context: Context, expression: bytes | Sequence[Op] | None, *, lanes: int, wave_pc: int,
             active: int, **options) -> list[LanePC]:
    """Program location of every lane of a frame.

    `expression` is the subprogram's `DW_AT_LLVM_lane_pc` (None when absent); `active` the active-lane mask
    (see `active_mask`). The lane-PC location is a vector of `lanes` generic-type (64-bit) elements.
    """
    if expression is None:
        return [LanePC(n, wave_pc, LaneState.ACTIVE if (active >> n) & 1 else LaneState.INACTIVE_AT_WAVE_PC)
                for n in range(lanes)]
    loc = Evaluator(context, **options).run(expression).result()
    out = []
    for n in range(lanes):
        if (active >> n) & 1:
            out.append(LanePC(n, wave_pc, LaneState.ACTIVE))
            continue
        try:
            pc = read_bits(context, loc.offset_bits(64 * n) if n else loc, 64)
        except UndefinedLocation:
            out.append(LanePC(n, None, LaneState.NOT_IN_FRAME))
            continue
        out.append(LanePC(n, pc, LaneState.DIVERGENT))
    return out
