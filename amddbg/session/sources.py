"""The source files a program's debug information names: what `list` may open and complete.

Why a list at all: `list FILE:LINE` opened any path the user typed (`list /etc/shadow:1` printed it), and
completion offered the local directory. gdb lists only files its symbol tables know; so does amddbg: a
FILE given by the user is matched against the line tables' file names (full path, a path suffix, or
the base name), and only a match is read (through the usual path remapping).
"""

from __future__ import annotations

import os

from amddbg.errors import AmddbgError


def source_files(program) -> list[str]:
    """Every file name (as the line table spells it, absolute where it can) of every loaded code object."""
    cached = getattr(program, "_dwarf_source_files", None)
    if cached is not None:
        return cached
    files: set[str] = set()
    for lco in program.code_objects:
        try:
            idx = lco.symbolizer.index
            cus = sorted(set(idx.cu_ranges.cus))
        except (AmddbgError, AttributeError, ValueError):
            continue
        for cu in cus:
            try:
                lt = idx.lines(cu)
            except AmddbgError:
                continue
            if lt is None:
                continue
            indices = range(len(lt.files)) if lt.version >= 5 else range(1, len(lt.files) + 1)
            for i in indices:
                p = lt.file_path(i)
                if p:
                    files.add(os.path.normpath(p))
    out = sorted(files)
    try:
        program._dwarf_source_files = out
    except AttributeError:
        pass
    return out


def match_source(program, name: str) -> str | None:
    """The debug-info file `name` denotes: the same path, a file ending in `/name`, or one base name match.
    None when no file matches; ambiguity picks the first in sorted order, as gdb picks the first symtab."""
    files = source_files(program)
    norm = os.path.normpath(name)
    if norm in files:
        return norm
    tail = [f for f in files if f.endswith("/" + norm.lstrip("/"))]
    if tail:
        return tail[0]
    base = [f for f in files if os.path.basename(f) == os.path.basename(norm)] if "/" not in name else []
    return base[0] if base else None
