"""Which source variable lives in a stack slot: -O0 keeps every local in the wave's private memory and reloads a
pointer from its slot before each use, so a fault's backward slice (`replay/slicing.py`) ends at a private address
(`("private", 48)`), not at a name. The DWARF says which variable that is: a variable in scope at the PC whose
location (`DW_OP_fbreg +48` with the frame base, or an explicit private-address-space location) evaluates, for the
faulting lane, to memory in the lane's private space at that offset. The match is by address, never by value, so
two NULL pointers cannot be confused: the slot the faulting access's pointer was read from names the variable.
"""

from __future__ import annotations

from dataclasses import dataclass

from amddbg.errors import AmddbgError


@dataclass(frozen=True)
class StackVariable:
    name: str
    is_parameter: bool
    function: str | None


def stack_variable(t, lane: int, offset: int) -> StackVariable | None:
    """The variable of the wave's innermost physical frame (its inlined frames included) whose location for `lane`
    is the private (per-lane) memory at `offset`, or None when no variable in scope lives there."""
    from amddbg.amdgpu.address_space import AddressSpace
    from amddbg.dwarf import expr as E
    from amddbg.dwarf.expr.location import Memory
    from amddbg.dwarf.unitctx import UnitContext

    try:
        frames = t.frames()
    except AmddbgError:
        return None
    if not frames:
        return None
    physical = frames[0].physical
    for f in frames:
        if f.physical is not physical or f.code_object is None:
            break
        try:
            variables = [*f.locals(), *f.arguments()]
        except AmddbgError:
            continue
        for v in variables:
            var = v.var
            try:
                expr = var.location_at(v._rel_pc())
                if expr is None or var.const_value is not None:
                    continue
                unit = var.die.unit
                ctx = UnitContext(v._ctx(), unit, load_bias=f.code_object.load_address)
                info = unit.dwarf.producer_info(unit)
                opts = {"address_size": unit.addr_size, "offset_size": unit.offset_size,
                        **E.producer_options(info.producer, info.augmentation)}
                loc = E.evaluate_lanes(expr, ctx, [lane], **opts).locations.get(lane)
            except (AmddbgError, NotImplementedError, ValueError, KeyError):
                continue
            if isinstance(loc, Exception) or loc is None or len(loc.singles) != 1:
                continue
            single = loc.singles[0]
            storage = single.storage
            if not isinstance(storage, Memory) or storage.space is not AddressSpace.PRIVATE_LANE:
                continue
            if single.bit_offset % 8 or single.lane_scale:
                continue
            if single.bit_offset // 8 == offset:
                return StackVariable(v.name, v.is_parameter, f.function)
    return None
