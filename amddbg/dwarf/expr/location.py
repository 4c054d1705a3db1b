"""The extension's evaluation model: values and location descriptions.

A location description is a set of single location descriptions (SL); each SL is a storage plus a bit
offset into it. Storages: memory of one address space, a register, implicit bytes, an implicit pointer,
undefined, or a composite of parts (each part = a location description and a bit size). Reading bits
from a location walks this structure and asks the context for registers and memory, so nothing here
owns a target.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.amdgpu import AddressSpace
from amddbg.dwarf.expr.aspace import ADDRESS_BITS
from amddbg.dwarf.expr.regs import register_info
from amddbg.errors import AmddbgError

DW_ATE_address = 0x1
DW_ATE_boolean = 0x2
DW_ATE_float = 0x4
DW_ATE_signed = 0x5
DW_ATE_signed_char = 0x6
DW_ATE_unsigned = 0x7
DW_ATE_unsigned_char = 0x8


class EvaluationError(AmddbgError):
    """The expression is ill-formed or its evaluation is an error per the specification."""


class UndefinedLocation(EvaluationError):
    """Bits were read from undefined storage (a debugger prints ``<optimized out>``)."""


@dataclass(frozen=True, slots=True)
class BaseType:
    byte_size: int
    encoding: int = DW_ATE_unsigned
    name: str = ""
    address_space: AddressSpace | None = None  # for DW_ATE_address types with DW_AT_LLVM_address_space

    @property
    def signed(self) -> bool:
        return self.encoding in (DW_ATE_signed, DW_ATE_signed_char)

    @property
    def bits(self) -> int:
        return self.byte_size * 8


GENERIC_TYPE = BaseType(8, DW_ATE_unsigned, "<generic>")


@dataclass(frozen=True, slots=True)
class Value:
    """A typed value on the stack. `bits` is the raw value masked to the type's size."""

    bits: int
    type: BaseType = GENERIC_TYPE
    lane: int = 0  # symbolic evaluation: the value is bits + lane * <focused lane> (see evaluate_lanes)

    @property
    def is_generic(self) -> bool:
        return self.type is GENERIC_TYPE

    def signed(self) -> int:
        n = self.type.bits
        v = self.bits & ((1 << n) - 1)
        return v - (1 << n) if v >> (n - 1) else v

    def as_int(self) -> int:
        """Integral interpretation: signed for signed types; generic values unsigned."""
        return self.signed() if self.type.signed else self.bits

    def to_bytes(self) -> bytes:
        return (self.bits & ((1 << self.type.bits) - 1)).to_bytes(self.type.byte_size, "little")


# ---------------------------------------------------------------- storages


@dataclass(frozen=True, slots=True)
class Memory:
    space: AddressSpace
    lane: int | None = None  # lane of the context that created a per-lane (private_lane/generic) location

    @property
    def size_bits(self) -> int:
        return (1 << ADDRESS_BITS.get(self.space, 64)) * 8


@dataclass(frozen=True, slots=True)
class Register:
    number: int

    @property
    def size_bits(self) -> int:
        info = register_info(self.number)
        if info is None:
            raise EvaluationError(f"DWARF register {self.number} is not an AMDGPU register")
        return info.bits


@dataclass(frozen=True, slots=True)
class Implicit:
    data: bytes

    @property
    def size_bits(self) -> int:
        return len(self.data) * 8


@dataclass(frozen=True, slots=True)
class ImplicitPointer:
    die: int
    offset: int
    space: AddressSpace = AddressSpace.GLOBAL

    @property
    def size_bits(self) -> int:
        return ADDRESS_BITS.get(self.space, 64)


@dataclass(frozen=True, slots=True)
class Undefined:
    size_bits: int = 1 << 64  # an undefined storage "of unbounded size"


@dataclass(frozen=True, slots=True)
class Part:
    location: Location
    bits: int


@dataclass(frozen=True, slots=True)
class Composite:
    parts: tuple[Part, ...]
    complete: bool = True

    @property
    def size_bits(self) -> int:
        return sum(p.bits for p in self.parts)


Storage = Memory | Register | Implicit | ImplicitPointer | Undefined | Composite


@dataclass(frozen=True, slots=True)
class Single:
    storage: Storage
    bit_offset: int = 0
    lane_scale: int = 0  # symbolic evaluation: the offset is bit_offset + lane_scale * <lane>


@dataclass(frozen=True, slots=True)
class Location:
    singles: tuple[Single, ...] = field(default_factory=tuple)

    # -- constructors
    @staticmethod
    def memory(space: AddressSpace, address: int, lane: int | None = None) -> Location:
        return Location((Single(Memory(space, lane), address * 8),))

    @staticmethod
    def register(number: int, bit_offset: int = 0) -> Location:
        return Location((Single(Register(number), bit_offset),))

    @staticmethod
    def undefined() -> Location:
        return Location((Single(Undefined(), 0),))

    @staticmethod
    def implicit(data: bytes) -> Location:
        return Location((Single(Implicit(bytes(data)), 0),))

    # -- queries
    @property
    def single(self) -> Single:
        return self.singles[0]

    @property
    def kind(self) -> str:
        s = self.singles[0].storage if self.singles else Undefined()
        return type(s).__name__.lower()

    @property
    def is_undefined(self) -> bool:
        return all(isinstance(s.storage, Undefined) for s in self.singles)

    @property
    def is_incomplete_composite(self) -> bool:
        return (len(self.singles) == 1 and isinstance(self.singles[0].storage, Composite)
                and not self.singles[0].storage.complete)

    def address(self) -> tuple[AddressSpace, int]:
        """(space, byte address) of a single memory location; EvaluationError otherwise."""
        s = self.singles[0]
        if not isinstance(s.storage, Memory) or s.bit_offset % 8:
            raise EvaluationError(f"location is not a byte-aligned memory location ({self})")
        return s.storage.space, s.bit_offset // 8

    @property
    def is_affine(self) -> bool:
        """Whether the location still depends on the lane symbolically (see `at_lane`)."""
        for s in self.singles:
            if s.lane_scale:
                return True
            if isinstance(s.storage, Composite) and any(p.location.is_affine for p in s.storage.parts):
                return True
        return False

    def at_lane(self, lane: int) -> Location:
        """The concrete location for one lane of a symbolically evaluated (lane-affine) location."""
        out = []
        for s in self.singles:
            st = s.storage
            if isinstance(st, Composite) and any(p.location.is_affine for p in st.parts):
                st = Composite(tuple(Part(p.location.at_lane(lane), p.bits) for p in st.parts), st.complete)
            off = s.bit_offset + s.lane_scale * lane
            if s.lane_scale and not isinstance(st, Undefined) and (off < 0 or off >= st.size_bits):
                # the same rule as DW_OP_LLVM_offset: outside the storage is an evaluation error
                raise EvaluationError(f"offset moves lane {lane}'s location outside its storage")
            out.append(Single(st, off))
        return Location(tuple(out))

    def offset_affine(self, delta: int, lane_delta: int) -> Location:
        """Add `delta + lane_delta * lane` bits to every SL (symbolic evaluation)."""
        if not lane_delta:
            return self.offset_bits(delta)
        out = []
        for s in self.singles:
            if isinstance(s.storage, Undefined):
                out.append(s)
            else:
                out.append(Single(s.storage, s.bit_offset + delta, s.lane_scale + lane_delta))
        return Location(tuple(out))

    def offset_bits(self, delta: int) -> Location:
        """`DW_OP_LLVM_bit_offset`: add `delta` to every SL's bit offset.

        "It is an evaluation error if any bit offset is less than 0 or greater than or equal to the size of
        the location storage"; undefined SLs are unchanged.
        """
        out = []
        for s in self.singles:
            if isinstance(s.storage, Undefined):
                out.append(s)
                continue
            nb = s.bit_offset + delta
            size = s.storage.size_bits
            if not s.lane_scale and (nb < 0 or nb >= size):
                raise EvaluationError(f"offset moves a location outside its storage (bit {nb} of {size})")
            out.append(Single(s.storage, nb, s.lane_scale))
        return Location(tuple(out))

    def __str__(self) -> str:
        return describe(self)


def describe(loc: Location) -> str:
    parts = []
    for s in loc.singles:
        st = s.storage
        off = s.bit_offset
        byte = f"{off // 8:#x}" + (f".{off % 8}" if off % 8 else "")
        if isinstance(st, Memory):
            lane = f" lane {st.lane}" if st.lane is not None else ""
            parts.append(f"{st.space}[{byte}]{lane}")
        elif isinstance(st, Register):
            info = register_info(st.number)
            name = info.name if info else f"reg{st.number}"
            parts.append(name + (f"+{off // 8:#x}" if off % 8 == 0 and off else f"+bit{off}" if off else ""))
        elif isinstance(st, Implicit):
            parts.append(f"implicit({st.data.hex()})" + (f"+bit{off}" if off else ""))
        elif isinstance(st, ImplicitPointer):
            parts.append(f"implicit_pointer(<{st.die:#x}>{st.offset:+d} in {st.space})")
        elif isinstance(st, Undefined):
            parts.append("undefined")
        else:
            inner = ", ".join(f"{describe(p.location)}:{p.bits}b" for p in st.parts)
            parts.append(("composite" if st.complete else "incomplete-composite") + f"[{inner}]"
                         + (f"+bit{off}" if off else ""))
    return " | ".join(parts) if parts else "undefined"
