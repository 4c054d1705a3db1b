"""The two interfaces every layer meets: Memory and Registers.

Cores, the emulator and tests implement them; DWARF evaluation, replay and views only consume them.
Bytes a target does not hold raise `amddbg.errors.Unavailable` (views print ``<unavailable>``).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from amddbg.amdgpu.address_space import AddressSpace


@runtime_checkable
class Memory(Protocol):
    def read(
        self,
        space: AddressSpace,
        address: int,
        size: int,
        *,
        lane: int | None = None,
        workgroup: tuple[int, int, int] | None = None,
    ) -> bytes:
        """Return exactly `size` bytes or raise Unavailable."""
        ...


@runtime_checkable
class Registers(Protocol):
    wave_size: int

    def read_register(self, dwarf_number: int, *, lane: int | None = None) -> int:
        """Value of a register by DWARF number; vector registers need `lane`. Raises Unavailable."""
        ...

    def read_named(self, name: str, *, lane: int | None = None) -> int:
        """Value of a register by its assembler name (``s0``, ``v3``, ``exec``, ``pc``)."""
        ...
