"""DWARF address-space numbers, producer numberings, generic-address classification and conversion.

Three numberings meet here:

* ``DW_ASPACE_*`` of the heterogeneous extension / AMDGPU manual (table "AMDGPU DWARF Address Space
  Mapping"): 0 none (= global), 1 generic, 2 region, 3 local, 5 private_lane, 6 private_wave. Used by
  `DW_OP_LLVM_form_aspace_address`, `DW_OP_LLVM_aspace_bregx`, `DW_CFA_LLVM_def_aspace_cfa`, and by LLVM 22's
  `xderef` literals (its ``llvm::AMDGPU::DWARFAS`` map).
* clang's old map used by LLVM <= 21 (and Debian clang-15 in rocsparse) for `xderef` literals and
  `DW_AT_address_class`: 1 = private, 2 = local.
* amddbg's own `AddressSpace` enum, which the memory interfaces take.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from amddbg.amdgpu import AddressSpace
from amddbg.amdgpu.address_space import private_lane_to_wave
from amddbg.errors import AmddbgError

DW_ASPACE_LLVM_none = 0
DW_ASPACE_AMDGPU_generic = 1
DW_ASPACE_AMDGPU_region = 2
DW_ASPACE_AMDGPU_local = 3
DW_ASPACE_AMDGPU_private_lane = 5
DW_ASPACE_AMDGPU_private_wave = 6

DW_ASPACE: dict[int, AddressSpace] = {
    DW_ASPACE_LLVM_none: AddressSpace.GLOBAL,
    DW_ASPACE_AMDGPU_generic: AddressSpace.GENERIC,
    DW_ASPACE_AMDGPU_region: AddressSpace.REGION,
    DW_ASPACE_AMDGPU_local: AddressSpace.LOCAL,
    DW_ASPACE_AMDGPU_private_lane: AddressSpace.PRIVATE_LANE,
    DW_ASPACE_AMDGPU_private_wave: AddressSpace.PRIVATE_WAVE,
}
DW_ASPACE_NAMES = {
    0: "DW_ASPACE_LLVM_none", 1: "DW_ASPACE_AMDGPU_generic", 2: "DW_ASPACE_AMDGPU_region",
    3: "DW_ASPACE_AMDGPU_local", 5: "DW_ASPACE_AMDGPU_private_lane", 6: "DW_ASPACE_AMDGPU_private_wave",
}
# clang's getDWARFAddressSpace for LLVM <= 21: DWARF_Private = 1, DWARF_Local = 2, anything else none.
CLANG_OLD_XDEREF: dict[int, AddressSpace] = {
    0: AddressSpace.GLOBAL,
    1: AddressSpace.PRIVATE_LANE,
    2: AddressSpace.LOCAL,
}

# Address size in bits and NULL value per space (manual "Address Spaces" table; 64-bit process).
ADDRESS_BITS = {
    AddressSpace.GLOBAL: 64, AddressSpace.CONSTANT: 64, AddressSpace.GENERIC: 64, AddressSpace.REGION: 32,
    AddressSpace.LOCAL: 32, AddressSpace.PRIVATE_LANE: 32, AddressSpace.PRIVATE_WAVE: 32,
}
NULL = {
    AddressSpace.GLOBAL: 0, AddressSpace.CONSTANT: 0, AddressSpace.GENERIC: 0, AddressSpace.LOCAL: 0xFFFFFFFF,
    AddressSpace.PRIVATE_LANE: 0xFFFFFFFF, AddressSpace.PRIVATE_WAVE: 0xFFFFFFFF,
}


class AddressSpaceError(AmddbgError):
    """An address-space conversion the manual leaves undefined ("otherwise result in an evaluation error")."""


def dwarf_aspace(number: int) -> AddressSpace:
    try:
        return DW_ASPACE[number]
    except KeyError:
        raise AddressSpaceError(f"DWARF address space {number} is not defined for AMDGPU") from None


_VERSION = re.compile(r"clang version (\d+)")


def xderef_map(producer: str | None) -> dict[int, AddressSpace]:
    """Numbering of the address-space literal in ``..., DW_OP_litN, DW_OP_swap, DW_OP_xderef``.

    LLVM 22 uses the DWARF DW_ASPACE numbers (``llvm::AMDGPU::DWARFAS``); LLVM <= 21 used clang's old map
    (1 = private, 2 = local). An unknown producer gets the specification's numbering.
    """
    m = _VERSION.search(producer or "")
    if m and int(m.group(1)) <= 21:
        return CLANG_OLD_XDEREF
    return DW_ASPACE


@dataclass(frozen=True, slots=True)
class Apertures:
    """Flat-address apertures: [base, base + 2**32) of the shared (LDS) and private (scratch) windows.

    Defaults are the GFX9+ 64-bit layout (ROCdbgapi's gfx9 architecture: shared 1 << 48, private 2 << 48);
    a core or the live target should supply the real SRC_SHARED_BASE / SRC_PRIVATE_BASE values.
    """

    shared_base: int = 1 << 48
    private_base: int = 2 << 48
    size: int = 1 << 32

    def classify(self, generic: int) -> tuple[AddressSpace, int]:
        """A generic address as (space, segment address): LOCAL, PRIVATE_LANE or GLOBAL (the catch-all)."""
        if self.shared_base <= generic < self.shared_base + self.size:
            return AddressSpace.LOCAL, generic - self.shared_base
        if self.private_base <= generic < self.private_base + self.size:
            return AddressSpace.PRIVATE_LANE, generic - self.private_base
        return AddressSpace.GLOBAL, generic

    def to_generic(self, space: AddressSpace, address: int) -> int:
        if space in (AddressSpace.GLOBAL, AddressSpace.CONSTANT, AddressSpace.GENERIC):
            return address
        if address == NULL[space]:
            return NULL[AddressSpace.GENERIC]
        if space is AddressSpace.LOCAL:
            return self.shared_base + address
        if space is AddressSpace.PRIVATE_LANE:
            return self.private_base + address
        raise AddressSpaceError(f"no generic address for {space} addresses")


def convert_address(
    value: int,
    source: AddressSpace,
    target: AddressSpace,
    *,
    apertures: Apertures,
    lane: int | None = None,
    wave_size: int | None = None,
) -> int:
    """`DW_OP_convert` between DW_ATE_address types of two address spaces, as the AMDGPU manual defines it.

    Defined: identity; generic -> none when the generic address is global ("requires no change to the
    literal value"); generic -> local / private_lane / private_wave when the address is in that aperture
    (private_lane "additionally requires the context to include the active lane"; private_wave needs it too
    because a generic private address names one lane's dword-interleaved view); none/local/private_lane ->
    generic (the inverse mapping through the apertures). Everything else is an evaluation error.
    """
    if source is target:
        return value
    if source is AddressSpace.GENERIC:
        space, segment = apertures.classify(value)
        if value == NULL[AddressSpace.GENERIC]:
            if target in NULL:
                return NULL[target]
        if target is AddressSpace.GLOBAL:
            if space is not AddressSpace.GLOBAL:
                raise AddressSpaceError(f"generic address {value:#x} is in the {space} aperture, not global")
            return value
        if target is AddressSpace.LOCAL:
            if space is not AddressSpace.LOCAL:
                raise AddressSpaceError(f"generic address {value:#x} is not in the local aperture")
            return segment
        if target in (AddressSpace.PRIVATE_LANE, AddressSpace.PRIVATE_WAVE):
            if space is not AddressSpace.PRIVATE_LANE:
                raise AddressSpaceError(f"generic address {value:#x} is not in the private aperture")
            if lane is None:
                raise AddressSpaceError("converting to a private address space needs the active lane")
            if target is AddressSpace.PRIVATE_LANE:
                return segment
            if wave_size is None:
                raise AddressSpaceError("converting to private_wave needs the wavefront size")
            return private_lane_to_wave(segment, lane, wave_size)
        raise AddressSpaceError(f"conversion from generic to {target} is not defined")
    if target is AddressSpace.GENERIC:
        if source is AddressSpace.PRIVATE_LANE and lane is None:
            raise AddressSpaceError("converting a private_lane address needs the active lane")
        return apertures.to_generic(source, value)
    raise AddressSpaceError(f"conversion from {source} to {target} is not defined")
