"""Values as the debugger prints them: typed bytes for one lane, or grouped over lanes.

A `Value` carries its type (a DWARF `Type` or a `CType` for literals, registers and casts), its bytes
(or why there are none: ``<optimized out>``, ``<unavailable>``), where it lives (address + address space,
when it is an lvalue in memory), and whether it was evaluated at the wave PC for a lane whose own PC
DWARF does not give (inactive lanes with upstream producers): such values are *marked*.

Natural formatting is gdb's (`amddbg.dwarf.values.format_value`); ``/x /d /u /t /o /c /f /a /z`` apply
gdb's print formats to scalars and element-wise to aggregates.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass

from amddbg.dwarf.types import normalize_type_name
from amddbg.dwarf.values import OPTIMIZED_OUT, UNAVAILABLE, format_value
from amddbg.errors import AmddbgError, UsageError

FORMATS = "xduotcfazs"


@dataclass(frozen=True)
class CType:
    """A C type that DWARF did not provide (literal types, register types, casts to builtin names)."""

    name: str
    kind: str  # "int" | "float" | "bool" | "char" | "pointer" | "void"
    size: int
    signed: bool = True
    target: CType | object | None = None  # pointee (CType or DWARF Type)
    space: str | None = None  # pointer address space

    def strip(self) -> CType:
        return self


def is_dwarf_type(t) -> bool:
    return t is not None and not isinstance(t, CType)


def type_name(t) -> str:
    if t is None:
        return "void"
    return t.name


def type_size(t) -> int:
    s = t.size if t is not None else 0
    return int(s or 0)


def scalar_kind(t) -> str:
    """int | float | bool | char | pointer | enum | aggregate | void for CType and DWARF types alike."""
    if t is None:
        return "void"
    if isinstance(t, CType):
        return t.kind
    from amddbg.dwarf import constants as C

    s = t.strip()
    k = s.kind
    if k == "base":
        enc = s.encoding
        if enc in (C.DW_ATE_float,):
            return "float"
        if enc == C.DW_ATE_boolean:
            return "bool"
        if enc in (C.DW_ATE_signed_char, C.DW_ATE_unsigned_char) or (s.size == 1 and "char" in s.name):
            return "char"
        return "int"
    if k in ("pointer", "reference"):
        return "pointer"
    if k == "enum":
        return "enum"
    if k == "void":
        return "void"
    return "aggregate"


def is_signed(t) -> bool:
    if isinstance(t, CType):
        return t.signed
    if t is None:
        return False
    from amddbg.dwarf import constants as C

    s = t.strip()
    if s.kind == "enum":
        return True
    return s.encoding in (C.DW_ATE_signed, C.DW_ATE_signed_char, C.DW_ATE_float)


@dataclass
class Value:
    type: object  # DWARF Type | CType
    data: bytes | None
    lane: int | None = None
    address: int | None = None
    space: str | None = None  # address space name of `address`
    error: str | None = None  # why data is None: OPTIMIZED_OUT / UNAVAILABLE text
    pc_marked: bool = False  # evaluated at the wave PC for a lane whose own PC is unknown
    register: str | None = None  # set for register values ($v3): lvalue in a register

    @classmethod
    def optimized_out(cls, type_=None) -> Value:
        return cls(type_, None, error=OPTIMIZED_OUT)

    @classmethod
    def unavailable(cls, why: str = "", type_=None) -> Value:
        return cls(type_, None, error=UNAVAILABLE)

    @classmethod
    def from_int(cls, n: int, type_: CType | None = None) -> Value:
        t = type_ or (INT if -(1 << 31) <= n < (1 << 31) else LONG)
        size = type_size(t) or 8
        n &= (1 << (8 * size)) - 1
        return cls(t, n.to_bytes(size, "little"))

    @classmethod
    def from_float(cls, x: float, type_: CType | None = None) -> Value:
        t = type_ or DOUBLE
        size = type_size(t)
        fmt = {2: "<e", 4: "<f", 8: "<d"}[size]
        try:
            data = struct.pack(fmt, x)
        except OverflowError:
            data = struct.pack(fmt, math.copysign(math.inf, x))
        return cls(t, data)

    # -- conversions -------------------------------------------------------------------------------
    @property
    def available(self) -> bool:
        return self.data is not None

    def _need(self) -> bytes:
        if self.data is None:
            raise UsageError(f"value is {self.error or UNAVAILABLE}")
        return self.data

    def to_int(self) -> int:
        data = self._need()
        k = scalar_kind(self.type)
        if k == "float":
            return int(self.to_float())
        if k == "aggregate":
            raise UsageError(f"cannot convert a value of type {type_name(self.type)} to an integer")
        return int.from_bytes(data[:8] if len(data) > 8 else data, "little", signed=is_signed(self.type))

    def to_float(self) -> float:
        data = self._need()
        if scalar_kind(self.type) == "float":
            fmt = {2: "<e", 4: "<f", 8: "<d"}.get(len(data))
            if fmt is None:
                raise UsageError(f"cannot use a {len(data)}-byte float")
            return struct.unpack(fmt, data)[0]
        return float(self.to_int())

    def to_python(self):
        k = scalar_kind(self.type)
        if self.data is None:
            return None
        if k == "float":
            return self.to_float()
        if k in ("int", "char", "bool", "enum", "pointer"):
            return self.to_int()
        return self.data

    def truthy(self) -> bool:
        if scalar_kind(self.type) == "float":
            return self.to_float() != 0.0
        return self.to_int() != 0

    # -- printing -------------------------------------------------------------------------------------
    def format(self, fmt: str | None = None, *, pretty: bool = False) -> str:
        if self.data is None:
            return self.error or UNAVAILABLE
        if fmt in (None, ""):
            text = self._natural()
        else:
            if fmt not in FORMATS:
                raise UsageError(f"Undefined output format \"{fmt}\".")
            text = self._formatted(fmt)
        return text

    def pretty(self, fmt: str | None = None, indent: int = 0) -> str:
        """gdb's `set print pretty on`: one member per line, nested structs indented by two spaces."""
        t = self.type
        if self.data is None or isinstance(t, CType) or t is None or scalar_kind(t) != "aggregate":
            return self.format(fmt)
        printed = self._printed() if fmt in (None, "") else None
        if printed is not None:
            return printed
        s = t.strip()
        if s.kind not in ("struct", "union", "class"):
            return self.format(fmt)
        pad = "  " * (indent + 1)
        lines = ["{"]
        members = s.members
        for i, m in enumerate(members):
            size = type_size(m.type)
            off = m.offset or 0
            sub = Value(m.type, self.data[off:off + size], lane=self.lane)
            comma = "," if i < len(members) - 1 else ""
            lines.append(f"{pad}{m.name} = {sub.pretty(fmt, indent + 1)}{comma}")
        lines.append("  " * indent + "}")
        return "\n".join(lines)

    def _natural(self) -> str:
        t = self.type
        data = self.data
        if isinstance(t, CType):
            return _format_ctype(t, data)
        if t is None:
            return "0x" + data[::-1].hex()
        k = scalar_kind(t)
        if k == "pointer":
            return _format_pointer(t, int.from_bytes(data, "little"))
        return format_value(t, data, self._printer())

    def _printer(self, *, skip_self: bool = False):
        """The installed value printer as `format_value` asks it, at this value and inside it (members and
        elements get this value's lane and address space; a member's address is this value's plus its offset
        only at the top, where it is known)."""
        hook = _PRINTER.get()
        if hook is None:
            return None
        top = [skip_self]

        def ask(ty, data):
            if top[0]:
                top[0] = False
                return None
            at_top = ty is self.type and data is self.data
            return hook(Value(ty, data, lane=self.lane, address=self.address if at_top else None,
                              space=self.space))

        return ask

    def _printed(self) -> str | None:
        ask = self._printer()
        return ask(self.type, self.data) if ask is not None else None

    def format_builtin(self) -> str:
        """The built-in format of this value (a printer installed for its own type is not asked; printers for
        the types inside it still are): what a pretty-printer calls to wrap or fall back."""
        if self.data is None:
            return self.error or UNAVAILABLE
        t = self.type
        if isinstance(t, CType) or t is None or scalar_kind(t) == "pointer":
            return self._natural()
        return format_value(t, self.data, self._printer(skip_self=True))

    def _formatted(self, fmt: str) -> str:
        k = scalar_kind(self.type)
        data = self.data
        if k == "aggregate":
            return self._aggregate_formatted(fmt)
        size = len(data)
        u = int.from_bytes(data, "little")
        s = int.from_bytes(data, "little", signed=True)
        bits = 8 * size
        if fmt == "x":
            if k == "float":
                return hex(u)
            return hex(u)
        if fmt == "z":
            return "0x" + f"{u:0{2 * size}x}"
        if fmt == "o":
            return "0" + f"{u:o}" if u else "0"
        if fmt == "t":
            return f"{u:b}"
        if fmt == "d":
            return str(s if k != "float" else int(self.to_float()))
        if fmt == "u":
            return str(u)
        if fmt == "c":
            c = s & 0xFF if size else 0
            c = c - 256 if c > 127 else c
            return f"{c} {_char_literal(c & 0xFF)}"
        if fmt == "f":
            if k == "float":
                return self._natural()
            if size in (4, 8, 2):
                return _format_ctype(CType("f", "float", size), data) if k != "int" else str(s)
            return str(s)
        if fmt == "a":
            return hex(u)
        if fmt == "s":
            return self._natural()
        return hex(u & ((1 << bits) - 1))

    def _aggregate_formatted(self, fmt: str) -> str:
        t = self.type.strip()
        data = self.data
        if t.kind == "array":
            el = t.target
            n = len(data) // max(1, type_size(el))
            items = [Value(el, data[i * type_size(el):(i + 1) * type_size(el)]).format(fmt) for i in range(n)]
            return "{" + ", ".join(items) + "}"
        if t.kind in ("struct", "union", "class"):
            parts = []
            for m in t.members:
                size = type_size(m.type)
                off = m.offset or 0
                parts.append(f"{m.name} = {Value(m.type, data[off:off + size]).format(fmt)}")
            return "{" + ", ".join(parts) + "}"
        return self._natural()

    def _why(self, why: str) -> Value:
        self.reason = why
        return self

    def _retype(self, t) -> Value:
        self.type = t
        return self

    def __str__(self) -> str:
        return self.format()


def _char_literal(c: int) -> str:
    esc = {0: "\\000", 7: "\\a", 8: "\\b", 9: "\\t", 10: "\\n", 11: "\\v", 12: "\\f", 13: "\\r", 27: "\\033",
           39: "\\'", 92: "\\\\"}
    if c in esc:
        return f"'{esc[c]}'"
    if 32 <= c < 127:
        return f"'{chr(c)}'"
    return f"'\\{c:03o}'"


def _format_ctype(t: CType, data: bytes) -> str:
    if t.kind == "string":
        text = data.rstrip(b"\0").decode("latin-1")
        return '"' + text.encode("unicode_escape").decode().replace('"', '\\"') + '"'
    if t.kind == "float":
        from amddbg.dwarf.values import _float

        return _float(data)
    if t.kind == "bool":
        return "true" if any(data) else "false"
    if t.kind == "char":
        c = int.from_bytes(data[:1], "little", signed=t.signed)
        return f"{c} {_char_literal(c & 0xFF)}"
    if t.kind == "pointer":
        return _format_pointer(t, int.from_bytes(data, "little"))
    return str(int.from_bytes(data, "little", signed=t.signed))


def _format_pointer(t, address: int) -> str:
    name = type_name(t)
    return f"({name}) {address:#x}"


def group_lanes(values: dict[int, str]) -> str:
    """``{lanes 0-31: 7, 32-63: 9}`` (one value: just the value). Lane lists use ranges."""
    from amddbg.dwarf.values import _ranges

    groups: dict[str, list[int]] = {}
    for ln in sorted(values):
        groups.setdefault(values[ln], []).append(ln)
    if len(groups) == 1:
        return next(iter(groups))
    return "{lanes " + ", ".join(f"{_ranges(ls)}: {text}" for text, ls in groups.items()) + "}"


class LaneValues:
    """One value per lane; prints grouped. Lanes evaluated at the wave PC are marked with ``*``."""

    def __init__(self, values: dict[int, Value]) -> None:
        self.values = dict(sorted(values.items()))

    def __getitem__(self, lane: int) -> Value:
        return self.values[lane]

    def __iter__(self):
        return iter(self.values.items())

    def __len__(self) -> int:
        return len(self.values)

    @property
    def type(self):
        for v in self.values.values():
            if v.type is not None:
                return v.type
        return None

    def format(self, fmt: str | None = None, *, marks: bool = True) -> str:
        """Grouped by value. A value every lane shares is printed once, unmarked: it does not depend on
        the lane, so where an inactive lane was evaluated does not change it (`print -lane all $s0`)."""
        plain = {v.format(fmt) for v in self.values.values()}
        if len(plain) == 1:
            return next(iter(plain))
        texts = {}
        for ln, v in self.values.items():
            t = v.format(fmt)
            if marks and v.pc_marked:
                t += "*"
            texts[ln] = t
        return group_lanes(texts)

    @property
    def marked_lanes(self) -> list[int]:
        """Lanes whose value was evaluated at the wave PC, when that is shown (values differ by lane)."""
        if len({v.format() for v in self.values.values()}) == 1:
            return []
        return [ln for ln, v in self.values.items() if v.pc_marked]

    def __str__(self) -> str:
        return self.format()


INT = CType("int", "int", 4, True)
UINT = CType("unsigned int", "int", 4, False)
LONG = CType("long", "int", 8, True)
ULONG = CType("unsigned long", "int", 8, False)
DOUBLE = CType("double", "float", 8)
FLOAT = CType("float", "float", 4)
CHAR = CType("char", "char", 1, True)
BOOL = CType("bool", "bool", 1, False)

BUILTIN_TYPES: dict[str, CType] = {
    "int": INT, "signed": INT, "signed int": INT, "unsigned": UINT, "unsigned int": UINT,
    "long": LONG, "long int": LONG, "long long": LONG, "unsigned long": ULONG, "unsigned long long": ULONG,
    "short": CType("short", "int", 2, True), "unsigned short": CType("unsigned short", "int", 2, False),
    "char": CHAR, "signed char": CType("signed char", "char", 1, True),
    "unsigned char": CType("unsigned char", "char", 1, False), "bool": BOOL, "_Bool": BOOL,
    "float": FLOAT, "double": DOUBLE, "half": CType("half", "float", 2), "_Float16": CType("_Float16", "float", 2),
    "int8_t": CType("int8_t", "int", 1, True), "uint8_t": CType("uint8_t", "int", 1, False),
    "int16_t": CType("int16_t", "int", 2, True), "uint16_t": CType("uint16_t", "int", 2, False),
    "int32_t": INT, "uint32_t": UINT, "int64_t": LONG, "uint64_t": ULONG, "size_t": ULONG,
    "void": CType("void", "void", 1),
}


def pointer_to(target, space: str | None = None) -> CType:
    base = type_name(target)
    q = f" {space}" if space and space not in ("generic",) else ""
    return CType(f"{base}{q} *", "pointer", 8, False, target, space)


# -- value printers (plugins' pretty-printers) ------------------------------------------------------------------
# The views install one printer for the commands they run (`use_printer`); every display of a value goes through
# `Value.format`/`Value.pretty`, so print, info locals/args, bt full, print -lane all and their JSON all show it.
_PRINTER: ContextVar[Callable[[Value], str | None] | None] = ContextVar("amddbg_value_printer", default=None)


def use_printer(func: Callable[[Value], str | None] | None) -> Token:
    """Install `func(value) -> str | None` as the value printer of this context; returns the token that
    `reset_printer` takes to restore the previous one."""
    return _PRINTER.set(func)


def reset_printer(token: Token) -> None:
    _PRINTER.reset(token)


def printer_type_names(t) -> list[str]:
    """Names to match printers against, outermost first: each typedef's name before the type it names (gdb's
    order), down to the structural type; qualifiers and struct/class/union tags removed."""
    out: list[str] = []
    seen = 0
    while t is not None and seen < 32:  # a typedef chain, bounded against cyclic DWARF
        seen += 1
        name = getattr(t, "name", None)
        if name:
            n = normalize_type_name(name)
            if n and n not in out:
                out.append(n)
        kind = getattr(t, "kind", None)
        if kind not in ("typedef", "const", "volatile", "atomic", "restrict"):
            break
        t = t.target
    return out


class ValueView:
    """What a pretty-printer receives: one lane's value, read-only.

    ``type_name`` (as amddbg prints it), ``kind`` (struct, array, base, pointer, ...), ``size``, ``lane`` (None
    for a wave-uniform value), ``address`` and ``space`` (an lvalue in memory; None otherwise), ``data`` (its
    bytes), ``fields`` (member names); ``view["pos"]`` / ``view[3]`` give a member or an element as a view;
    ``int()``, ``float()``, ``python()`` convert scalars; ``default()`` is the built-in text; ``read(address,
    size, space="global")`` reads memory of the program (per lane for private memory).
    """

    def __init__(self, value: Value, read: Callable[[str, int, int, int | None], bytes] | None = None) -> None:
        self._value = value
        self._read = read

    @property
    def type_name(self) -> str:
        return type_name(self._value.type)

    @property
    def kind(self) -> str:
        t = self._value.type
        if isinstance(t, CType):
            return t.kind
        return t.strip().kind if t is not None else "void"

    @property
    def size(self) -> int:
        return len(self._value.data or b"")

    @property
    def lane(self) -> int | None:
        return self._value.lane

    @property
    def address(self) -> int | None:
        return self._value.address

    @property
    def space(self) -> str | None:
        return self._value.space

    @property
    def data(self) -> bytes:
        return self._value._need()

    @property
    def fields(self) -> list[str]:
        t = self._value.type
        if isinstance(t, CType) or t is None or t.strip().kind not in ("struct", "class", "union"):
            return []
        return [m.name for m in t.strip().members if m.name]

    def __getitem__(self, key: str | int) -> ValueView:
        v = self._value
        t = v.type.strip() if v.type is not None and not isinstance(v.type, CType) else None
        data = v._need()
        if isinstance(key, str):
            if t is None or t.kind not in ("struct", "class", "union"):
                raise KeyError(f"{self.type_name} has no members")
            for m in t.members:
                if m.name == key and m.offset is not None:
                    size = type_size(m.type)
                    addr = v.address + m.offset if v.address is not None else None
                    return ValueView(Value(m.type, data[m.offset:m.offset + size], lane=v.lane, address=addr,
                                           space=v.space), self._read)
            raise KeyError(f"{self.type_name} has no member {key!r}")
        if t is None or t.kind != "array":
            raise KeyError(f"{self.type_name} is not an array")
        esz = type_size(t.target)
        if not 0 <= key < (len(data) // esz if esz else 0):
            raise IndexError(f"index {key} out of range")
        addr = v.address + key * esz if v.address is not None else None
        return ValueView(Value(t.target, data[key * esz:(key + 1) * esz], lane=v.lane, address=addr,
                               space=v.space), self._read)

    def int(self) -> int:
        return self._value.to_int()

    def float(self) -> float:
        return self._value.to_float()

    def python(self):
        return self._value.to_python()

    def default(self) -> str:
        return self._value.format_builtin()

    def read(self, address: int, size: int, space: str = "global") -> bytes:
        if self._read is None:
            raise AmddbgError("this value printer has no memory to read")
        return self._read(space, address, size, self._value.lane)

    def __repr__(self) -> str:
        return f"<ValueView {self.type_name} lane={self.lane}>"
