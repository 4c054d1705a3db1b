"""Loaded code object URIs, exactly per the manual's BNF:

    code_object_uri ::== file_uri | memory_uri
    file_uri        ::== "file://" file_path [ range_specifier ]
    memory_uri      ::== "memory://" process_id range_specifier
    range_specifier ::== [ "#" | "?" ] "offset=" number "&" "size=" number
    number          ::== HEX_NUMBER | DECIMAL_NUMBER | OCTAL_NUMBER   (C integral literals)

file_path is URI-encoded UTF-8: every byte outside [a-zA-Z0-9/_.~-] is "%" and two uppercase hex digits.
For a file URI the offset defaults to 0 and the size to the file's size (None here); a memory URI
requires both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from amddbg.errors import FormatError

_SAFE = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/_.~-")
_RANGE = re.compile(r"[#?]?offset=([^&#?]+)&size=([^&#?]+)$")


def parse_c_integer(text: str) -> int:
    """A C integral literal: 0x/0X hex, leading-0 octal, or decimal (no sign, no suffix)."""
    if re.fullmatch(r"0[xX][0-9a-fA-F]+", text):
        return int(text, 16)
    if re.fullmatch(r"0[0-7]*", text):
        return int(text, 8)
    if re.fullmatch(r"[1-9][0-9]*", text):
        return int(text, 10)
    raise ValueError(f"not a C integer literal: {text!r}")


def percent_encode(path: str) -> str:
    return "".join(chr(b) if b in _SAFE else f"%{b:02X}" for b in path.encode("utf-8"))


def percent_decode(text: str) -> str:
    out = bytearray()
    i = 0
    raw = text.encode("utf-8")
    while i < len(raw):
        if raw[i] == 0x25:  # '%'
            hexpart = raw[i + 1 : i + 3]
            if len(hexpart) != 2 or not all(c in b"0123456789abcdefABCDEF" for c in hexpart):
                raise ValueError(f"bad percent-escape at position {i}")
            out.append(int(hexpart, 16))
            i += 3
        else:
            out.append(raw[i])
            i += 1
    return out.decode("utf-8", "surrogateescape")


@dataclass(frozen=True, slots=True)
class CodeObjectURI:
    scheme: str  # "file" | "memory"
    path: str | None = None  # file URIs: the decoded OS path
    pid: int | None = None  # memory URIs
    offset: int = 0
    size: int | None = None  # None: to the end of the file

    def format(self) -> str:
        if self.scheme == "memory":
            return f"memory://{self.pid}#offset={self.offset:#x}&size={self.size}"
        text = "file://" + percent_encode(self.path or "")
        if self.offset or self.size is not None:
            size = self.size if self.size is not None else 0
            text += f"#offset={self.offset}&size={size}"
        return text

    __str__ = format


def parse_uri(text: str) -> CodeObjectURI:
    """Parse a code object URI; malformed text raises FormatError naming the part at fault."""
    def bad(why: str) -> FormatError:
        return FormatError(f"bad code object URI {text!r}: {why}")

    if text.startswith("file://"):
        rest = text[len("file://") :]
        m = _RANGE.search(rest)
        offset, size = 0, None
        if m:  # '=' and '&' are always percent-encoded in a path, so this is the range
            path_part = rest[: m.start()]
            try:
                offset, size = parse_c_integer(m.group(1)), parse_c_integer(m.group(2))
            except ValueError as exc:
                raise bad(str(exc)) from None
        else:
            path_part = rest
        try:
            path = percent_decode(path_part)
        except ValueError as exc:
            raise bad(str(exc)) from None
        if not path:
            raise bad("empty file path")
        return CodeObjectURI("file", path=path, offset=offset, size=size)
    if text.startswith("memory://"):
        rest = text[len("memory://") :]
        m = _RANGE.search(rest)
        if not m:
            raise bad("a memory URI needs offset= and size=")
        pid_text = rest[: m.start()]
        if not re.fullmatch(r"[0-9]+", pid_text):
            raise bad(f"process id {pid_text!r} is not a decimal number")
        try:
            offset, size = parse_c_integer(m.group(1)), parse_c_integer(m.group(2))
        except ValueError as exc:
            raise bad(str(exc)) from None
        return CodeObjectURI("memory", pid=int(pid_text), offset=offset, size=size)
    raise bad("scheme is neither file:// nor memory://")
