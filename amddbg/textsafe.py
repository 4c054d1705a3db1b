"""Input-derived text made safe for a terminal, and input paths made safe to open.

Why this module exists: names, URIs and paths come from files an attacker may have written (a core's
link map, a code object's symbol table, a litmus file). Printed raw, ESC/CSI/OSC sequences retitle or
clear the user's terminal; handed to rich as markup, ``[bold]`` vanishes and ``[/x]`` raises. Every
view passes such text through `safe` (plain output) or `rich_text` (a rich ``Text`` that is never parsed
as markup). Opening a FIFO or a character device blocks forever or reads without end, so every path
that opens an input goes through `check_regular`/`open_regular` first.
"""

from __future__ import annotations

import os
import re
import stat

from amddbg.errors import FormatError

# C0 controls (TAB/LF/CR too: a name never legitimately holds them), DEL, C1 controls, the Unicode
# bidi overrides that reorder what the user sees, and surrogate-escaped bytes of non-UTF-8 paths.
_BAD_CLASS = "[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\udc80-\udcff]"
# The same set less TAB and LF: what an output sink (a whole line or several) may legitimately hold.
_BAD_OUT_CLASS = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\udc80-\udcff]"
# Compiled on first use: most runs print only printable ASCII, which `safe` accepts without a regex
# (compiling both classes is ~1.5 ms of every start, as much as a 3000-address addr2line's formatting).
_compiled: dict[str, re.Pattern] = {}


def _pattern(cls: str) -> re.Pattern:
    p = _compiled.get(cls)
    if p is None:
        p = _compiled[cls] = re.compile(cls)
    return p


def _escape(m: re.Match) -> str:
    cp = ord(m.group())
    if 0xDC80 <= cp <= 0xDCFF:  # surrogateescape'd byte from a non-UTF-8 path
        return f"\\x{cp - 0xDC00:02x}"
    return f"\\x{cp:02x}" if cp < 0x100 else f"\\u{cp:04x}"


def safe(text: object) -> str:
    """`text` with every control character shown as a visible escape (``\\x1b``, ``\\u202e``).

    Ordinary text (including non-ASCII letters) comes back unchanged; printable ASCII (0x20-0x7e, the
    common case) is recognised without a regex, anything else costs one regex search. A backslash is
    left as is, so the escaped form is for reading, not for round-tripping.
    """
    s = text if isinstance(text, str) else str(text)
    if s.isascii() and s.isprintable():  # ASCII and printable: none of 0x00-0x1f, 0x7f
        return s
    bad = _pattern(_BAD_CLASS)
    if bad.search(s) is None:
        return s
    return bad.sub(_escape, s)


def safe_output(text: object) -> str:
    """`safe` for text about to be written whole (lines, several lines): TAB and LF are kept.

    The output sinks (the REPL's line writer, `console`) pass everything through this, so a name that
    some view forgot to escape still cannot reach the terminal raw; views escape names themselves too,
    because only they know where one name ends (and JSON escapes its own).
    """
    s = text if isinstance(text, str) else str(text)
    bad = _pattern(_BAD_OUT_CLASS)
    if bad.search(s) is None:
        return s
    return bad.sub(_escape, s)


def rich_text(text: object, style: str = ""):
    """A rich ``Text`` holding `safe(text)`: rich never parses it as markup."""
    from rich.text import Text

    return Text(safe(text), style=style)


def console(file=None, *, width: int | None = None, stderr: bool = False):
    """A rich Console for text built from inputs: a `str` handed to its ``print`` is never markup and has
    its control characters escaped (`safe_output`); rich objects (Text, Table) pass through, so views
    build their cells with `rich_text`. Colour only on a terminal without NO_COLOR; piped output is as
    wide as its rows (`width` when given)."""
    import sys

    from rich.console import Console

    class _SafeConsole(Console):
        def print(self, *objects, **kw):  # noqa: A003 - rich's name
            kw.pop("markup", None)
            objects = tuple(rich_text_lines(o) if isinstance(o, str) else o for o in objects)
            return super().print(*objects, markup=False, **kw)

        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError

    out = file or (sys.stderr if stderr else sys.stdout)
    tty = out.isatty()
    return _SafeConsole(file=out, highlight=False, no_color=bool(os.environ.get("NO_COLOR")) or not tty,
                        width=width if width is not None else (None if tty else 4096))


def rich_text_lines(text: object, style: str = ""):
    """Like `rich_text`, for text that may hold several lines or TABs (`safe_output`)."""
    from rich.text import Text

    return Text(safe_output(text), style=style)


def check_regular(path: str | os.PathLike, *, what: str = "input") -> os.stat_result:
    """stat `path` and refuse anything but a regular file with a one-line `FormatError`.

    FIFOs and terminals would block, /dev/zero would read without end, a directory cannot be parsed.
    """
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror or exc}", file=safe(name)) from None
    if not stat.S_ISREG(st.st_mode):
        raise FormatError(f"not a regular file ({_kind(st.st_mode)}); the {what} must be a file",
                          file=safe(name))
    return st


def open_regular(path: str | os.PathLike, *, what: str = "input"):
    """Open `path` for binary reading after `check_regular`, never blocking on a FIFO.

    O_NONBLOCK closes the race where the path is swapped for a FIFO between the stat and the open;
    the opened descriptor is checked again with fstat.
    """
    name = os.fspath(path)
    check_regular(name, what=what)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror or exc}", file=safe(name)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise FormatError(f"not a regular file ({_kind(st.st_mode)})", file=safe(name))
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a file"
