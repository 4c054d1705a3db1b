"""Values printed by type, and per-lane grouping: ``{lanes 0-31: 7, 32-63: 9}``.

Formatting follows gdb's conventions where they exist (``{a = 1, b = 2}``, ``<repeats 16 times>``,
``65 'A'``, enumerator names, ``true``/``false``), because that is what a GPU debugger user reads
every day. ``<optimized out>``: no location at this PC. ``<unavailable>``: the location exists but
the core does not hold the bytes.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable

from amddbg.dwarf import constants as C
from amddbg.dwarf.types import Type
from amddbg.errors import AmddbgError, Unavailable

OPTIMIZED_OUT = "<optimized out>"
UNAVAILABLE = "<unavailable>"
REPEAT_THRESHOLD = 10
MAX_ELEMENTS = 200
# A value printer asked before the built-in format: (type, bytes) -> text, or None for the built-in one.
Printer = Callable[[Type, bytes], "str | None"]


def _float(data: bytes) -> str:
    if len(data) == 4:
        v = struct.unpack("<f", data)[0]
        if math.isfinite(v):
            for p in range(1, 10):  # shortest decimal that round-trips in binary32
                s = f"{v:.{p}g}"
                if struct.unpack("<f", struct.pack("<f", float(s)))[0] == v:
                    return s
        return _special(v)
    if len(data) == 8:
        v = struct.unpack("<d", data)[0]
        return repr(v) if math.isfinite(v) else _special(v)
    if len(data) == 2:
        v = struct.unpack("<e", data)[0]
        return (f"{v:.5g}") if math.isfinite(v) else _special(v)
    return "0x" + data[::-1].hex()


def _special(v: float) -> str:
    if math.isnan(v):
        return "nan"
    return "inf" if v > 0 else "-inf"


def _int(data: bytes, signed: bool) -> int:
    return int.from_bytes(data, "little", signed=signed)


def format_value(t: Type, data: bytes, printer: Printer | None = None) -> str:
    """Format ``data`` (the object's bytes, little-endian) as a value of type ``t``.

    `printer(type, data) -> str | None` is asked first at every level (the value, each member, each element):
    this is how a plugin's pretty-printer for a struct shows inside an array or another struct. None falls back
    to the built-in format.
    """
    if printer is not None:
        text = printer(t, data)
        if text is not None:
            return text
    s = t.strip()
    k = s.kind
    if k == "void":
        return "void"
    if k == "base":
        enc = s.encoding
        if enc == C.DW_ATE_boolean:
            v = _int(data, False)
            return "true" if v == 1 else ("false" if v == 0 else str(v))
        if enc == C.DW_ATE_float:
            return _float(data)
        if enc in (C.DW_ATE_signed_char, C.DW_ATE_unsigned_char) and len(data) == 1:
            v = _int(data, enc == C.DW_ATE_signed_char)
            ch = chr(v & 0xFF)
            shown = ch if 32 <= (v & 0xFF) < 127 and ch not in "'\\" else f"\\{v & 0xFF:03o}"
            if ch in "'\\":
                shown = "\\" + ch
            return f"{v} '{shown}'"
        if enc == C.DW_ATE_UTF:
            return str(_int(data, False))
        signed = enc in (C.DW_ATE_signed, C.DW_ATE_signed_char, C.DW_ATE_signed_fixed)
        return str(_int(data, signed))
    if k in ("pointer", "reference"):
        v = _int(data[: s.size or len(data)], False)
        space = s.address_space
        pre = f"({space}) " if space and space != "generic" else ""
        if k == "reference":
            return f"@{pre}0x{v:x}"
        return f"{pre}0x{v:x}"
    if k == "enum":
        v = _int(data, s.is_signed or s.target.is_signed)
        for n, val in s.enumerators:
            if val == v:
                return n
        return str(v)
    if k == "array":
        el = s.target
        esz = el.size
        dims = s.dims
        if esz is None or not dims or dims[0] is None:
            return "{...}"
        return _fmt_array_of(el, data, dims, printer)
    if k in ("struct", "class", "union"):
        parts = []
        for m in s.members:
            if m.offset is None:
                parts.append(f"{m.name} = <unknown>")
                continue
            msz = m.type.size or 0
            if m.bit_size:
                nbytes = (m.bit_offset or 0) + m.bit_size
                raw = int.from_bytes(data[m.offset:m.offset + (nbytes + 7) // 8], "little")
                v = (raw >> (m.bit_offset or 0)) & ((1 << m.bit_size) - 1)
                if m.type.is_signed and v >> (m.bit_size - 1):
                    v -= 1 << m.bit_size
                parts.append(f"{m.name} = {v}")
                continue
            chunk = data[m.offset:m.offset + msz]
            if len(chunk) < msz:
                parts.append(f"{m.name} = {UNAVAILABLE}")
                continue
            parts.append(f"{m.name} = {format_value(m.type, chunk, printer)}")
        return "{" + ", ".join(parts) + "}"
    return "0x" + data[::-1].hex()


def _fmt_array_of(el: Type, data: bytes, dims: list, printer: Printer | None = None) -> str:
    n = dims[0] or 0
    esz = el.size or 0
    if len(dims) > 1:
        return format_value_array_nested(el, data, dims, printer)
    items = [format_value(el, data[i * esz:(i + 1) * esz], printer) for i in range(min(n, MAX_ELEMENTS))]
    out = []
    i = 0
    while i < len(items):
        j = i
        while j + 1 < len(items) and items[j + 1] == items[i]:
            j += 1
        run = j - i + 1
        if run >= REPEAT_THRESHOLD:
            out.append(f"{items[i]} <repeats {run} times>")
        else:
            out.extend(items[i:j + 1])
        i = j + 1
    if n > MAX_ELEMENTS:
        out.append("...")
    return "{" + ", ".join(out) + "}"


def format_value_array_nested(el: Type, data: bytes, dims: list, printer: Printer | None = None) -> str:
    n_inner = 1
    for d in dims[1:]:
        n_inner *= d or 0
    sub = (el.size or 0) * n_inner
    return "{" + ", ".join(_fmt_array_of(el, data[i * sub:(i + 1) * sub], dims[1:], printer)
                           for i in range(dims[0] or 0)) + "}"


def describe(item, t: Type) -> str:
    """One lane's value: bytes -> formatted; None -> <optimized out>; Unavailable -> <unavailable>."""
    if item is None:
        return OPTIMIZED_OUT
    if isinstance(item, Unavailable):
        return UNAVAILABLE
    if isinstance(item, AmddbgError):
        return f"<error: {item.message}>"
    if isinstance(item, Exception):
        return f"<error: {item}>"
    return format_value(t, bytes(item))


def lane_ranges(mask: int, lanes: int) -> str:
    """The lanes of an EXEC-like `mask` as ranges: ``0-31``, ``1,3,5``, ``1-7,9-15``; ``none`` for no lane."""
    picked = [ln for ln in range(lanes) if mask >> ln & 1]
    return _ranges(picked) if picked else "none"


def _ranges(lanes: list[int]) -> str:
    out = []
    start = prev = lanes[0]
    for ln in lanes[1:]:
        if ln == prev + 1:
            prev = ln
            continue
        out.append(f"{start}-{prev}" if prev != start else f"{start}")
        start = prev = ln
    out.append(f"{start}-{prev}" if prev != start else f"{start}")
    return ",".join(out)


def format_lanes(t: Type, per_lane: dict) -> str:
    """Group lanes that print the same: one value if all agree, else ``{lanes 0-31: 7, 32-63: 9}``.

    ``per_lane`` maps lane -> bytes | None (optimized out) | exception (Unavailable, errors).
    """
    if not per_lane:
        return OPTIMIZED_OUT
    shown: dict[str, list[int]] = {}
    for ln in sorted(per_lane):
        shown.setdefault(describe(per_lane[ln], t), []).append(ln)
    if len(shown) == 1:
        return next(iter(shown))
    groups = sorted(shown.items(), key=lambda kv: kv[1][0])
    return "{lanes " + ", ".join(f"{_ranges(ls)}: {v}" for v, ls in groups) + "}"
