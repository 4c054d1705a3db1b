"""`info functions`, `info scope`, `info line FILE:LINE` and function types for `ptype`/`whatis`: what a
code object answers without a core (and with one). Shapes are gdb's.

Why a module of its own: these read the symbol table, the line tables and the DWARF scopes of the
loaded code objects, not the state of a wave; commands.py stays the dispatcher.
"""

from __future__ import annotations

import os
import re

from amddbg.errors import AmddbgError, UsageError
from amddbg.repl import render
from amddbg.textsafe import safe


def _dem(name: str) -> str:
    from amddbg.dwarf.demangle import demangle

    return demangle(name) or name


def _subprogram(lco, sym):
    """The DWARF subprogram scope of a function symbol, or None."""
    from amddbg.dwarf.scopes import scopes_at

    try:
        scopes = scopes_at(lco.symbolizer.dwarf, sym.address)
    except (AmddbgError, AttributeError):
        return None
    subs = [s for s in scopes if s.kind == "subprogram"]
    return subs[-1] if subs else None


def _decl_line(lco, sym) -> int | None:
    from amddbg.dwarf import constants as C
    from amddbg.dwarf.scopes import _origin_attr

    sc = _subprogram(lco, sym)
    if sc is None:
        return None
    line = _origin_attr(sc.die, C.DW_AT_decl_line)
    return line if isinstance(line, int) and line > 0 else None


def function_signature(lco, sym) -> tuple[str, str]:
    """(return type, parameter list) as gdb prints a function type: `void (int *, int *)`."""
    from amddbg.dwarf.types import type_of

    sc = _subprogram(lco, sym)
    if sc is not None:
        try:
            ret = type_of(sc.die)
            ret_name = ret.name if ret is not None else "void"
        except (AmddbgError, AttributeError):
            ret_name = "void"
        params = [p.type.name if p.type is not None else "?" for p in sc.parameters()]
        return ret_name or "void", ", ".join(params) or "void"
    d = _dem(sym.name)
    params = d[d.index("(") + 1:d.rindex(")")] if "(" in d and d.endswith(")") else "..."
    return ("void" if sym.kind == "kernel" else "<unknown return type>"), params or "void"


def function_type_text(program, name: str) -> str | None:
    hits = program.lookup_function(name)
    if not hits:
        return None
    ret, params = function_signature(*hits[0])
    return f"{ret} ({params})"


def info_functions(dbg, regexp: str) -> None:
    """gdb's `info functions [REGEXP]`: functions with line info grouped by file, then the others."""
    try:
        pat = re.compile(regexp) if regexp else None
    except re.error as exc:
        raise UsageError(f"Invalid regexp: {exc}") from None
    by_file: dict[str, list[tuple[int, str]]] = {}
    nodebug: list[tuple[int, str]] = []
    for lco in dbg.program.code_objects:
        for sym in lco.codeobj.functions():
            plain = render.plain_name(_dem(sym.name))
            if pat is not None and not (pat.search(plain) or pat.search(sym.name)):
                continue
            addr = sym.address + lco.load_address
            srcs = dbg.program.symbolize(addr)
            if srcs and srcs[-1].file:
                ret, params = function_signature(lco, sym)
                line = _decl_line(lco, sym) or srcs[-1].line  # gdb shows the declaration's line
                by_file.setdefault(srcs[-1].file, []).append((line, f"{ret} {plain}({params});"))
            else:
                nodebug.append((addr, sym.name))
    dbg.out(f'All functions matching regular expression "{safe(regexp)}":' if regexp else "All defined functions:")
    for file in sorted(by_file):
        dbg.out("")
        dbg.out(f"File {safe(file)}:")
        for line, text in sorted(set(by_file[file])):
            dbg.out(f"{line}:\t{safe(text)}")
    if nodebug:
        dbg.out("")
        dbg.out("Non-debugging symbols:")
        for addr, name in sorted(nodebug):
            dbg.out(f"0x{addr:016x}  {safe(name)}")


def info_scope(dbg, location: str) -> None:
    """gdb's `info scope LOCATION`: the variables visible at the location's address and where each lives."""
    from amddbg.dwarf.expr import decode
    from amddbg.dwarf.expr.printer import format_ops
    from amddbg.dwarf.scopes import scopes_at

    if not location:
        raise UsageError("requires an argument (an expression or variable): foo, *0x1234, file:line")
    addr = _location_address(dbg, location)
    lco = dbg.program.code_object_at(addr)
    if lco is None:
        raise UsageError(f"No function contains specified address {addr:#x}.")
    rel = addr - lco.load_address
    try:
        scopes = scopes_at(lco.symbolizer.dwarf, rel)
    except AmddbgError as exc:
        raise UsageError(f"No debug information at {addr:#x}: {exc.message}") from None
    variables = [v for sc in scopes for v in sc.variables if v.name]
    if not variables:
        dbg.out(f"Scope for {safe(location)}:\nSymbol table has no locals.")
        return
    dbg.out(f"Scope for {safe(location)}:")
    for v in variables:
        size = getattr(v.type, "size", None)
        if v.const_value is not None:
            where = f"constant {v.const_value!r}"
        else:
            expr = v.location_at(rel)
            if expr is None:
                where = "optimized out"
            else:
                try:
                    where = f"a variable with DWARF location {format_ops(decode(bytes(expr)))}"
                except AmddbgError as exc:
                    where = f"a variable with an undecodable location ({exc.message})"
        dbg.out(f"Symbol {safe(v.name)} is {safe(where)}" + (f", length {size}." if size else "."))


def _location_address(dbg, text: str) -> int:
    m = re.fullmatch(r"(.+):(\d+)", text.strip())
    if m:
        addrs = line_addresses(dbg.program, m.group(1), int(m.group(2)))
        if not addrs:
            raise UsageError(f'No line {m.group(2)} in file "{safe(m.group(1))}".')
        return addrs[0]
    hits = dbg.program.lookup_function(text.strip())
    if hits:
        lco, sym = hits[0]
        return sym.address + lco.load_address
    return dbg._address(text)


def line_addresses(program, file: str, line: int) -> list[int]:
    """Loaded addresses where `line` of `file` (a debug-info file name or its tail) starts a statement."""
    from amddbg.session.sources import match_source

    named = match_source(program, file)
    if named is None:
        raise UsageError(f"No source file named {safe(file)}.")
    out: list[int] = []
    for lco in program.code_objects:
        try:
            idx = lco.symbolizer.index
            cus = sorted(set(idx.cu_ranges.cus))
        except (AmddbgError, AttributeError):
            continue
        for cu in cus:
            lt = idx.lines(cu)
            if lt is not None:
                out += [a + lco.load_address for a in lt.addresses_for_line(named, line)]
    return sorted(set(out))


def info_line_at(dbg, file: str, line: int) -> None:
    """gdb: `Line 21 of "f.hip" starts at address 0x3138 <k+56> and ends at 0x3140 <k+64>.`"""
    addrs = line_addresses(dbg.program, file, line)
    if not addrs:
        dbg.out(f'Line {line} of "{safe(file)}" is at address ... but contains no code.')
        return
    for a in addrs:
        end = _line_end(dbg.program, a)
        dbg.out(f'Line {line} of "{safe(os.path.basename(file))}" starts at address {a:#x} {_sym(dbg, a)} and '
                f"ends at {end:#x} {_sym(dbg, end)}." if end else
                f'Line {line} of "{safe(os.path.basename(file))}" is at address {a:#x} {_sym(dbg, a)}.')


def _line_end(program, address: int) -> int | None:
    first = program.symbolize(address)
    if not first:
        return None
    key = (first[-1].file, first[-1].line)
    a = address
    for _ in range(4096):
        i = program.instruction_at(a)
        if i is None:
            return None
        a = i.address + i.size
        nxt = program.symbolize(a)
        if not nxt or (nxt[-1].file, nxt[-1].line) != key:
            return a
    return None


def _sym(dbg, address: int) -> str:
    hit = dbg.program.symbol_at(address)
    return f"<{safe(render.plain_name(_dem(hit[1].name)))}+{hit[2]}>" if hit else ""
