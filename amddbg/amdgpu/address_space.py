"""AMDGPU address spaces as the debugger names them.

The numbering of this enum is amddbg's own; producers number address spaces differently (LLVM IR
address spaces, the DWARF `DWARFAS` map of LLVM >= 20, clang's old DWARF map of LLVM <= 19). Converting
from those numberings lives next to the code that reads them (dwarf/), not here.
"""

from __future__ import annotations

import enum


class AddressSpace(enum.Enum):
    GLOBAL = "global"
    GENERIC = "generic"  # flat: classified into global/local/private by the apertures
    REGION = "region"  # GDS
    LOCAL = "local"  # LDS, one instance per workgroup
    PRIVATE_LANE = "private_lane"  # scratch as one lane sees it (swizzled)
    PRIVATE_WAVE = "private_wave"  # scratch as the wave sees it (unswizzled, lane-interleaved)
    CONSTANT = "constant"

    def __str__(self) -> str:
        return self.value

    @property
    def per_lane(self) -> bool:
        """Whether an address in this space means something different for each lane."""
        return self is AddressSpace.PRIVATE_LANE

    @property
    def per_workgroup(self) -> bool:
        return self is AddressSpace.LOCAL


def private_lane_to_wave(address: int, lane: int, wave_size: int, dword_interleave: int = 4) -> int:
    """Map a private_lane byte address to the private_wave (swizzled scratch) address.

    The manual ("Address Space Identifier", DW_ASPACE_AMDGPU_private_lane): private_lane addresses are
    interleaved by dword between lanes: wave_address = (lane_address / 4) * wave_size * 4 +
    lane * 4 + lane_address % 4.
    """
    return (address // dword_interleave) * wave_size * dword_interleave + lane * dword_interleave + (
        address % dword_interleave
    )
