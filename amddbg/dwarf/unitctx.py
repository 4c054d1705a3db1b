"""An evaluation context that knows the compile unit an expression comes from.

Why: a frame's context (registers, memory, frame base) knows nothing about DIEs, but expressions in
DIEs name DIEs of their own unit: `DW_OP_convert T` / `DW_OP_const_type T` / `DW_OP_regval_type R, T`
take a CU-relative base-type DIE offset (clang -O2 writes every `bool` value as `..., DW_OP_convert
<DW_ATE_unsigned_1>, DW_OP_convert <DW_ATE_unsigned_8>, DW_OP_stack_value`), and `DW_OP_addrx` an index
into the unit's `.debug_addr`, whose addresses are the code object's own: a loaded object adds its load
address. `UnitContext` answers those from the unit and delegates everything else to the frame's context.
"""

from __future__ import annotations

from amddbg.dwarf import constants as C
from amddbg.errors import NotSupported

__all__ = ["UnitContext"]


class UnitContext:
    """`inner` (any evaluation `Context`) plus the DIE-level answers of one unit."""

    def __init__(self, inner, unit, *, load_bias: int = 0) -> None:
        self.inner = inner
        self.unit = unit
        self.load_bias = load_bias
        self.wave_size = inner.wave_size
        self.apertures = inner.apertures

    def __getattr__(self, name: str):  # registers, memory, frame base, CFA, entry values...
        return getattr(self.inner, name)

    def base_type(self, die_offset: int):
        from amddbg.dwarf.expr.location import BaseType

        dwarf = self.unit.dwarf
        try:
            die = dwarf.die(self.unit.offset + die_offset)
        except Exception:  # noqa: BLE001 - any failure to find the DIE is the same user-visible answer
            die = None
        if die is None or die.tag != C.DW_TAG_base_type:
            raise NotSupported(f"base type DIE at CU offset {die_offset:#x} (not a DW_TAG_base_type)")
        size = die.attrs.get(C.DW_AT_byte_size)
        encoding = die.attrs.get(C.DW_AT_encoding)
        if not isinstance(size, int) or not isinstance(encoding, int) or not 0 < size <= 16:
            raise NotSupported(f"base type DIE at CU offset {die_offset:#x} without a usable size/encoding")
        name = die.attrs.get(C.DW_AT_name)
        return BaseType(size, encoding, name if isinstance(name, str) else "")

    def debug_addr(self, index: int) -> int:
        return (self.unit.dwarf.addrx(self.unit, index) + self.load_bias) & ((1 << 64) - 1)

    def read_register(self, number: int, *, lane: int | None = None) -> int:
        return self.inner.read_register(number, lane=lane)

    def read_memory(self, space, address: int, size: int, *, lane: int | None = None) -> bytes:
        return self.inner.read_memory(space, address, size, lane=lane)

    def frame_base(self):
        return self.inner.frame_base()

    def call_frame_cfa(self):
        return self.inner.call_frame_cfa()

    def entry_register(self, number: int):
        return self.inner.entry_register(number)

    def entry_value(self, expression: bytes):
        return self.inner.entry_value(expression)

    def object_address(self):
        return self.inner.object_address()

    def call(self, kind: str, offset: int):
        return self.inner.call(kind, offset)
