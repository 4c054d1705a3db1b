"""LEB128 and fixed-width readers over memoryviews: the innermost loops of every DWARF parser.

Kept as plain functions returning ``(value, new_offset)`` because attribute lookups on objects cost
more than the decoding itself in CPython.
"""

from __future__ import annotations

import gc
import struct

from amddbg.errors import FormatError

U16 = struct.Struct("<H").unpack_from
U32 = struct.Struct("<I").unpack_from
U64 = struct.Struct("<Q").unpack_from
S8 = struct.Struct("<b").unpack_from
S16 = struct.Struct("<h").unpack_from
S32 = struct.Struct("<i").unpack_from
S64 = struct.Struct("<q").unpack_from


def uleb(buf, pos: int) -> tuple[int, int]:
    b = buf[pos]
    pos += 1
    if b < 0x80:
        return b, pos
    result = b & 0x7F
    shift = 7
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def sleb(buf, pos: int) -> tuple[int, int]:
    result = 0
    shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            if b & 0x40:
                result -= 1 << shift
            return result, pos


def uleb_within(buf, pos: int, end: int, where: str) -> tuple[int, int]:
    """ULEB128 that must end before ``end``; a truncated one is a FormatError naming ``where``.

    The unchecked `uleb`/`sleb` above serve hot loops over validated sections; expression and CFI
    decoders read attacker-sized blobs and need the bound.
    """
    result = shift = 0
    while True:
        if pos >= end:
            raise FormatError(f"truncated ULEB128 in {where}", offset=pos)
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return result, pos


def sleb_within(buf, pos: int, end: int, where: str) -> tuple[int, int]:
    """SLEB128 that must end before ``end`` (see `uleb_within`)."""
    result = shift = 0
    while True:
        if pos >= end:
            raise FormatError(f"truncated SLEB128 in {where}", offset=pos)
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            if b & 0x40:
                result -= 1 << shift
            return result, pos


def cstr(buf, pos: int) -> tuple[str, int]:
    """NUL-terminated UTF-8 string at ``pos`` in a bytes object."""
    end = buf.find(b"\0", pos)
    if end < 0:
        raise FormatError("unterminated string", offset=pos)
    return buf[pos:end].decode("utf-8", "replace"), end + 1


def uint(buf, pos: int, size: int) -> int:
    if size == 4:
        return U32(buf, pos)[0]
    if size == 8:
        return U64(buf, pos)[0]
    if size == 2:
        return U16(buf, pos)[0]
    if size == 1:
        return buf[pos]
    return int.from_bytes(buf[pos:pos + size], "little")


def guard(what: str):
    """Decorator for DWARF decoders: truncated or corrupt bytes (IndexError, struct.error, ...) become one
    ``FormatError`` naming ``what`` and the file, instead of a traceback. The first argument of the
    decorated function must reach the file name through ``.name``, ``.dwarf.name`` or ``.unit.dwarf.name``."""
    import functools

    def deco(fn):
        @functools.wraps(fn)
        def wrapper(obj, *a, **kw):
            try:
                return fn(obj, *a, **kw)
            except (IndexError, struct.error, KeyError, TypeError, ValueError, OverflowError) as exc:
                name = _name_of(obj)
                raise FormatError(f"truncated or corrupt {what} ({type(exc).__name__}: {exc})", file=name) from None

        return wrapper

    return deco


def _name_of(obj) -> str | None:
    for path in (("dwarf", "name"), ("unit", "dwarf", "name"), ("elf", "name"), ("name",)):
        o = obj
        for p in path:
            o = getattr(o, p, None)
        if isinstance(o, str):
            return o
    return None


class paused_gc:
    """Context manager: no cyclic garbage collection inside (restored on exit, nests).

    Why: building an index allocates hundreds of thousands of small acyclic tuples and lists (line
    rows, address ranges); each of them counts towards the collector's thresholds, and the full
    collections they trigger walk the whole growing heap again and again (about a fifth of a cold
    ``addr2line`` run) without ever finding a cycle. Reference counting still frees everything.
    """

    __slots__ = ("was",)

    def __enter__(self) -> None:
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc) -> None:
        if self.was:
            gc.enable()
