"""``amddbg addr2line``: print what ``llvm-addr2line`` (LLVM 22) prints for the same flags.

Thin layer over ``amddbg.dwarf.Symbolizer``; the formatting rules are LLVM's GNU-style printer:
``-a`` prints ``0x<hex>`` (then ``: `` with ``-p``), ``-f`` the function (``??`` unknown), inlined
frames follow with ``-i`` (``-p`` prefixes `` (inlined by) ``), locations are ``file:line`` with
`` (discriminator N)`` when non-zero and ``??:0`` when unknown. Addresses are hex with or without
``0x``; a token that is not a number is looked up as ``SYMBOL[+OFFSET]``.
"""

from __future__ import annotations

import argparse
import os
import sys

from amddbg.textsafe import safe


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-e", "--exe", "--obj", dest="exe", default="a.out", metavar="FILE",
                        help="code object to read (default a.out)")
    parser.add_argument("-f", "--functions", action="store_true", help="print function names")
    parser.add_argument("-i", "--inlines", action="store_true", help="print all inlined frames")
    parser.add_argument("-C", "--demangle", action="store_true", help="demangle function names")
    parser.add_argument("-a", "--addresses", action="store_true", help="print the address first")
    parser.add_argument("-p", "--pretty-print", dest="pretty", action="store_true",
                        help="one line per frame: FUNCTION at FILE:LINE")
    parser.add_argument("-s", "--basenames", action="store_true", help="strip directories from file names")
    parser.add_argument("--no-cache", action="store_true", help="do not read or write the on-disk index")
    parser.add_argument("addresses_in", nargs="*", metavar="ADDR",
                        help="hex addresses or SYMBOL[+OFFSET]; read from stdin when none is given")


def _parse(token: str, sym) -> tuple[list[int], bool, str | None]:
    """(addresses, print header?, error message)."""
    t = token.strip().split()[0] if token.strip() else ""
    if t[:2] in ("0x", "0X"):
        try:
            return [int(t[2:], 16)], True, None
        except ValueError:
            return [], False, f"'{t}': expected a number as module offset"
    try:
        if t and all(c in "0123456789abcdefABCDEF" for c in t):
            return [int(t, 16)], True, None
    except ValueError:
        pass
    if not t:
        return [], False, None
    name, off = t, 0
    if "+" in t:
        name, _, o = t.rpartition("+")
        try:
            off = int(o, 0)
        except ValueError:
            return [], False, None
    addrs = sym.symbol_addresses(name) if name else []
    return [a + off for a in addrs[:1]], False, None


def _format(frames, addr: int | None, args, demangle) -> str:
    out = []
    if addr is not None and args.addresses:
        out.append(f"0x{addr:x}" + (": " if args.pretty else "\n"))
    for i, f in enumerate(frames):
        if args.pretty and i > 0:
            out.append(" (inlined by) ")
        if args.functions:
            fn = f.function if f.function is not None else "??"
            if args.demangle and f.function is not None:
                fn = demangle(fn)
            out.append(safe(fn) + (" at " if args.pretty else "\n"))
        file = f.file if f.file is not None else "??"
        if args.basenames and f.file is not None:
            file = os.path.basename(file)
        loc = f"{safe(file)}:{f.line}"
        if f.discriminator:
            loc += f" (discriminator {f.discriminator})"
        out.append(loc + "\n")
    return "".join(out)


_FLUSH = object()


def _stdin_lines():
    """Lines of stdin, with a flush marker after each chunk read: answers go out as soon as a
    driver (a debugger piping addresses one at a time) waits, without a flush per line in batch use."""
    fd = sys.stdin.fileno()
    rest = b""
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        lines = (rest + chunk).split(b"\n")
        rest = lines.pop()
        for ln in lines:
            yield ln.decode("utf-8", "replace").rstrip("\r")
        yield _FLUSH
    if rest:
        yield rest.decode("utf-8", "replace").rstrip("\r")


def _is_elf(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def run(args: argparse.Namespace) -> int:
    from amddbg.dwarf.reader import paused_gc

    # No cyclic GC while we answer: an address lookup creates no reference cycles (only the
    # one-time setup does, a few hundred objects), while the collector would keep re-walking the
    # index being built (hundreds of thousands of tuples): ~15% of a cold run.
    with paused_gc():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from amddbg.dwarf.symbolize import Frame, Symbolizer

    demangle = None
    if args.demangle:  # the demangler is imported only when asked for
        from amddbg.dwarf.demangle import demangle

    from amddbg.textsafe import check_regular

    check_regular(args.exe)  # a FIFO or /dev/zero would block or read without end
    if _is_elf(args.exe):
        from amddbg.codeobj.elf import check_debug_sections

        check_debug_sections(args.exe)  # no gigabyte sections, none in the holes of a sparse file
    sym = Symbolizer.from_path(args.exe, use_cache=False if args.no_cache else None)
    tokens = args.addresses_in if args.addresses_in else _stdin_lines()
    # Our own buffering: answers are written per stdin chunk (or every 512 addresses), so neither
    # PYTHONUNBUFFERED nor a per-line flush turns each line into a system call.
    pending: list[str] = []
    write = pending.append

    def flush() -> None:
        if pending:
            sys.stdout.write("".join(pending))
            pending.clear()
        sys.stdout.flush()

    try:
        for tok in tokens:
            if tok is _FLUSH or len(pending) >= 512:
                flush()
                if tok is _FLUSH:
                    continue
            addrs, header, err = _parse(tok, sym)
            if err:
                flush()
                print(f"amddbg addr2line: error: {safe(err)}", file=sys.stderr)
            if not addrs:
                write(_format([Frame(None, None, 0, 0, 0)], None, args, demangle))
                continue
            for a in addrs:
                frames = sym.frames(a, inline=args.inlines)
                if not args.inlines:
                    frames = frames[:1]
                write(_format(frames, a if header else None, args, demangle))
    finally:
        flush()
        sym.close()
    return 0
