"""The DWARF expression evaluator with the heterogeneous extension's evaluation model.

The stack holds values *and* location descriptions (see `location`). Standard operations keep their
DWARF 5 meaning as amended by the extension (deref pops a location of any kind, piece/bit_piece build
incomplete composites incrementally, stack_value no longer terminates evaluation, fbreg keeps the frame
base's address space, xderef = swap; form_aspace_address; deref). All target access goes through the
`Context`.

Evaluating for many lanes is the common case; `evaluate_lanes` evaluates once and reuses the result for
every lane when the evaluation never consulted the lane (no `DW_OP_LLVM_push_lane`, no per-lane register
slice, no per-lane storage), which is what real compilers' expressions look like.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from amddbg.amdgpu import AddressSpace
from amddbg.dwarf.expr.aspace import (
    ADDRESS_BITS,
    DW_ASPACE,
    AddressSpaceError,
    convert_address,
    dwarf_aspace,
)
from amddbg.dwarf.expr.context import Context
from amddbg.dwarf.expr.location import (
    GENERIC_TYPE,
    BaseType,
    Composite,
    DW_ATE_address,
    DW_ATE_float,
    EvaluationError,
    Implicit,
    ImplicitPointer,
    Location,
    Memory,
    Part,
    Register,
    Single,
    Undefined,
    UndefinedLocation,
    Value,
)
from amddbg.dwarf.expr.ops import Encoding, Op, check_sizes, decode
from amddbg.dwarf.expr.promoted import rewrite_promoted
from amddbg.dwarf.expr.regs import register_info
from amddbg.errors import NotSupported

__all__ = ["Evaluator", "LaneResults", "evaluate", "evaluate_lanes", "read_bits", "read_bytes", "read_value"]

# Operations the extension forbids in CFI expressions (section A.6.4.2).
_NOT_IN_CFI = frozenset({
    "DW_OP_addrx", "DW_OP_call2", "DW_OP_call4", "DW_OP_call_ref", "DW_OP_const_type", "DW_OP_constx",
    "DW_OP_convert", "DW_OP_deref_type", "DW_OP_fbreg", "DW_OP_implicit_pointer", "DW_OP_regval_type",
    "DW_OP_reinterpret", "DW_OP_xderef_type", "DW_OP_push_object_address", "DW_OP_LLVM_push_lane",
    "DW_OP_call_frame_cfa", "DW_OP_entry_value",
})

_MASK64 = (1 << 64) - 1
_MAX_STEPS = 100_000
_MAX_CALL_DEPTH = 64  # DW_OP_call* nesting: a self-calling DIE must not exhaust the Python stack
_MAX_TYPE_BYTES = 1 << 12  # a base type or deref size beyond a vector register is not a value
_MAX_PIECE_BITS = 8 << 20  # one piece of at most 1 MiB (the largest object a variable describes)
_MAX_PARTS = 4096  # lanes or elements of one composite (a wave has at most 64 lanes)


def _is_per_lane(space: AddressSpace) -> bool:
    return space in (AddressSpace.PRIVATE_LANE, AddressSpace.GENERIC)


class _NotAffine(Exception):
    """Symbolic evaluation met a lane dependence it cannot carry (evaluate lane by lane instead)."""


@dataclass
class _Frame:
    ops: list[Op]
    index_of: dict[int, int]
    end: int


class Evaluator:
    """One evaluation. Construct, call `run(expression)`, read `result()` or `value()`.

    `lane` is the focused lane (None: no lane context; `push_lane` is then an error). `xderef_spaces` maps
    the xderef address-space literal to an AddressSpace (producer-dependent, see aspace.xderef_map).
    `lane_slice_vector_registers` implements the upstream-clang convention that `DW_OP_regx VGPRn` names
    the focused lane's dword of the whole-wave register (upstream never emits push_lane/offset).
    """

    def __init__(
        self,
        context: Context,
        *,
        encoding: Encoding | str = Encoding.LLVM_USER,
        address_size: int = 8,
        offset_size: int = 4,
        lane: int | None = None,
        xderef_spaces: dict[int, AddressSpace] | None = None,
        lane_slice_vector_registers: bool = False,
        cfi: bool = False,
        initial_stack: Iterable[Value | Location] = (),
        symbolic_lane: bool = False,
        xderef_is_address_space: bool = False,
        promoted_values: bool = False,
    ) -> None:
        self.ctx = context
        self.encoding = Encoding(encoding)
        check_sizes(address_size, offset_size)
        self.address_size = address_size
        self.offset_size = offset_size
        self.lane = lane
        self.xderef_spaces = xderef_spaces if xderef_spaces is not None else DW_ASPACE
        self.lane_slice = lane_slice_vector_registers
        self.cfi = cfi
        self.stack: list[Value | Location] = list(initial_stack)
        self.lane_used = False  # set when the result depends on the focused lane
        # Symbolic lane: push_lane pushes "1 * lane" and lane-affine offsets ride along in Value.lane /
        # Single.lane_scale; anything else that depends on the lane raises _NotAffine.
        self.symbolic = symbolic_lane
        # Upstream LLVM writes "this address is in address space N" as `DW_OP_litN, DW_OP_swap, DW_OP_xderef`
        # (the AMDGPU backend's DIExpression idiom): with this flag xderef forms the location without
        # reading memory, and DW_OP_stack_value of such a location yields its address.
        self.xderef_is_address_space = xderef_is_address_space
        # Upstream clang keeps a declare's address-space annotation on a variable promoted to a register
        # (`bregx VGPR0+0; lit1; swap; xderef` is the value of v0): see `promoted`.
        self.promoted_values = promoted_values and not cfi
        self._steps = 0

    # ------------------------------------------------------------------ stack helpers
    def _pop(self) -> Value | Location:
        if not self.stack:
            raise EvaluationError("DWARF expression stack underflow")
        return self.stack.pop()

    def _pop_value(self, affine_ok: bool = False) -> Value:
        v = self._to_value(self._pop())
        if v.lane and not affine_ok:
            raise _NotAffine
        return v

    def _pop_location(self) -> Location:
        return self._to_location(self._pop())

    def _to_value(self, entry: Value | Location) -> Value:
        if isinstance(entry, Value):
            return entry
        # "a location description that consists of one memory location description in the default address
        # space with a byte-aligned offset is converted to a value of the generic type" (A.2.5.4.4.3)
        if len(entry.singles) == 1:
            s = entry.singles[0]
            if s.lane_scale:
                if (isinstance(s.storage, Memory) and s.storage.space is AddressSpace.GLOBAL
                        and s.bit_offset % 8 == 0 and s.lane_scale % 8 == 0):
                    return Value((s.bit_offset // 8) & _MASK64, GENERIC_TYPE, s.lane_scale // 8)
                raise _NotAffine
            if (isinstance(s.storage, Memory) and s.storage.space is AddressSpace.GLOBAL
                    and s.bit_offset % 8 == 0):
                return Value((s.bit_offset // 8) & _MASK64)
        raise EvaluationError(f"expected a value, found the location {entry}")

    def _to_location(self, entry: Value | Location) -> Location:
        if isinstance(entry, Location):
            return entry
        # a generic-type value is an address in the default address space (DW_ASPACE_LLVM_none)
        if entry.type is not GENERIC_TYPE and entry.type.encoding != DW_ATE_address:
            raise EvaluationError(f"a value of type {entry.type.name or entry.type} is not an address")
        if entry.lane:
            return Location((Single(Memory(AddressSpace.GLOBAL), (entry.bits & _MASK64) * 8, entry.lane * 8),))
        return Location.memory(AddressSpace.GLOBAL, entry.bits & _MASK64)

    def _push_generic(self, v: int) -> None:
        self.stack.append(Value(v & _MASK64))

    def _need_lane(self, what: str) -> int:
        if self.symbolic:
            raise _NotAffine
        if self.lane is None:
            raise EvaluationError(f"{what} needs a lane (evaluate per lane)")
        self.lane_used = True
        return self.lane

    # ------------------------------------------------------------------ registers
    def _register_location(self, number: int) -> Location:
        info = register_info(number)
        if info is None:
            raise EvaluationError(f"DWARF register {number} is not an AMDGPU register")
        if self.lane_slice and info.is_vector:
            if self.symbolic:
                self.lane_used = True
                return Location((Single(Register(number), 0, 32),))
            lane = self._need_lane(f"register {info.name} (per-lane slice)")
            return Location.register(number, 32 * lane)
        return Location.register(number)

    def _register_as_address(self, number: int) -> int:
        """`DW_OP_bregx`: "the contents of the register as an unsigned integral value with the address size".
        A vector register is read for the focused lane (one dword per lane)."""
        info = register_info(number)
        if info is None:
            raise EvaluationError(f"DWARF register {number} is not an AMDGPU register")
        if info.is_vector:
            lane = self._need_lane(f"register {info.name}")
            return self.ctx.read_register(number, lane=lane) & 0xFFFFFFFF
        return self.ctx.read_register(number) & ((1 << min(info.bits, 64)) - 1)

    # ------------------------------------------------------------------ driver
    def run(self, expression: bytes | Sequence[Op]) -> Evaluator:
        if isinstance(expression, (bytes, bytearray, memoryview)):
            ops = decode(bytes(expression), encoding=self.encoding, address_size=self.address_size,
                         offset_size=self.offset_size)
            end = len(expression)
        else:
            ops = list(expression)
            end = ops[-1].end if ops else 0
        if self.promoted_values:
            rewritten = rewrite_promoted(ops)
            if rewritten is not ops:
                ops = rewritten
                end = ops[-1].end if ops else 0
        self._execute(_Frame(ops, {op.offset: i for i, op in enumerate(ops)}, end))
        return self

    def _execute(self, frame: _Frame) -> None:
        ops = frame.ops
        i = 0
        while i < len(ops):
            self._steps += 1
            if self._steps > _MAX_STEPS:
                raise EvaluationError("DWARF expression does not terminate (step limit)")
            op = ops[i]
            if self.cfi and op.name in _NOT_IN_CFI:
                raise EvaluationError(f"{op.name} is not allowed in a CFI expression")
            jump = self._step(op)
            if jump is None:
                i += 1
                continue
            target = op.end + jump
            if target == frame.end:
                return
            if target not in frame.index_of:
                raise EvaluationError(f"{op.name} jumps to {target:#x}, not an operation boundary")
            i = frame.index_of[target]

    def result(self) -> Location:
        """The location the expression describes (A.2.5.4: empty stack = undefined; a value on top is an
        address in the default address space; an incomplete composite is completed)."""
        if not self.stack:
            return Location.undefined()
        top = self.stack[-1]
        loc = self._to_location(top)
        if loc.is_incomplete_composite:
            c = loc.singles[0].storage
            loc = Location((Single(Composite(c.parts, True), 0),))
        return loc

    def value(self) -> Value:
        """The value the expression computes (for `DW_AT_LLVM_lane_pc` elements, CFI val_expression...)."""
        if not self.stack:
            raise EvaluationError("DWARF expression left no value")
        top = self.stack[-1]
        if isinstance(top, Value):
            return top
        try:
            return self._to_value(top)  # a default-address-space memory location is its address
        except EvaluationError:
            pass
        # A value result from a location: "retrieve the value ... as if DW_OP_deref" (e.g. a
        # DW_CFA_val_expression ending with DW_OP_stack_value leaves an implicit location).
        bits = self.address_size * 8
        return Value(read_bits(self.ctx, self.result(), bits, lane=self.lane), GENERIC_TYPE)

    # ------------------------------------------------------------------ operations
    def _step(self, op: Op) -> int | None:  # noqa: C901 - one dispatch by design
        name = op.name
        a = op.operands
        st = self.stack
        if name.startswith("DW_OP_lit"):
            self._push_generic(int(name[9:]))
        elif name.startswith("DW_OP_const") and name[11:12] in "1248" and name[11:12] != "":
            self._push_generic(a[0])
        elif name in ("DW_OP_constu", "DW_OP_consts"):
            self._push_generic(a[0])
        elif name == "DW_OP_addr":
            self._push_generic(a[0])
        elif name in ("DW_OP_addrx", "DW_OP_constx", "DW_OP_GNU_addr_index", "DW_OP_GNU_const_index"):
            self._push_generic(self.ctx.debug_addr(a[0]))
        elif name.startswith("DW_OP_reg") and name[9:].isdigit():
            st.append(self._register_location(int(name[9:])))
        elif name == "DW_OP_regx":
            st.append(self._register_location(a[0]))
        elif name.startswith("DW_OP_breg") and name[10:].isdigit():
            base = self._register_as_address(int(name[10:]))
            st.append(Location.memory(AddressSpace.GLOBAL, (base + a[0]) & _MASK64))
        elif name == "DW_OP_bregx":
            base = self._register_as_address(a[0])
            st.append(Location.memory(AddressSpace.GLOBAL, (base + a[1]) & _MASK64))
        elif name == "DW_OP_fbreg":
            fb = self.ctx.frame_base()
            s = fb.singles[0] if fb.singles else None
            if s is not None and isinstance(s.storage, Register):
                # "If DW_AT_frame_base yields a register location R it is replaced by DW_OP_bregx R, 0"
                fb = Location.memory(AddressSpace.GLOBAL, self._register_as_address(s.storage.number))
            st.append(fb.offset_bits(a[0] * 8))
        elif name == "DW_OP_dup":
            if not st:
                raise EvaluationError("DW_OP_dup on an empty stack")
            st.append(st[-1])
        elif name == "DW_OP_drop":
            self._pop()
        elif name == "DW_OP_over":
            if len(st) < 2:
                raise EvaluationError("DW_OP_over needs two entries")
            st.append(st[-2])
        elif name == "DW_OP_pick":
            if a[0] >= len(st):
                raise EvaluationError(f"DW_OP_pick {a[0]} beyond the stack")
            st.append(st[-1 - a[0]])
        elif name == "DW_OP_swap":
            if len(st) < 2:
                raise EvaluationError("DW_OP_swap needs two entries")
            st[-1], st[-2] = st[-2], st[-1]
        elif name == "DW_OP_rot":
            if len(st) < 3:
                raise EvaluationError("DW_OP_rot needs three entries")
            st[-1], st[-2], st[-3] = st[-2], st[-3], st[-1]
        elif name in ("DW_OP_deref", "DW_OP_deref_size", "DW_OP_deref_type", "DW_OP_GNU_deref_type"):
            loc = self._pop_location()
            self._deref(loc, name, a)
        elif name in ("DW_OP_xderef", "DW_OP_xderef_size", "DW_OP_xderef_type"):
            address = self._pop()
            space_value = self._pop_value()
            loc = self._form_aspace(address, space_value.bits, self.xderef_spaces, xderef=True)
            if self.xderef_is_address_space:
                st.append(loc)
            else:
                self._deref(loc, name.replace("xderef", "deref"), a)
        elif name in _BINARY:
            affine = self.symbolic and name in ("DW_OP_plus", "DW_OP_minus", "DW_OP_mul")
            b = self._pop_value(affine)
            x = self._pop_value(affine)
            if b.lane or x.lane:
                st.append(_affine_binary(name, x, b))
            else:
                st.append(_BINARY[name](x, b))
        elif name in ("DW_OP_abs", "DW_OP_neg", "DW_OP_not"):
            x = self._pop_value()
            n = x.type.bits
            mask = (1 << n) - 1
            if name == "DW_OP_not":
                r = ~x.bits
            elif name == "DW_OP_neg":
                r = -_signed_view(x)
            else:
                r = abs(_signed_view(x))
            st.append(Value(r & mask, x.type))
        elif name == "DW_OP_plus_uconst":
            x = self._pop_value(self.symbolic)
            st.append(Value((x.bits + a[0]) & ((1 << x.type.bits) - 1), x.type, x.lane))
        elif name == "DW_OP_skip":
            return a[0]
        elif name == "DW_OP_bra":
            cond = self._pop_value()
            return a[0] if cond.bits else None
        elif name in ("DW_OP_nop", "DW_OP_LLVM_nop"):
            pass
        elif name == "DW_OP_push_object_address":
            st.append(self.ctx.object_address())
        elif name in ("DW_OP_call2", "DW_OP_call4", "DW_OP_call_ref"):
            self._call(name, a[0])
        elif name in ("DW_OP_form_tls_address", "DW_OP_GNU_push_tls_address"):
            raise NotSupported(f"{name} (thread-local storage has no AMDGPU meaning)")
        elif name == "DW_OP_call_frame_cfa":
            st.append(self.ctx.call_frame_cfa())
        elif name == "DW_OP_piece":
            self._piece(a[0] * 8, 0)
        elif name == "DW_OP_bit_piece":
            self._piece(a[0], a[1])
        elif name == "DW_OP_implicit_value":
            st.append(Location.implicit(a[0]))
        elif name == "DW_OP_stack_value":
            top = st[-1] if st else None
            if (self.xderef_is_address_space and isinstance(top, Location) and len(top.singles) == 1
                    and isinstance(top.single.storage, Memory) and not top.single.lane_scale
                    and top.single.bit_offset % 8 == 0):
                st.pop()
                bits = ADDRESS_BITS.get(top.single.storage.space, 64)
                v = Value(top.single.bit_offset // 8, BaseType(bits // 8, DW_ATE_address, "<address>",
                                                              top.single.storage.space))
                st.append(Location.implicit(v.to_bytes()))
                return None
            v = self._pop_value()
            st.append(Location.implicit(v.to_bytes()))
        elif name in ("DW_OP_implicit_pointer", "DW_OP_GNU_implicit_pointer"):
            st.append(Location((Single(ImplicitPointer(a[0], a[1]), 0),)))
        elif name in ("DW_OP_entry_value", "DW_OP_GNU_entry_value"):
            st.append(self.ctx.entry_value(a[0]))
        elif name in ("DW_OP_const_type", "DW_OP_GNU_const_type"):
            t = self.ctx.base_type(a[0])
            if len(a[1]) != t.byte_size:
                raise EvaluationError("DW_OP_const_type constant size differs from its type")
            st.append(Value(int.from_bytes(a[1], "little"), t))
        elif name in ("DW_OP_regval_type", "DW_OP_GNU_regval_type"):
            t = self.ctx.base_type(a[1])
            info = register_info(a[0])
            if info is None:
                raise EvaluationError(f"DWARF register {a[0]} is not an AMDGPU register")
            if info.is_vector:
                raw = self.ctx.read_register(a[0], lane=self._need_lane(info.name))
            else:
                raw = self.ctx.read_register(a[0])
            st.append(Value(raw & ((1 << t.bits) - 1), t))
        elif name in ("DW_OP_convert", "DW_OP_GNU_convert"):
            x = self._pop_value()
            t = GENERIC_TYPE if a[0] == 0 else self.ctx.base_type(a[0])
            st.append(self._convert(x, t))
        elif name in ("DW_OP_reinterpret", "DW_OP_GNU_reinterpret"):
            x = self._pop_value()
            t = GENERIC_TYPE if a[0] == 0 else self.ctx.base_type(a[0])
            if t.byte_size != x.type.byte_size:
                raise EvaluationError("DW_OP_reinterpret between types of different sizes")
            st.append(Value(x.bits, t))
        elif name == "DW_OP_GNU_uninit":
            pass
        elif name in ("DW_OP_GNU_parameter_ref", "DW_OP_GNU_variable_value"):
            raise NotSupported(name)
        # ---- DW_OP_LLVM_* ------------------------------------------------------------
        elif name == "DW_OP_LLVM_form_aspace_address":
            space_value = self._pop_value()
            address = self._pop()
            st.append(self._form_aspace(address, space_value.bits, DW_ASPACE))
        elif name == "DW_OP_LLVM_push_lane":
            if self.symbolic:
                self.lane_used = True
                st.append(Value(0, GENERIC_TYPE, 1))
            else:
                self._push_generic(self._need_lane("DW_OP_LLVM_push_lane"))
        elif name == "DW_OP_LLVM_offset":
            b = self._pop_value(self.symbolic)
            loc = self._pop_location()
            st.append(loc.offset_affine(_signed_view(b) * 8, b.lane * 8))
        elif name == "DW_OP_LLVM_offset_uconst":
            loc = self._pop_location()
            st.append(loc.offset_bits(a[0] * 8))
        elif name == "DW_OP_LLVM_bit_offset":
            b = self._pop_value(self.symbolic)
            loc = self._pop_location()
            st.append(loc.offset_affine(_signed_view(b), b.lane))
        elif name == "DW_OP_LLVM_call_frame_entry_reg":
            st.append(self.ctx.entry_register(a[0]))
        elif name == "DW_OP_LLVM_undefined":
            st.append(Location.undefined())
        elif name == "DW_OP_LLVM_aspace_bregx":
            space_value = self._pop_value()
            space = dwarf_aspace(space_value.bits)
            base = self._register_as_address(a[0])
            st.append(self._memory(space, base + a[1]))
        elif name == "DW_OP_LLVM_aspace_implicit_pointer":
            space_value = self._pop_value()
            st.append(Location((Single(ImplicitPointer(a[0], a[1], dwarf_aspace(space_value.bits)), 0),)))
        elif name == "DW_OP_LLVM_piece_end":
            if not st or not isinstance(st[-1], Location) or not st[-1].is_incomplete_composite:
                raise EvaluationError("DW_OP_LLVM_piece_end without an incomplete composite on the stack")
            c = st.pop().singles[0].storage
            st.append(Location((Single(Composite(c.parts, True), 0),)))
        elif name == "DW_OP_LLVM_extend":
            size, count = a
            if size == 0 or count == 0:
                raise EvaluationError("DW_OP_LLVM_extend with a zero bit size or count")
            if count > _MAX_PARTS:
                raise EvaluationError(f"DW_OP_LLVM_extend count {count} is unreasonably large")
            loc = self._pop_location()
            st.append(Location((Single(Composite((Part(loc, size),) * count, True), 0),)))
        elif name == "DW_OP_LLVM_select_bit_piece":
            size, count = a
            if size == 0 or count == 0:
                raise EvaluationError("DW_OP_LLVM_select_bit_piece with a zero bit size or count")
            if count > _MAX_PARTS:
                raise EvaluationError(f"DW_OP_LLVM_select_bit_piece count {count} is unreasonably large")
            mask = self._pop_value()
            one = self._pop_location()
            zero = self._pop_location()
            if mask.type.bits < count:
                raise EvaluationError("DW_OP_LLVM_select_bit_piece mask has fewer bits than the count")
            parts = []
            for n in range(count):
                src = one if (mask.bits >> n) & 1 else zero
                parts.append(Part(src.offset_bits(n * size), size))
            st.append(Location((Single(Composite(tuple(parts), True), 0),)))
        else:
            raise NotSupported(f"evaluating {name}")
        return None

    # ------------------------------------------------------------------ helpers for ops
    def _memory(self, space: AddressSpace, address: int) -> Location:
        bits = ADDRESS_BITS.get(space, 64)
        address &= (1 << bits) - 1
        lane = None
        if _is_per_lane(space):
            # "If AS is context specific (thread/lane), the storage is that of the current context"
            lane = self.lane
            if space is AddressSpace.PRIVATE_LANE:
                lane = self._need_lane("a private_lane location")
            elif lane is not None:
                self.lane_used = True
        return Location.memory(space, address, lane)

    def _form_aspace(self, address: Value | Location, space_number: int,
                     numbering: dict[int, AddressSpace], *, xderef: bool = False) -> Location:
        if space_number not in numbering:
            raise AddressSpaceError(f"address space {space_number} is not defined for this producer")
        space = numbering[space_number]
        if isinstance(address, Location) and len(address.singles) == 1:
            s = address.singles[0]
            if isinstance(s.storage, ImplicitPointer) and s.storage.space is space:
                return address
            if xderef and isinstance(s.storage, Memory) and s.bit_offset % 8 == 0:
                # Upstream clang emits `DW_OP_fbreg N, DW_OP_litAS, DW_OP_swap, DW_OP_xderef`: the frame base
                # is a private (stack) address, so the address is an offset in the frame base's space.
                if s.storage.space is not AddressSpace.GLOBAL:
                    if space in (AddressSpace.GENERIC, s.storage.space):
                        return address
                return self._memory(space, s.bit_offset // 8)
        v = self._to_value(address)
        if v.lane:
            if _is_per_lane(space):
                raise _NotAffine
            return Location((Single(Memory(space), (v.bits & ((1 << ADDRESS_BITS.get(space, 64)) - 1)) * 8,
                                    v.lane * 8),))
        return self._memory(space, v.bits)

    def _deref(self, loc: Location, name: str, a: tuple) -> None:
        if loc.is_affine:
            raise _NotAffine
        if name == "DW_OP_deref":
            size, t = self.address_size, GENERIC_TYPE
        elif name == "DW_OP_deref_size":
            # EXT: "TS is the smaller of the generic type bit size and S scaled by 8"
            size, t = min(a[0], self.address_size), GENERIC_TYPE
        else:
            t = GENERIC_TYPE if a[1] == 0 else self.ctx.base_type(a[1])
            size = a[0]
        if size > _MAX_TYPE_BYTES:
            raise EvaluationError(f"{name} of {size} bytes (limit {_MAX_TYPE_BYTES})")
        raw = read_bits(self.ctx, loc, size * 8, lane=self.lane, on_lane=self._mark_lane)
        self.stack.append(Value(raw, t))

    def _mark_lane(self) -> None:
        if self.symbolic:
            raise _NotAffine
        self.lane_used = True

    def _piece(self, size_bits: int, bit_offset: int) -> None:
        if size_bits > _MAX_PIECE_BITS or bit_offset > _MAX_PIECE_BITS:
            raise EvaluationError(f"piece of {size_bits} bits at bit offset {bit_offset} (limit {_MAX_PIECE_BITS})")
        st = self.stack
        if not st or (isinstance(st[-1], Location) and st[-1].is_incomplete_composite):
            part_loc = Location.undefined()
        else:
            part_loc = self._pop_location()
            if bit_offset:
                part_loc = part_loc.offset_bits(bit_offset)
        part = Part(part_loc, size_bits)
        if st and isinstance(st[-1], Location) and st[-1].is_incomplete_composite:
            c = st.pop().singles[0].storage
            st.append(Location((Single(Composite(c.parts + (part,), False), 0),)))
        else:
            st.append(Location((Single(Composite((part,), False), 0),)))

    def _call(self, name: str, offset: int) -> None:
        target = self.ctx.call(name, offset)
        if target.expression is not None:
            ops = decode(target.expression, encoding=self.encoding, address_size=self.address_size,
                         offset_size=self.offset_size)
            self._call_depth = getattr(self, "_call_depth", 0) + 1
            if self._call_depth > _MAX_CALL_DEPTH:
                raise EvaluationError(f"{name} nested more than {_MAX_CALL_DEPTH} deep")
            try:
                self._execute(_Frame(ops, {op.offset: i for i, op in enumerate(ops)}, len(target.expression)))
            finally:
                self._call_depth -= 1
        elif target.location is not None:
            self.stack.append(target.location)
        elif target.const_value is not None:
            self.stack.append(Location.implicit(target.const_value))

    def _convert(self, x: Value, t: BaseType) -> Value:
        src = x.type
        if src.encoding == DW_ATE_address and t.encoding == DW_ATE_address and (
            src.address_space is not None or t.address_space is not None
        ):
            s_space = src.address_space or AddressSpace.GLOBAL
            t_space = t.address_space or AddressSpace.GLOBAL
            lane = self.lane
            if t_space in (AddressSpace.PRIVATE_LANE, AddressSpace.PRIVATE_WAVE) or (
                s_space is AddressSpace.PRIVATE_LANE
            ):
                if self.symbolic:
                    raise _NotAffine
                if lane is not None:
                    self.lane_used = True
            v = convert_address(x.bits, s_space, t_space, apertures=self.ctx.apertures, lane=lane,
                                wave_size=self.ctx.wave_size)
            return Value(v & ((1 << t.bits) - 1), t)
        if src.encoding == DW_ATE_float or t.encoding == DW_ATE_float:
            num = _as_number(x)
            if t.encoding == DW_ATE_float:
                fmt = {4: "<f", 8: "<d"}.get(t.byte_size)
                if fmt is None:
                    raise NotSupported(f"{t.byte_size}-byte floating-point conversion")
                return Value(int.from_bytes(struct.pack(fmt, float(num)), "little"), t)
            return Value(int(num) & ((1 << t.bits) - 1), t)
        return Value(x.as_int() & ((1 << t.bits) - 1), t)


def _affine_binary(name: str, x: Value, y: Value) -> Value:
    if x.type is not GENERIC_TYPE or y.type is not GENERIC_TYPE:
        raise _NotAffine
    if name == "DW_OP_plus":
        return Value((x.bits + y.bits) & _MASK64, GENERIC_TYPE, x.lane + y.lane)
    if name == "DW_OP_minus":
        return Value((x.bits - y.bits) & _MASK64, GENERIC_TYPE, x.lane - y.lane)
    if x.lane and y.lane:
        raise _NotAffine
    k, v = (Value(y.bits).signed(), x) if x.lane else (Value(x.bits).signed(), y)
    return Value((v.bits * k) & _MASK64, GENERIC_TYPE, v.lane * k)


def _as_number(x: Value) -> float | int:
    if x.type.encoding == DW_ATE_float:
        fmt = {4: "<f", 8: "<d"}.get(x.type.byte_size)
        if fmt is None:
            raise NotSupported(f"{x.type.byte_size}-byte floating-point conversion")
        return struct.unpack(fmt, x.to_bytes())[0]
    return x.as_int()


def _signed_view(x: Value) -> int:
    """Generic-type values are treated as signed where DWARF says so (div, comparisons, offsets)."""
    return x.signed() if (x.type.signed or x.type is GENERIC_TYPE) else x.bits


def _binop(fn, *, signed_generic: bool = False):
    def apply(x: Value, y: Value) -> Value:
        if x.type != y.type and not (x.type is GENERIC_TYPE or y.type is GENERIC_TYPE):
            raise EvaluationError(f"operands of different types ({x.type.name} and {y.type.name})")
        t = x.type if x.type is not GENERIC_TYPE else y.type
        if x.type.encoding == DW_ATE_float or y.type.encoding == DW_ATE_float:
            raise NotSupported("floating-point arithmetic in DWARF expressions")
        if signed_generic or t.signed:
            xv, yv = Value(x.bits, t).signed(), Value(y.bits, t).signed()
        else:
            xv, yv = x.bits, y.bits
        return Value(fn(xv, yv) & ((1 << t.bits) - 1), t)
    return apply


def _cmp(fn):
    def apply(x: Value, y: Value) -> Value:
        t = x.type if x.type is not GENERIC_TYPE else y.type
        # "If the operands are of the generic type, the comparisons are performed as signed operations."
        if t is GENERIC_TYPE or t.signed:
            xv, yv = Value(x.bits, t).signed(), Value(y.bits, t).signed()
        else:
            xv, yv = x.bits, y.bits
        return Value(1 if fn(xv, yv) else 0)
    return apply


def _div(a: int, b: int) -> int:
    if b == 0:
        raise EvaluationError("DW_OP_div by zero")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _mod(a: int, b: int) -> int:
    if b == 0:
        raise EvaluationError("DW_OP_mod by zero")
    return a % b


def _shift_guard(fn):
    def apply(a: int, b: int) -> int:
        return 0 if b >= 128 or b < 0 else fn(a, b)  # a negative count is a huge unsigned one
    return apply


_BINARY = {
    "DW_OP_and": _binop(lambda a, b: a & b),
    "DW_OP_or": _binop(lambda a, b: a | b),
    "DW_OP_xor": _binop(lambda a, b: a ^ b),
    "DW_OP_plus": _binop(lambda a, b: a + b),
    "DW_OP_minus": _binop(lambda a, b: a - b),
    "DW_OP_mul": _binop(lambda a, b: a * b),
    "DW_OP_div": _binop(_div, signed_generic=True),
    "DW_OP_mod": _binop(_mod),
    "DW_OP_shl": _binop(_shift_guard(lambda a, b: a << b)),
    "DW_OP_shr": _binop(_shift_guard(lambda a, b: a >> b)),
    # the shift count is a count (unsigned): a negative entry is a huge one, so all sign bits
    "DW_OP_shra": _binop(lambda a, b: a >> (127 if b < 0 else min(b, 127)), signed_generic=True),
    "DW_OP_eq": _cmp(lambda a, b: a == b),
    "DW_OP_ne": _cmp(lambda a, b: a != b),
    "DW_OP_lt": _cmp(lambda a, b: a < b),
    "DW_OP_le": _cmp(lambda a, b: a <= b),
    "DW_OP_gt": _cmp(lambda a, b: a > b),
    "DW_OP_ge": _cmp(lambda a, b: a >= b),
}


# ---------------------------------------------------------------------- reading locations


def read_bits(ctx: Context, loc: Location, nbits: int, *, lane: int | None = None, on_lane=None) -> int:
    """Read `nbits` bits from a location (its first single location description) as an unsigned int.

    Raises UndefinedLocation when any bit comes from undefined storage, EvaluationError past the end of the
    storage, Unavailable when the target does not hold the bytes.
    """
    if not loc.singles:
        raise UndefinedLocation("the location is undefined")
    s = loc.singles[0]
    if s.lane_scale:
        raise EvaluationError("the location depends on the lane: take Location.at_lane(lane) first")
    return _read_storage(ctx, s.storage, s.bit_offset, nbits, lane, on_lane)


def _read_storage(ctx: Context, st, off: int, nbits: int, lane, on_lane) -> int:
    if nbits == 0:
        return 0
    if isinstance(st, Undefined):
        raise UndefinedLocation("bits read from an undefined location")
    if isinstance(st, Composite):
        result = 0
        got = 0
        pos = 0
        for p in st.parts:
            lo, hi = pos, pos + p.bits
            pos = hi
            if hi <= off or lo >= off + nbits:
                continue
            start = max(off, lo)
            stop = min(off + nbits, hi)
            chunk = read_bits(ctx, p.location.offset_bits(start - lo) if start > lo else p.location,
                              stop - start, lane=lane, on_lane=on_lane)
            result |= chunk << (start - off)
            got += stop - start
        if got < nbits:
            # the pieces describe less than the object: the rest is not described, i.e. optimized out
            raise UndefinedLocation(f"read of {nbits} bits past the end of a {st.size_bits}-bit composite")
        return result
    if isinstance(st, Implicit):
        if off + nbits > len(st.data) * 8:
            raise EvaluationError("read past the end of an implicit location")
        return (int.from_bytes(st.data, "little") >> off) & ((1 << nbits) - 1)
    if isinstance(st, Register):
        info = register_info(st.number)
        if info is None:
            raise EvaluationError(f"DWARF register {st.number} is not an AMDGPU register")
        if off + nbits > info.bits:
            raise EvaluationError(f"read of {nbits} bits at bit {off} past the end of {info.name}")
        if not info.is_vector:
            return (ctx.read_register(st.number) >> off) & ((1 << nbits) - 1)
        first, last = off // 32, (off + nbits - 1) // 32
        acc = 0
        for ln in range(first, last + 1):
            acc |= (ctx.read_register(st.number, lane=ln) & 0xFFFFFFFF) << (32 * (ln - first))
        return (acc >> (off - 32 * first)) & ((1 << nbits) - 1)
    if isinstance(st, Memory):
        start = off // 8
        size = (off + nbits + 7) // 8 - start
        space = st.space
        mlane = st.lane if st.lane is not None else lane
        address = start
        if space is AddressSpace.GENERIC:
            space, address = ctx.apertures.classify(start)
            if space is AddressSpace.PRIVATE_LANE:
                if mlane is None:
                    raise EvaluationError("a generic private-aperture address needs a lane")
                if on_lane:
                    on_lane()
        elif space is AddressSpace.PRIVATE_LANE and mlane is None:
            raise EvaluationError("a private_lane location needs a lane")
        rlane = mlane if space is AddressSpace.PRIVATE_LANE else None
        data = ctx.read_memory(space, address, size, lane=rlane)
        return (int.from_bytes(data, "little") >> (off - start * 8)) & ((1 << nbits) - 1)
    if isinstance(st, ImplicitPointer):
        raise NotSupported("reading the value of an implicit pointer (dereference it instead)")
    raise EvaluationError(f"cannot read from {st!r}")


def read_bytes(ctx: Context, loc: Location, size: int, *, lane: int | None = None) -> bytes:
    return read_bits(ctx, loc, size * 8, lane=lane).to_bytes(size, "little")


def read_value(ctx: Context, loc: Location, t: BaseType = GENERIC_TYPE, *, lane: int | None = None) -> Value:
    return Value(read_bits(ctx, loc, t.bits, lane=lane), t)


# ---------------------------------------------------------------------- convenience entry points


def evaluate(expression: bytes | Sequence[Op], context: Context, **options) -> Location:
    """Evaluate an expression as a location description (see Evaluator for options)."""
    return Evaluator(context, **options).run(expression).result()


@dataclass(frozen=True)
class LaneResults:
    """Per-lane locations. `uniform` is True when one evaluation served every lane."""

    locations: dict[int, Location | Exception]
    uniform: bool
    evaluations: int


def evaluate_lanes(expression: bytes | Sequence[Op], context: Context, lanes: Iterable[int],
                   **options) -> LaneResults:
    """Evaluate for each lane in `lanes` as cheaply as the expression allows.

    1. One symbolic evaluation: `push_lane` and the per-lane slice of a vector register are carried as
       "base + k * lane" (values, then bit offsets of locations). If that succeeds, a lane-independent
       result is shared by every lane and a lane-affine one is instantiated per lane (no re-evaluation):
       this covers the shapes compilers emit (regx of a VGPR, push_lane * 4 offsets, fbreg, bregx of SGPRs).
    2. Otherwise (a lane-dependent value is dereferenced, compared, branched on...) one evaluation per lane.

    Errors are per lane (a lane whose location is unavailable does not hide the others).
    """
    from amddbg.errors import AmddbgError

    lanes = list(lanes)
    if not lanes:
        return LaneResults({}, True, 0)
    ops = expression
    if isinstance(expression, (bytes, bytearray, memoryview)):
        ops = decode(bytes(expression), encoding=options.get("encoding", Encoding.LLVM_USER),
                     address_size=options.get("address_size", 8), offset_size=options.get("offset_size", 4))
    options = {k: v for k, v in options.items() if k not in ("lane", "symbolic_lane")}
    ev = Evaluator(context, lane=None, symbolic_lane=True, **options)
    try:
        loc = ev.run(ops).result()
    except (_NotAffine, AmddbgError):
        loc = None
    if loc is not None:
        if not loc.is_affine:
            return LaneResults({ln: loc for ln in lanes}, True, 1)
        out: dict[int, Location | Exception] = {}
        for ln in lanes:
            try:
                out[ln] = loc.at_lane(ln)
            except AmddbgError as exc:
                out[ln] = exc
        return LaneResults(out, False, 1)
    out = {}
    for ln in lanes:
        try:
            out[ln] = Evaluator(context, lane=ln, **options).run(ops).result()
        except AmddbgError as exc:
            out[ln] = exc
    return LaneResults(out, False, len(lanes))
