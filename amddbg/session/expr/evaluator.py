"""Evaluate parsed C-subset expressions on `Value`s, asking an `EvalScope` for everything it needs.

gimli's shape: the evaluator owns no target. Variables, types, registers, memory, convenience variables and
the value history come from the scope (`amddbg.session.scope.ProgramScope` over a program's focus, or a
test's fake). Arithmetic follows C's usual conversions; pointers carry their address space, so ``*p`` reads
the right memory (a ``local`` pointer reads the focused wave's LDS, ``private_lane`` the lane's scratch).
"""

from __future__ import annotations

import operator
import re
from typing import Protocol

from amddbg.errors import AmddbgError, Unavailable, UsageError
from amddbg.session.expr.parser import SPACE_WORDS, Parser, deep_recursion
from amddbg.session.values import (
    BUILTIN_TYPES,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    UINT,
    ULONG,
    CType,
    Value,
    is_dwarf_type,
    is_signed,
    pointer_to,
    scalar_kind,
    type_name,
    type_size,
)

# LLVM AMDGPU address-space numbers, as `__attribute__((address_space(N)))` spells them
LLVM_ASPACES = {0: "generic", 1: "global", 2: "region", 3: "local", 4: "constant", 5: "private_lane"}


class EvalScope(Protocol):
    lane: int
    wave_size: int

    def lookup_variable(self, name: str) -> Value | None: ...

    def lookup_type(self, name: str): ...

    def read_register(self, name: str, lane: int | None) -> Value: ...

    def read_memory(self, space: str, address: int, size: int, lane: int | None) -> bytes: ...

    def convenience(self, name: str) -> Value | None: ...

    def set_convenience(self, name: str, value: Value) -> None: ...

    def history(self, index: int | None, back: int) -> Value: ...


def parse_with(scope, text: str):
    def is_type(name: str) -> bool:
        if scope is None:
            return False
        try:
            if scope.lookup_variable(name) is not None:
                return False
        except AmddbgError:
            pass
        return scope.lookup_type(name) is not None

    with deep_recursion():
        return Parser(text, is_type).parse()


def evaluate(expression, scope) -> Value:
    tree = parse_with(scope, expression) if isinstance(expression, str) else expression
    with deep_recursion():
        return Evaluator(scope).eval(tree)


class Evaluator:
    def __init__(self, scope) -> None:
        self.scope = scope

    # -- types ------------------------------------------------------------------------------------
    def resolve_type(self, text: str):
        words = text.split()
        stars = 0
        space = None
        base_words = []
        for w in words:
            if w == "*":
                stars += 1
            elif w in SPACE_WORDS:
                space = "private_lane" if w == "private" else w
            elif w.startswith("__attribute__"):
                m = re.search(r"address_space\((\d+)\)", w)
                n = int(m.group(1)) if m else -1
                if n not in LLVM_ASPACES:
                    raise UsageError(f"unknown address space number {n}")
                space = LLVM_ASPACES[n]
            elif w in ("const", "volatile"):
                continue
            else:
                base_words.append(w)
        name = " ".join(base_words)
        base = BUILTIN_TYPES.get(name)
        if base is None:
            bare = name
            for kw in ("struct ", "union ", "enum "):
                if bare.startswith(kw):
                    bare = bare[len(kw):]
            base = self.scope.lookup_type(bare) if bare else None
            if base is None:
                raise UsageError(f'No symbol "{bare or text}" in current context.')
        t = base
        for i in range(stars):
            t = pointer_to(t, space if i == 0 else None)
        if stars == 0 and space is not None:
            raise UsageError("an address-space qualifier applies to a pointer type")
        return t

    # -- evaluation ---------------------------------------------------------------------------------
    def eval(self, node) -> Value:
        kind = node[0]
        fn = getattr(self, "_" + kind, None)
        if fn is None:  # pragma: no cover - parser and evaluator are written together
            raise UsageError(f"cannot evaluate {kind}")
        return fn(node)

    def _int(self, node) -> Value:
        n, suffix = node[1], node[2]
        unsigned = "u" in suffix
        long_ = "l" in suffix or n >= (1 << 32) or (not unsigned and n >= (1 << 31))
        if n >= (1 << 64):
            raise UsageError("Numeric constant too large.")
        if long_:
            t = ULONG if unsigned or n >= (1 << 63) else LONG
        else:
            t = UINT if unsigned or n >= (1 << 31) else INT
        return Value.from_int(n, t)

    def _float(self, node) -> Value:
        return Value.from_float(node[1], FLOAT if node[2] == "f" else DOUBLE)

    def _char(self, node) -> Value:
        return Value.from_int(node[1] - 256 if node[1] > 127 else node[1], BUILTIN_TYPES["char"])

    def _str(self, node) -> Value:
        data = node[1] + b"\0"
        return Value(CType(f"char [{len(data)}]", "string", len(data)), data)

    def _var(self, node) -> Value:
        v = self.scope.lookup_variable(node[1])
        if v is None:
            raise UsageError(f'No symbol "{node[1]}" in current context.')
        return v

    def _dollar(self, node) -> Value:
        name = node[1]
        try:
            return self.scope.read_register(name, self.scope.lane)
        except KeyError:
            pass
        v = self.scope.convenience(name)
        if v is None:
            return Value(CType("void", "void", 0), b"", error="void")
        return v

    def _hist(self, node) -> Value:
        return self.scope.history(node[1], node[2])

    def _space(self, node) -> Value:
        """``local#0x10``: an address in a named space (a `char SPACE *` value)."""
        space = "private_lane" if node[1] == "private" else node[1]
        addr = self.eval(node[2])
        return Value.from_int(addr.to_int() & (2**64 - 1), pointer_to(BUILTIN_TYPES["char"], space))

    def _comma(self, node) -> Value:
        self.eval(node[1])
        return self.eval(node[2])

    def _assign(self, node) -> Value:
        target = node[1]
        if target[0] != "dollar":
            raise UsageError("Left operand of assignment is not a modifiable lvalue "
                             "(a core cannot be changed: assign to a $convenience variable).")
        v = self.eval(node[2])
        self.scope.set_convenience(target[1], v)
        return v

    def _tern(self, node) -> Value:
        return self.eval(node[2]) if self.eval(node[1]).truthy() else self.eval(node[3])

    def _sizeof_t(self, node) -> Value:
        return Value.from_int(type_size(self.resolve_type(node[1])), ULONG)

    def _sizeof(self, node) -> Value:
        v = self.eval(node[1])
        return Value.from_int(type_size(v.type) if v.type is not None else len(v.data or b""), ULONG)

    def _cast(self, node) -> Value:
        return self.cast(self.eval(node[2]), self.resolve_type(node[1]))

    def cast(self, v: Value, t) -> Value:
        k_to = scalar_kind(t)
        k_from = scalar_kind(v.type)
        if v.data is None:
            return Value(t, None, error=v.error, lane=v.lane)
        if k_to == "aggregate" or k_from == "aggregate":
            if type_size(t) == len(v.data):
                return Value(t, v.data, lane=v.lane, address=v.address, space=v.space)
            raise UsageError(f"Invalid cast to {type_name(t)}.")
        if k_to == "float":
            x = v.to_float() if k_from == "float" else float(v.to_int())
            return Value.from_float(x, t if isinstance(t, CType) else _as_ctype(t))._retype(t)
        if k_to == "void":
            return Value(t, b"", error="void")
        if k_to == "pointer" and k_from == "pointer" and isinstance(t, CType) and t.space is None:
            src_space = self.pointee(v)[1]
            if src_space not in (None, "generic"):  # (int *)local#24 stays the same LDS object
                t = pointer_to(t.target, src_space)
        n = int(v.to_float()) if k_from == "float" else v.to_int()
        size = type_size(t) or 8
        n &= (1 << (8 * size)) - 1
        if k_to == "bool":
            n = 1 if n else 0
        return Value(t, n.to_bytes(size, "little"), lane=v.lane)

    # -- memory -------------------------------------------------------------------------------------
    def pointee(self, ptr: Value):
        t = ptr.type
        if isinstance(t, CType):
            return t.target, (t.space or "generic")
        s = t.strip()
        if s.kind == "array":
            return s.target, ptr.space or "generic"
        return s.target, (s.address_space or "generic")

    def deref(self, ptr: Value, offset_elems: int = 0) -> Value:
        k = scalar_kind(ptr.type)
        if k not in ("pointer", "int"):
            raise UsageError("Attempt to take contents of a non-pointer value.")
        if k == "int":
            target, space = BUILTIN_TYPES["int"], "generic"
        else:
            target, space = self.pointee(ptr)
        if target is None or scalar_kind(target) == "void":
            raise UsageError("Attempt to take contents of a non-pointer value.")
        size = type_size(target)
        if size <= 0:
            raise UsageError(f"cannot read a value of incomplete type {type_name(target)}")
        address = (ptr.to_int() + offset_elems * size) & (2**64 - 1)
        try:
            data = self.scope.read_memory(space, address, size, self.scope.lane)
        except Unavailable:
            return Value(target, None, error="<unavailable>", address=address, space=space, lane=self.scope.lane)
        return Value(target, data, address=address, space=space, lane=self.scope.lane)

    ARRAY_AT_MAX = 1 << 20  # bytes `X@N` may read (gdb's max-value-size is 64 KiB by default; a core can hold more)

    def _artificial_array(self, first: Value, count: Value) -> Value:
        """gdb's `X@N`: N objects of X's type starting at X's address (`p *in@4`)."""
        n = count.to_int()
        if n <= 0:
            raise UsageError("Only values in memory can be extended with '@'." if first.address is None
                             else "Non-positive repeat count.")
        if first.address is None:
            raise UsageError("Only values in memory can be extended with '@'.")
        size = type_size(first.type)
        if size <= 0:
            raise UsageError(f"cannot repeat a value of incomplete type {type_name(first.type)}")
        if size * n > self.ARRAY_AT_MAX:
            raise UsageError(f"value requires {size * n} bytes, which is more than the {self.ARRAY_AT_MAX} bytes "
                             "`@` reads")
        t = _ArtificialArray(first.type, n)
        try:
            data = self.scope.read_memory(first.space or "generic", first.address, size * n, self.scope.lane)
        except Unavailable:
            return Value(t, None, error="<unavailable>", address=first.address, space=first.space,
                         lane=self.scope.lane)
        return Value(t, data, address=first.address, space=first.space, lane=self.scope.lane)

    def _index(self, node) -> Value:
        base = self.eval(node[1])
        i = self.eval(node[2]).to_int()
        t = base.type
        if is_dwarf_type(t) and t.strip().kind == "array":
            el = t.strip().target
            size = type_size(el)
            dims = t.strip().dims
            if len(dims) > 1:
                sub = _subarray(t.strip(), dims[1:])
                size = type_size(el)
                for d in dims[1:]:
                    size *= d or 0
                el = sub
            if dims and dims[0] is not None and not 0 <= i < dims[0]:
                raise UsageError(f"no such vector element (index {i} of {dims[0]})")
            if base.data is not None:
                return Value(el, base.data[i * size:(i + 1) * size], lane=base.lane,
                             address=None if base.address is None else base.address + i * size, space=base.space)
            if base.address is not None:
                return self.deref(Value.from_int(base.address, pointer_to(el, base.space)), i)
            return Value(el, None, error=base.error)
        if scalar_kind(t) == "pointer":
            return self.deref(base, i)
        raise UsageError(f"cannot subscript something of type `{type_name(t)}'")

    def _member(self, node, value: Value | None = None) -> Value:
        v = value if value is not None else self.eval(node[1])
        name = node[2]
        t = v.type
        if not is_dwarf_type(t) or t.strip().kind not in ("struct", "union", "class"):
            raise UsageError("Attempt to extract a component of a value that is not a structure.")
        for m in t.strip().members:
            if m.name == name:
                size = type_size(m.type)
                off = m.offset or 0
                if v.data is None:
                    return Value(m.type, None, error=v.error)
                data = v.data[off:off + size]
                if m.bit_size:
                    bo = m.bit_offset or 0
                    raw = int.from_bytes(v.data, "little") >> bo & ((1 << m.bit_size) - 1)
                    data = raw.to_bytes(size, "little")
                return Value(m.type, data, lane=v.lane,
                             address=None if v.address is None else v.address + off, space=v.space)
        raise UsageError(f'There is no member named {name}.')

    def _arrow(self, node) -> Value:
        ptr = self.eval(node[1])
        if scalar_kind(ptr.type) != "pointer":
            raise UsageError("The -> operator needs a pointer.")
        return self._member(node, self.deref(ptr))

    # -- operators -------------------------------------------------------------------------------------
    def _un(self, node) -> Value:
        op = node[1]
        if op == "&":
            v = self.eval(node[2])
            if v.address is None:
                raise UsageError("Attempt to take address of value not located in memory.")
            return Value.from_int(v.address, pointer_to(v.type, v.space))
        v = self.eval(node[2])
        if op == "*":
            if is_dwarf_type(v.type) and v.type.strip().kind == "array":
                return self._index(("index", ("_value", v), ("int", 0, "")))
            return self.deref(v)
        k = scalar_kind(v.type)
        if op == "!":
            return Value.from_int(0 if v.truthy() else 1, INT)
        if k == "float":
            x = v.to_float()
            if op == "-":
                return Value.from_float(-x, _as_ctype(v.type))
            if op == "+":
                return v
            raise UsageError("Argument to complement operation not an integer, boolean.")
        t = promote(v.type)
        n = v.to_int()
        if op == "-":
            n = -n
        elif op == "~":
            n = ~n
        return _int_value(n, t)

    def _value(self, node) -> Value:
        return node[1]

    def _bin(self, node) -> Value:
        op = node[1]
        if op == "&&":
            return Value.from_int(1 if self.eval(node[2]).truthy() and self.eval(node[3]).truthy() else 0, INT)
        if op == "||":
            return Value.from_int(1 if self.eval(node[2]).truthy() or self.eval(node[3]).truthy() else 0, INT)
        if op == "@":
            return self._artificial_array(self.eval(node[2]), self.eval(node[3]))
        a, b = self.eval(node[2]), self.eval(node[3])
        for v in (a, b):
            if v.data is None:
                raise UsageError(f"value is {v.error or '<unavailable>'}")
        ka, kb = scalar_kind(a.type), scalar_kind(b.type)
        if "aggregate" in (ka, kb):
            raise UsageError("Argument to arithmetic operation not a number or boolean.")
        if op in ("+", "-") and (ka == "pointer" or kb == "pointer"):
            return self.pointer_arith(op, a, b, ka, kb)
        if ka == "float" or kb == "float":
            x, y = a.to_float(), b.to_float()
            ft = DOUBLE if max(type_size(a.type) if ka == "float" else 0,
                               type_size(b.type) if kb == "float" else 0) > 4 else FLOAT
            if op in ("==", "!=", "<", ">", "<=", ">="):
                return Value.from_int(int(_compare(op, x, y)), INT)
            if op in _ARITH:
                r = _ARITH[op](x, y)
            elif op == "/":
                r = x / y if y != 0 else (float("nan") if x == 0 else float("inf") * (1 if x > 0 else -1))
            else:
                raise UsageError("Integer only operation on a floating-point value.")
            return Value.from_float(r, ft)
        t = common_int_type(a.type, b.type)
        x, y = _as(a, t), _as(b, t)
        if op in ("==", "!=", "<", ">", "<=", ">="):
            return Value.from_int(int(_compare(op, x, y)), INT)
        if op in ("/", "%") and y == 0:
            raise UsageError("Division by zero")
        if op in _ARITH:
            r = _ARITH[op](x, y)
        elif op == "/":
            r = abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1)
        elif op == "%":
            r = x - y * (abs(x) // abs(y) * (1 if (x >= 0) == (y >= 0) else -1))
        elif op == "&":
            r = x & y
        elif op == "|":
            r = x | y
        elif op == "^":
            r = x ^ y
        elif op in ("<<", ">>"):
            t = promote(a.type)
            x = _as(a, t)
            if y < 0 or y >= 8 * type_size(t):
                r = 0
            else:
                r = x << y if op == "<<" else x >> y
        else:  # pragma: no cover
            raise UsageError(f"unknown operator {op}")
        return _int_value(r, t)

    def pointer_arith(self, op, a, b, ka, kb) -> Value:
        if ka == "pointer" and kb == "pointer":
            if op != "-":
                raise UsageError("cannot add two pointers")
            ta, _ = self.pointee(a)
            size = max(1, type_size(ta))
            return Value.from_int((a.to_int() - b.to_int()) // size, LONG)
        ptr, n = (a, b.to_int()) if ka == "pointer" else (b, a.to_int())
        if op == "-" and kb == "pointer":
            raise UsageError("cannot subtract a pointer from an integer")
        target, _ = self.pointee(ptr)
        size = max(1, type_size(target)) if target is not None and scalar_kind(target) != "void" else 1
        delta = n * size * (-1 if op == "-" else 1)
        return Value(ptr.type, ((ptr.to_int() + delta) & (2**64 - 1)).to_bytes(8, "little"))


_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def _compare(op, x, y) -> bool:
    return {"==": x == y, "!=": x != y, "<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[op]


def _as_ctype(t) -> CType:
    if isinstance(t, CType):
        return t
    size = type_size(t)
    return DOUBLE if size == 8 else FLOAT if size == 4 else CType(type_name(t), "float", size)


def promote(t):
    """Integer promotion: anything narrower than int becomes int."""
    if type_size(t) < 4 or scalar_kind(t) in ("bool", "char", "enum"):
        return INT if type_size(t) < 4 or is_signed(t) or scalar_kind(t) == "enum" else UINT
    return t


def common_int_type(a, b):
    a, b = promote(a), promote(b)
    sa, sb = type_size(a), type_size(b)
    if scalar_kind(a) == "pointer":
        a = ULONG
    if scalar_kind(b) == "pointer":
        b = ULONG
    size = max(sa, sb, 4)
    unsigned = (not is_signed(a) and type_size(a) == size) or (not is_signed(b) and type_size(b) == size)
    if size <= 4:
        return UINT if unsigned else INT
    return ULONG if unsigned else LONG


def _as(v: Value, t) -> int:
    n = v.to_int()
    size = type_size(t)
    n &= (1 << (8 * size)) - 1
    if is_signed(t) and n >= 1 << (8 * size - 1):
        n -= 1 << (8 * size)
    return n


def _int_value(n: int, t) -> Value:
    size = type_size(t) or 4
    n &= (1 << (8 * size)) - 1
    return Value(t, n.to_bytes(size, "little"))


def _subarray(t, dims):
    """A sub-array of a multi-dimensional DWARF array: represented by its element type and dims."""
    return _SubArray(t, dims)


class _ArtificialArray:
    """The type of `X@N`: an array of N elements of X's type."""

    def __init__(self, target, count: int) -> None:
        self.target = target
        self.dims = [count]

    def strip(self):
        return self

    kind = "array"

    @property
    def size(self):
        return type_size(self.target) * self.dims[0]

    @property
    def name(self):
        return f"{type_name(self.target)} [{self.dims[0]}]"

    members: list = []
    encoding = None
    address_space = None


class _SubArray:
    def __init__(self, array, dims) -> None:
        self._array = array
        self._dims = dims

    def strip(self):
        return self

    kind = "array"

    @property
    def target(self):
        return self._array.target

    @property
    def dims(self):
        return self._dims

    @property
    def size(self):
        n = type_size(self._array.target)
        for d in self._dims:
            n *= d or 0
        return n

    @property
    def name(self):
        return type_name(self._array.target) + "".join(f"[{d}]" for d in self._dims)

    members: list = []
    encoding = None
    address_space = None
