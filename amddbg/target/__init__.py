"""The AMDGPU architecture as data: address spaces, scopes, and the memory/register interfaces every
layer meets (cores, the emulator and tests provide them; DWARF evaluation and views consume them)."""

from amddbg.target.address_space import AddressSpace
from amddbg.target.interfaces import Memory, Registers
from amddbg.target.scope import Scope

__all__ = ["AddressSpace", "Memory", "Registers", "Scope"]
