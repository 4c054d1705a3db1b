"""Source text for ``amddbg disasm --source``: which source lines to print before which instruction.

File names in line tables are as the compiler saw them (``/amddbg/corefiles/src/probe.hip``: the
corpus is built with ``-fdebug-compilation-dir``), so the text is looked up through
``SourcePaths``: explicit prefix remaps (like gdb's ``set substitute-path``, also from
``$AMDDBG_SUBSTITUTE_PATH="from=to:from2=to2"``), then a default that maps the compilation
directory onto directories near the object (``<ancestor of the object>/<tail of comp_dir>``, e.g.
``corefiles/co/x.co`` + ``/amddbg/corefiles/src`` -> ``corefiles/src``). When no file is found the
entry is ``file:line`` only.
"""

from __future__ import annotations

import os
from pathlib import Path

from amddbg.dwarf.lines import IS_STMT


class SourcePaths:
    def __init__(self, remaps: list[tuple[str, str]] | None = None, near: str | os.PathLike | None = None) -> None:
        self.remaps = list(remaps or [])
        env = os.environ.get("AMDDBG_SUBSTITUTE_PATH", "")
        for item in filter(None, env.split(":")):
            if "=" in item:
                a, b = item.split("=", 1)
                self.remaps.append((a, b))
        self.near = Path(near).resolve().parent if near else None
        self._cache: dict[tuple[str, str], Path | None] = {}
        self._text: dict[Path, list[str]] = {}

    def add(self, frm: str, to: str) -> None:
        self.remaps.append((frm, to))
        self._cache.clear()

    def candidates(self, path: str, comp_dir: str) -> list[Path]:
        out = []
        for frm, to in self.remaps:
            if path == frm or path.startswith(frm.rstrip("/") + "/"):
                out.append(Path(to) / path[len(frm):].lstrip("/"))
        out.append(Path(path))
        if self.near is not None and comp_dir and path.startswith(comp_dir.rstrip("/") + "/"):
            rel = path[len(comp_dir.rstrip("/")) + 1:]
            parts = [p for p in comp_dir.split("/") if p]
            anc = [self.near, *list(self.near.parents)[:4]]
            for i in range(len(parts)):
                tail = Path(*parts[i:])
                for a in anc:
                    out.append(a / tail / rel)
            for a in anc:
                out.append(a / rel)
        return out

    def resolve(self, path: str, comp_dir: str = "") -> Path | None:
        key = (path, comp_dir)
        if key not in self._cache:
            self._cache[key] = next((c for c in self.candidates(path, comp_dir) if c.is_file()), None)
        return self._cache[key]

    def line_text(self, path: str, line: int, comp_dir: str = "") -> str | None:
        p = self.resolve(path, comp_dir)
        if p is None:
            return None
        lines = self._text.get(p)
        if lines is None:
            try:
                lines = p.read_text(errors="replace").splitlines()
            except OSError:
                lines = []
            self._text[p] = lines
        return lines[line - 1] if 0 < line <= len(lines) else None


def _image_of(code_object):
    from amddbg.dwarf.sections import ElfImage

    if isinstance(code_object, ElfImage):
        return code_object, code_object.name
    if isinstance(code_object, str | os.PathLike):
        return ElfImage.from_path(code_object), os.fspath(code_object)
    data = getattr(code_object, "data", None)
    path = getattr(code_object, "path", None)
    if data is not None:
        return ElfImage(data, name=str(path or getattr(code_object, "name", "<memory>"))), path
    if path is not None:
        return ElfImage.from_path(path), path
    raise TypeError("lines_for_disasm needs a path, an ElfImage or a CodeObject")


def lines_for_disasm(code_object, paths: SourcePaths | None = None) -> dict[int, list[str]]:
    """Address -> lines to print before the instruction there: ``; file:line`` and, when the source
    file is found, ``;   <source text>``. An entry appears where the (file, line) of the line table
    changes; line-0 rows (compiler-generated code) print nothing."""
    from amddbg.dwarf.context import DwarfInfo

    img, path = _image_of(code_object)
    if paths is None:
        paths = SourcePaths(near=path if path else None)
    dwarf = DwarfInfo(img)
    out: dict[int, list[str]] = {}
    if not dwarf.has_info:
        return out
    for unit in dwarf.units():
        lt = dwarf.line_table(unit)
        if lt is None:
            continue
        comp_dir = unit.comp_dir or ""
        for _lo, _hi, first, last in lt.sequences:
            prev = None
            i = first
            while i < last - 1:
                # rows at the same address: the last one describes the instruction (as lookups do)
                j = i
                while j + 1 < last - 1 and lt.addrs[j + 1] == lt.addrs[i]:
                    j += 1
                f, ln = lt.files_col[j], lt.lines_col[j]
                key = (f, ln)
                if ln != 0 and key != prev:
                    fp = lt.file_path(f) or "??"
                    entry = [f"; {fp}:{ln}"]
                    text = paths.line_text(fp, ln, comp_dir) if fp != "??" else None
                    if text is not None:
                        entry.append(";   " + text.rstrip())
                    out[lt.addrs[j]] = entry
                if ln != 0:
                    prev = key
                i = j + 1
    return out


__all__ = ["IS_STMT", "SourcePaths", "lines_for_disasm"]
