"""The ELF symbol table as LLVM's symbolizer falls back on it when DWARF names no function for an address.

``SymbolizableObjectFile``'s rule: symbols sorted by (address, size, name), one per address, and the last one at or
below an address matches unless its non-zero size ends before it. Kept apart from amddbg.dwarf.symbolize so that
the on-disk index (amddbg.dwarf.cache), which stores the table, and the symbolizer, which opens the index, each
depend on it and not on each other.
"""

from __future__ import annotations

import bisect

from amddbg.dwarf import sections as S
from amddbg.dwarf.sections import ElfImage


class SymbolTable:
    """LLVM's symbol list for the symbol-table fallback."""

    def __init__(self, entries: list[tuple[int, int, str, str | None]]) -> None:
        # entries: (address, size, name, file name of a local symbol or None), deduplicated by address
        self.entries = entries
        self.addrs = [e[0] for e in entries]

    @classmethod
    def from_elf(cls, elf: ElfImage) -> SymbolTable:
        raw = []
        files: list[tuple[int, str]] = []
        for s in elf.symbols:
            if s.index == 0:
                continue
            if s.shndx == S.SHN_UNDEF or s.shndx >= S.SHN_LORESERVE:
                if s.type == S.STT_FILE:
                    files.append((s.index, s.name))
                continue
            if s.type not in (S.STT_NOTYPE, S.STT_FUNC, S.STT_OBJECT, S.STT_GNU_IFUNC):
                continue
            local = s.index if s.bind == S.STB_LOCAL else 0
            raw.append((s.value, s.size, s.name, local))
        raw.sort(key=lambda e: (e[0], e[1], e[2]))
        out = []
        fidx = [f[0] for f in files]
        for i, e in enumerate(raw):
            if i + 1 < len(raw) and raw[i + 1][0] == e[0]:
                continue
            fname = None
            if e[3]:
                j = bisect.bisect_right(fidx, e[3])
                if j > 0:
                    fname = files[j - 1][1]
            out.append((e[0], e[1], e[2], fname))
        return cls(out)

    def lookup(self, address: int) -> tuple[int, int, str, str | None] | None:
        i = bisect.bisect_right(self.addrs, address) - 1
        if i < 0:
            return None
        e = self.entries[i]
        if e[1] != 0 and e[0] + e[1] <= address:
            return None
        return e

    def to_data(self) -> list:
        return [list(e) for e in self.entries]

    @classmethod
    def from_data(cls, data: list) -> SymbolTable:
        return cls([tuple(e) for e in data])
