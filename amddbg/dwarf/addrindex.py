"""``AddressIndex``: CU ranges + per-unit subroutine maps + line tables + symbols, built lazily.

A unit's subroutine map and line table are built the first time an address in that unit is asked
for. Cold lookups descend the DIE tree (``NestedSubroutineMap``, decoding only the range lists on
the way); ``complete()`` builds everything, with LLVM's exact map, before the on-disk cache is written.
"""

from __future__ import annotations

from amddbg.dwarf.index import CuRanges, NestedSubroutineMap, SubroutineMap, build_cu_ranges, scan_subroutines
from amddbg.dwarf.reader import paused_gc


class AddressIndex:
    def __init__(self, dwarf, symbols, cu_ranges: CuRanges | None = None) -> None:
        self.dwarf = dwarf
        self.symbols = symbols
        self._cu_ranges = cu_ranges
        self.submaps: dict[int, SubroutineMap | NestedSubroutineMap] = {}
        self.line_tables: dict[int, object] = {}
        self._no_lines: set[int] = set()

    @property
    def cu_ranges(self) -> CuRanges:
        if self._cu_ranges is None:
            self._cu_ranges = build_cu_ranges(self.dwarf)
        return self._cu_ranges

    def cu_for(self, address: int) -> int | None:
        if not self.dwarf.has_info and self._cu_ranges is None:
            return None
        return self.cu_ranges.find(address)

    def chain(self, cu: int, address: int):
        m = self.submaps.get(cu)
        if m is None:
            with paused_gc():
                m = self.submaps[cu] = NestedSubroutineMap(scan_subroutines(self.dwarf.unit(cu)))
        return m.chain(address)

    def lines(self, cu: int):
        t = self.line_tables.get(cu)
        if t is None and cu not in self._no_lines:
            with paused_gc():
                t = self.dwarf.line_table(self.dwarf.unit(cu))
            if t is None:
                self._no_lines.add(cu)
            else:
                self.line_tables[cu] = t
        return t

    def complete(self) -> None:
        """Build every unit's map and line table (the cache stores a complete index)."""
        cr = self.cu_ranges
        for cu in sorted(set(cr.cus)):
            self.chain(cu, 0)
            m = self.submaps[cu]
            if isinstance(m, NestedSubroutineMap):
                self.submaps[cu] = m.exact()
            self.lines(cu)
