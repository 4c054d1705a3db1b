"""The AMDGPU architecture as data: address spaces, scopes, and the memory/register interfaces every
layer meets (cores, the emulator and tests provide them; DWARF evaluation and views consume them).

This is what an evaluator asks its target for. (It was `amddbg/target/`, a name tools that skip build output
skip.)"""

from amddbg.amdgpu.address_space import AddressSpace
from amddbg.amdgpu.interfaces import Memory, Registers
from amddbg.amdgpu.scope import Scope

__all__ = ["AddressSpace", "Memory", "Registers", "Scope"]
