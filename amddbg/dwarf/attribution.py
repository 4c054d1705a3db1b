"""Lines for people: no ``line 0`` ever reaches a user.

A line-table row with line 0 means "this code belongs to no source line" (spill code, reconvergence
points, loop overhead, code merged from two statements). ``llvm-addr2line`` prints such a PC as ``:0``
and ``amddbg addr2line`` must too (``Symbolizer.frames``), but every view a person reads (``bt``,
``info line``, ``disassemble /s``, ``explain``, ``triage``, the divergence views) attributes it the way
gdb does. gdb's DWARF reader drops line-0 rows when it builds its line table
(``lnp_state_machine::record_line``: ``!end_sequence && m_line == 0`` is ignored), so such a PC falls in
the *preceding non-zero row of the same sequence*. We do the same, bounded by the function that holds
the PC (a row before the function's first address belongs to another function). When the function has
no earlier row (line-0 code at its entry), the first non-zero row after the PC in the function gives a
description: "compiler-generated code in F near line N".

Call sites of inlined frames can say line 0 too (``DW_AT_call_line`` 0 where clang merged two calls): the
caller's own row nearest before the PC (at an address where the caller itself is the innermost
function) names the line, with the same forward fallback.

``user_frames`` is the one function every view calls; ``Symbolizer.frames`` stays addr2line's.
"""

from __future__ import annotations

from collections import namedtuple

from amddbg.dwarf.symbolize import Frame, Symbolizer

# how: "" (the row's own line), "preceding" (gdb's rule), "following" (first line after, in the function),
# "declaration" (the function's DW_AT_decl_line: it has no row with a line at all)
UserFrame = namedtuple("UserFrame", "function file line column inlined how")
UserFrame.__doc__ = "A source frame whose line is never 0 when a line can be named; ``how`` says how it was found."

_SCAN = 4096  # rows looked at either way (a function's line table; bounded so a huge sequence stays cheap)


def user_frames(sym: Symbolizer, address: int, *, linkage: bool = True) -> list[UserFrame]:
    """Inlined frames at ``address`` (innermost first), each with a real line where one exists."""
    frames = sym.frames(address, inline=True, linkage=linkage)
    if all(f.line for f in frames if f.function is not None or f.file is not None):
        return [_plain(f) for f in frames]
    idx = sym.index
    cu = idx.cu_for(address)
    lt = idx.lines(cu) if cu is not None else None
    lo, hi = _function_bounds(sym, address)
    out = []
    chain = None
    for depth, f in enumerate(frames):
        if f.line or lt is None:
            out.append(_plain(f))
            continue
        if depth == 0:
            found = _row_attribution(lt, address, lo, hi)
        else:
            if chain is None:
                chain = idx.chain(cu, address) if cu is not None else []
            caller = chain[depth] if depth < len(chain) else None
            found = _caller_attribution(idx, cu, lt, address, lo, hi, caller) if caller is not None else None
        if found is None:
            decl = _decl_line(idx, cu, address, depth, chain)
            out.append(UserFrame(f.function, f.file, decl or 0, f.column, f.inlined, "declaration" if decl else ""))
            continue
        file, line, column, how = found
        out.append(UserFrame(f.function, file or f.file, line, column, f.inlined, how))
    return out


def describe(frame: UserFrame, function: str | None = None) -> str:
    """How a person reads an attributed line: ``k.hip:31``, or the compiler-generated wording."""
    import os

    where = f"{os.path.basename(frame.file)}:{frame.line}" if frame.file else f"line {frame.line}"
    fn = function or frame.function or "??"
    if frame.how in ("following", "declaration"):
        return f"compiler-generated code in {fn} near line {frame.line} ({where})"
    return where


def _plain(f: Frame) -> UserFrame:
    return UserFrame(f.function, f.file, f.line, f.column, f.inlined, "")


def _function_bounds(sym: Symbolizer, address: int) -> tuple[int, int]:
    """[lo, hi) of the ELF function symbol holding `address` (the whole address space if none)."""
    s = sym.index.symbols.lookup(address)
    if s is None:
        return 0, 1 << 64
    return s[0], (s[0] + s[1]) if s[1] else 1 << 64


def _sequence(lt, address: int):
    import bisect

    i = bisect.bisect_right(lt._seq_high, address)
    if i >= len(lt.sequences):
        return None
    s = lt.sequences[i]
    return s if s[0] <= address < s[1] else None


def _row_attribution(lt, address: int, lo: int, hi: int):
    """gdb's rule for a line-0 row: the preceding non-zero row of the sequence (within the function), else the
    following one ("near")."""
    i = lt.row_index(address)
    seq = _sequence(lt, address)
    if i is None or seq is None:
        return None
    first, last = seq[2], seq[3] - 1  # the end_sequence row never describes code
    for j in range(i - 1, max(first, i - _SCAN) - 1, -1):
        if lt.addrs[j] < lo:
            break
        if lt.lines_col[j]:
            return _row(lt, j, "preceding")
    for j in range(i + 1, min(last, i + _SCAN)):
        if lt.addrs[j] >= hi:
            break
        if lt.lines_col[j]:
            return _row(lt, j, "following")
    return None


def _caller_attribution(idx, cu: int, lt, address: int, lo: int, hi: int, caller):
    """A call site with line 0: the caller's own nearest row (where the caller is the innermost function)."""
    i = lt.row_index(address)
    seq = _sequence(lt, address)
    if i is None or seq is None:
        return None
    first, last = seq[2], seq[3] - 1

    def own(j: int) -> bool:
        ch = idx.chain(cu, lt.addrs[j])
        return bool(ch) and ch[0].offset == caller.offset and lt.lines_col[j] != 0

    for j in range(i, max(first, i - _SCAN) - 1, -1):
        if lt.addrs[j] < lo:
            break
        if own(j):
            return _row(lt, j, "preceding")
    for j in range(i + 1, min(last, i + _SCAN)):
        if lt.addrs[j] >= hi:
            break
        if own(j):
            return _row(lt, j, "following")
    return None


def _row(lt, j: int, how: str):
    return lt.file_path(lt.files_col[j]), lt.lines_col[j], lt.cols_col[j], how


def _decl_line(idx, cu, address: int, depth: int, chain) -> int:
    if cu is None:
        return 0
    chain = chain if chain is not None else idx.chain(cu, address)
    return chain[depth].decl_line or 0 if depth < len(chain) else 0

