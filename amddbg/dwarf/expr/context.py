"""What the evaluator asks of the world (gimli's ``EvaluationResult::Requires*`` as a protocol).

The evaluator owns no target. It calls a `Context` for registers (by DWARF number; vector registers one
lane at a time), memory (amddbg `AddressSpace`, address, size, lane), the frame base, the CFA, the location
of a register on entry to the frame (`DW_OP_LLVM_call_frame_entry_reg`), entry values, the object
address, base types, DWARF procedures and `.debug_addr`. Anything a context cannot answer raises
`NotSupported` (a missing capability) or `Unavailable` (bytes the target does not hold).

`BaseContext` gives the "not available here" answers; `StaticContext` is a small dictionary-backed
implementation used by tests, the CLI and unwinding of synthetic states.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from amddbg.amdgpu import AddressSpace
from amddbg.amdgpu.address_space import private_lane_to_wave
from amddbg.dwarf.expr.aspace import Apertures
from amddbg.dwarf.expr.regs import register_info
from amddbg.errors import NotSupported, Unavailable

if TYPE_CHECKING:
    from amddbg.dwarf.expr.location import BaseType, Location, Value


@dataclass(frozen=True, slots=True)
class CallTarget:
    """What `DW_OP_call2/4/call_ref` reaches: an exprloc to run on the same stack, a location computed
    separately (loclist), or a constant (`DW_AT_const_value`, acts as `DW_OP_implicit_value`)."""

    expression: bytes | None = None
    location: Location | None = None
    const_value: bytes | None = None


@runtime_checkable
class Context(Protocol):
    wave_size: int
    apertures: Apertures

    def read_register(self, number: int, *, lane: int | None = None) -> int: ...

    def read_memory(
        self, space: AddressSpace, address: int, size: int, *, lane: int | None = None
    ) -> bytes: ...

    def frame_base(self) -> Location: ...

    def call_frame_cfa(self) -> Location: ...

    def entry_register(self, number: int) -> Location: ...

    def entry_value(self, expression: bytes) -> Value | Location: ...

    def object_address(self) -> Location: ...

    def base_type(self, die_offset: int) -> BaseType: ...

    def call(self, kind: str, offset: int) -> CallTarget: ...

    def debug_addr(self, index: int) -> int: ...


class BaseContext:
    """Defaults for every question: NotSupported. Subclass and override what your target knows."""

    wave_size: int = 64
    apertures: Apertures = Apertures()

    def read_register(self, number: int, *, lane: int | None = None) -> int:
        raise Unavailable("register", number, 0, "no registers in this context")

    def read_memory(self, space: AddressSpace, address: int, size: int, *, lane: int | None = None) -> bytes:
        raise Unavailable(str(space), address, size, "no memory in this context")

    def frame_base(self) -> Location:
        raise NotSupported("DW_OP_fbreg without a frame base")

    def call_frame_cfa(self) -> Location:
        raise NotSupported("DW_OP_call_frame_cfa without call frame information")

    def entry_register(self, number: int) -> Location:
        raise NotSupported("DW_OP_LLVM_call_frame_entry_reg without call frame information")

    def entry_value(self, expression: bytes) -> Value | Location:
        raise NotSupported("DW_OP_entry_value without a caller frame")

    def object_address(self) -> Location:
        raise NotSupported("DW_OP_push_object_address without an object")

    def base_type(self, die_offset: int) -> BaseType:
        raise NotSupported(f"base type DIE at CU offset {die_offset:#x} (no DIE reader in this context)")

    def call(self, kind: str, offset: int) -> CallTarget:
        raise NotSupported(f"{kind} to DIE {offset:#x} (no DIE reader in this context)")

    def debug_addr(self, index: int) -> int:
        raise NotSupported(f".debug_addr entry {index} (no .debug_addr in this context)")


class StaticContext(BaseContext):
    """Registers and memory from dictionaries.

    `registers`: DWARF number -> int (scalar registers) or sequence of per-lane dwords (vector registers).
    `memory`: AddressSpace -> {start address: bytes} (non-overlapping segments). private_lane reads are
    mapped onto private_wave with the manual's dword swizzle when no private_lane segment holds them.
    """

    def __init__(
        self,
        registers: Mapping[int, int | list[int] | tuple[int, ...]] | None = None,
        memory: Mapping[AddressSpace, Mapping[int, bytes]] | None = None,
        *,
        wave_size: int = 64,
        apertures: Apertures | None = None,
        frame_base: Location | None = None,
        cfa: Location | None = None,
        entry_registers: Mapping[int, Location] | None = None,
        object_address: Location | None = None,
        base_types: Mapping[int, BaseType] | None = None,
        procedures: Mapping[int, CallTarget] | None = None,
        addresses: list[int] | None = None,
    ) -> None:
        self.registers = dict(registers or {})
        self.memory = {space: dict(segs) for space, segs in (memory or {}).items()}
        self.wave_size = wave_size
        self.apertures = apertures or Apertures()
        self._frame_base = frame_base
        self._cfa = cfa
        self._entry = dict(entry_registers or {})
        self._object = object_address
        self._types = dict(base_types or {})
        self._procs = dict(procedures or {})
        self._addresses = list(addresses or [])
        self.reads: list[tuple] = []  # (kind, ...) log, lets tests check what was asked

    def read_register(self, number: int, *, lane: int | None = None) -> int:
        self.reads.append(("reg", number, lane))
        if number not in self.registers:
            raise Unavailable("register", number, 0, "register not in this context")
        v = self.registers[number]
        info = register_info(number)
        if isinstance(v, (list, tuple)):
            if lane is None:
                raise Unavailable("register", number, 0, "vector register read without a lane")
            if not 0 <= lane < len(v) or v[lane] is None:
                raise Unavailable("register", number, 4, f"lane {lane} not available")
            return v[lane] & 0xFFFFFFFF
        if info is not None and info.is_vector:
            raise Unavailable("register", number, 0, "vector register given as a scalar")
        return v

    def _read_segments(self, space: AddressSpace, address: int, size: int) -> bytes | None:
        for start, data in self.memory.get(space, {}).items():
            if start <= address and address + size <= start + len(data):
                return bytes(data[address - start:address - start + size])
        return None

    def read_memory(self, space: AddressSpace, address: int, size: int, *, lane: int | None = None) -> bytes:
        self.reads.append(("mem", space, address, size, lane))
        got = self._read_segments(space, address, size)
        if got is not None:
            return got
        wave_held = AddressSpace.PRIVATE_WAVE in self.memory
        if space is AddressSpace.PRIVATE_LANE and lane is not None and wave_held:
            out = bytearray()
            for a in range(address, address + size):
                w = private_lane_to_wave(a, lane, self.wave_size)
                b = self._read_segments(AddressSpace.PRIVATE_WAVE, w, 1)
                if b is None:
                    raise Unavailable(str(space), address, size, f"private_wave byte {w:#x} not held")
                out += b
            return bytes(out)
        raise Unavailable(str(space), address, size, "not in this context")

    def frame_base(self) -> Location:
        if self._frame_base is None:
            return super().frame_base()
        return self._frame_base

    def call_frame_cfa(self) -> Location:
        if self._cfa is None:
            return super().call_frame_cfa()
        return self._cfa

    def entry_register(self, number: int) -> Location:
        if number in self._entry:
            return self._entry[number]
        return super().entry_register(number)

    def object_address(self) -> Location:
        if self._object is None:
            return super().object_address()
        return self._object

    def base_type(self, die_offset: int) -> BaseType:
        if die_offset in self._types:
            return self._types[die_offset]
        return super().base_type(die_offset)

    def call(self, kind: str, offset: int) -> CallTarget:
        if offset in self._procs:
            return self._procs[offset]
        return super().call(kind, offset)

    def debug_addr(self, index: int) -> int:
        if 0 <= index < len(self._addresses):
            return self._addresses[index]
        return super().debug_addr(index)


class TargetContext(BaseContext):
    """Adapter from the target interfaces (`amddbg.amdgpu.Registers` / `Memory`) to the evaluator's Context.

    Workgroup-scoped memory (LDS) needs the wave's workgroup; pass it once here.
    """

    def __init__(self, registers, memory, *, wave_size: int | None = None, apertures: Apertures | None = None,
                 workgroup: tuple[int, int, int] | None = None) -> None:
        self.registers = registers
        self.memory = memory
        self.wave_size = wave_size or getattr(registers, "wave_size", 64)
        self.apertures = apertures or Apertures()
        self.workgroup = workgroup

    def read_register(self, number: int, *, lane: int | None = None) -> int:
        return self.registers.read_register(number, lane=lane)

    def read_memory(self, space: AddressSpace, address: int, size: int, *, lane: int | None = None) -> bytes:
        if space is AddressSpace.LOCAL:
            return self.memory.read(space, address, size, lane=lane, workgroup=self.workgroup)
        return self.memory.read(space, address, size, lane=lane)
