"""``DwarfInfo``: the DWARF sections of one code object and the shared tables (abbrevs, strings,
address/range/location lists, line programs), all decoded lazily on first use.
"""

from __future__ import annotations

import os
import re
import struct
from functools import cached_property

from amddbg.dwarf import constants as C
from amddbg.dwarf.info import Unit, parse_abbrevs
from amddbg.dwarf.producer import ProducerInfo, producer_info
from amddbg.dwarf.reader import U32, U64, guard, sleb, uint, uleb
from amddbg.dwarf.sections import ElfImage
from amddbg.errors import FormatError


class DwarfInfo:
    """DWARF of one ELF image. Units are found by a header walk (cheap) and parsed on demand."""

    def __init__(self, elf: ElfImage) -> None:
        self.elf = elf
        self.name = elf.name
        d = elf.data
        self.info = d(".debug_info")
        self.abbrev = d(".debug_abbrev")
        self.str = d(".debug_str")
        self.line_str = d(".debug_line_str")
        self.str_offsets = d(".debug_str_offsets")
        self.addr = d(".debug_addr")
        self.rnglists = d(".debug_rnglists")
        self.ranges = d(".debug_ranges")
        self.loclists = d(".debug_loclists")
        self.loc = d(".debug_loc")
        self.line = d(".debug_line")
        self.aranges = d(".debug_aranges")
        self._abbrevs: dict[int, dict] = {}
        self._units: dict[int, Unit] = {}
        self._strs: dict[int, str] = {}
        self._line_strs: dict[int, str] = {}
        self._producers: dict[int, ProducerInfo] = {}
        self._line_tables: dict[tuple[int, int], object] = {}

    @classmethod
    def from_path(cls, path: str | os.PathLike) -> DwarfInfo:
        return cls(ElfImage.from_path(path))

    @cached_property
    def info_bytes(self) -> bytes:
        """.debug_info as bytes: indexing bytes is about twice as fast as a memoryview in CPython."""
        return bytes(self.info)

    @cached_property
    def line_bytes(self) -> bytes:
        return bytes(self.line)

    @property
    def has_info(self) -> bool:
        return len(self.info) > 0

    # ------------------------------------------------------------------ units
    @cached_property
    def unit_offsets(self) -> list[int]:
        out = []
        buf = self.info
        pos = 0
        n = len(buf)
        while pos + 4 <= n:
            out.append(pos)
            length = U32(buf, pos)[0]
            if length == 0xFFFFFFFF:
                length = U64(buf, pos + 4)[0] + 8
            nxt = pos + 4 + length
            if nxt > n:
                raise FormatError("unit runs past the end of .debug_info", file=self.name, offset=pos)
            pos = nxt
        return out

    def unit(self, offset: int) -> Unit:
        u = self._units.get(offset)
        if u is None:
            u = self._units[offset] = Unit(self, offset)
        return u

    def units(self):
        for off in self.unit_offsets:
            yield self.unit(off)

    def unit_containing(self, die_offset: int) -> Unit:
        import bisect

        offs = self.unit_offsets
        i = bisect.bisect_right(offs, die_offset) - 1
        if i < 0:
            raise FormatError("DIE offset before the first unit", file=self.name, offset=die_offset)
        return self.unit(offs[i])

    def die(self, offset: int):
        return self.unit_containing(offset).die_at(offset)

    def abbrev_table(self, offset: int) -> dict:
        t = self._abbrevs.get(offset)
        if t is None:
            if offset >= len(self.abbrev):
                raise FormatError("abbreviation table offset out of range", file=self.name, offset=offset)
            t = self._abbrevs[offset] = parse_abbrevs(self.abbrev, offset)
        return t

    def producer_info(self, unit: Unit) -> ProducerInfo:
        p = self._producers.get(unit.offset)
        if p is None:
            p = self._producers[unit.offset] = producer_info(unit.producer, unit.top.attrs)
        return p

    # ------------------------------------------------------------------ strings / addresses
    def strp(self, off: int) -> str:
        s = self._strs.get(off)
        if s is None:
            buf = self.str
            end = _find_nul(buf, off, self.name, ".debug_str")
            s = self._strs[off] = bytes(buf[off:end]).decode("utf-8", "replace")
        return s

    def line_strp(self, off: int) -> str:
        s = self._line_strs.get(off)
        if s is None:
            buf = self.line_str
            end = _find_nul(buf, off, self.name, ".debug_line_str")
            s = self._line_strs[off] = bytes(buf[off:end]).decode("utf-8", "replace")
        return s

    def strx(self, unit: Unit, idx: int) -> str:
        pos = unit.str_offsets_base + idx * unit.offset_size
        if pos + unit.offset_size > len(self.str_offsets):
            raise FormatError("string index out of range", file=self.name, offset=pos)
        return self.strp(uint(self.str_offsets, pos, unit.offset_size))

    def addrx(self, unit: Unit, idx: int) -> int:
        pos = unit.addr_base + idx * unit.addr_size
        if pos + unit.addr_size > len(self.addr):
            raise FormatError("address index out of range", file=self.name, offset=pos)
        return uint(self.addr, pos, unit.addr_size)

    # ------------------------------------------------------------------ ranges
    def die_ranges(self, die) -> list[tuple[int, int]]:
        """Address ranges [lo, hi) of a DIE from low_pc/high_pc or DW_AT_ranges (DWARF 5 and 4)."""
        a = die.attrs
        r = a.get(C.DW_AT_ranges)
        unit = die.unit
        if r is not None:
            if die.forms[C.DW_AT_ranges] == C.DW_FORM_rnglistx:
                return self.rnglist(unit, self.rnglistx_offset(unit, r))
            if unit.version >= 5:
                return self.rnglist(unit, r)
            return self.ranges_v4(unit, r)
        lo = a.get(C.DW_AT_low_pc)
        if lo is None:
            return []
        hi = a.get(C.DW_AT_high_pc)
        if hi is None:
            return [(lo, lo + 1)]
        if die.forms[C.DW_AT_high_pc] not in (C.DW_FORM_addr, C.DW_FORM_addrx, C.DW_FORM_addrx1,
                                               C.DW_FORM_addrx2, C.DW_FORM_addrx3, C.DW_FORM_addrx4):
            hi = lo + hi
        return [(lo, hi)]

    def rnglistx_offset(self, unit: Unit, idx: int) -> int:
        base = unit.rnglists_base
        pos = base + idx * unit.offset_size
        if pos + unit.offset_size > len(self.rnglists):
            raise FormatError("range list index out of range", file=self.name, offset=pos)
        return base + uint(self.rnglists, pos, unit.offset_size)

    @cached_property
    def rnglists_bytes(self) -> bytes:
        return bytes(self.rnglists)

    @guard("range list (.debug_rnglists)")
    def rnglist(self, unit: Unit, off: int, tag: int | None = None) -> list[tuple]:
        """Ranges (lo, hi) of the DWARF 5 range list at ``off``. With ``tag``, entries are (lo, hi, tag)
        and empty ranges are left out, which is what subroutine maps keep (built in the same pass)."""
        buf = self.rnglists_bytes
        if off >= len(buf):
            raise FormatError("range list offset out of range", file=self.name, offset=off)
        base = unit.low_pc
        out: list[tuple] = []
        run22 = _RUN22.match
        pos = off
        asz = unit.addr_size
        while True:
            kind = buf[pos]
            pos += 1
            if kind == 4:  # DW_RLE_offset_pair
                m = run22(buf, pos - 1)
                if m is not None:  # a run of pairs of two-byte ULEBs: decoded in bulk
                    end = m.end()
                    pairs = _PAIR22.iter_unpack(buf[pos - 1:end])
                    if tag is None:
                        out += [(base + ((a & 0x7F) | ((a >> 1) & 0x3F80)),
                                 base + ((b & 0x7F) | ((b >> 1) & 0x3F80))) for a, b in pairs]
                    else:
                        out += [(base + ((a & 0x7F) | ((a >> 1) & 0x3F80)),
                                 base + ((b & 0x7F) | ((b >> 1) & 0x3F80)), tag) for a, b in pairs if a != b]
                    pos = end
                    continue
                a, pos = uleb(buf, pos)
                b, pos = uleb(buf, pos)
                lo, hi = base + a, base + b
            elif kind == C.DW_RLE_end_of_list:
                return out
            elif kind == C.DW_RLE_base_addressx:
                i, pos = uleb(buf, pos)
                base = self.addrx(unit, i)
                continue
            elif kind == C.DW_RLE_startx_endx:
                i, pos = uleb(buf, pos)
                j, pos = uleb(buf, pos)
                lo, hi = self.addrx(unit, i), self.addrx(unit, j)
            elif kind == C.DW_RLE_startx_length:
                i, pos = uleb(buf, pos)
                n, pos = uleb(buf, pos)
                lo = self.addrx(unit, i)
                hi = lo + n
            elif kind == C.DW_RLE_base_address:
                base = uint(buf, pos, asz)
                pos += asz
                continue
            elif kind == C.DW_RLE_start_end:
                lo = uint(buf, pos, asz)
                hi = uint(buf, pos + asz, asz)
                pos += 2 * asz
            elif kind == C.DW_RLE_start_length:
                lo = uint(buf, pos, asz)
                pos += asz
                n, pos = uleb(buf, pos)
                hi = lo + n
            else:
                raise FormatError(f"unknown range list entry kind {kind}", file=self.name, offset=pos - 1)
            if tag is None:
                out.append((lo, hi))
            elif lo != hi:
                out.append((lo, hi, tag))

    def ranges_v4(self, unit: Unit, off: int) -> list[tuple[int, int]]:
        return self._v4_list(self.ranges, unit, off, ".debug_ranges", with_expr=False)

    def _v4_list(self, buf, unit: Unit, off: int, section: str, *, with_expr: bool) -> list[tuple]:
        """A DWARF 4 range or location list: address pairs relative to a base (the unit's low_pc until a
        base-address selection entry), ended by a (0, 0) pair; location entries carry an expression."""
        asz = unit.addr_size
        top = (1 << (8 * asz)) - 1
        base = unit.low_pc
        out = []
        pos = off
        while pos + 2 * asz <= len(buf):
            s = uint(buf, pos, asz)
            e = uint(buf, pos + asz, asz)
            pos += 2 * asz
            if s == 0 and e == 0:
                return out
            if s == top:
                base = e
                continue
            if with_expr:
                n = uint(buf, pos, 2)
                pos += 2
                out.append((base + s, base + e, bytes(buf[pos:pos + n])))
                pos += n
            else:
                out.append((base + s, base + e))
        raise FormatError(f"unterminated {section} list", file=self.name, offset=off)

    # ------------------------------------------------------------------ location lists
    @guard("location list (.debug_loclists)")
    def location_list(self, unit: Unit, value: int, form: int) -> list[tuple[int | None, int | None, bytes]]:
        """Entries (lo, hi, expr bytes) of a location list; lo=hi=None for a default location."""
        if unit.version < 5:
            return self._loc_v4(unit, value)
        off = value
        if form == C.DW_FORM_loclistx:
            pos = unit.loclists_base + value * unit.offset_size
            off = unit.loclists_base + uint(self.loclists, pos, unit.offset_size)
        buf = self.loclists
        if off >= len(buf):
            raise FormatError("location list offset out of range", file=self.name, offset=off)
        base = unit.low_pc
        asz = unit.addr_size
        out: list = []
        pos = off
        while True:
            kind = buf[pos]
            pos += 1
            if kind == C.DW_LLE_end_of_list:
                return out
            if kind == C.DW_LLE_base_addressx:
                i, pos = uleb(buf, pos)
                base = self.addrx(unit, i)
                continue
            if kind == C.DW_LLE_base_address:
                base = uint(buf, pos, asz)
                pos += asz
                continue
            if kind == C.DW_LLE_offset_pair:
                a, pos = uleb(buf, pos)
                b, pos = uleb(buf, pos)
                lo, hi = base + a, base + b
            elif kind == C.DW_LLE_startx_endx:
                i, pos = uleb(buf, pos)
                j, pos = uleb(buf, pos)
                lo, hi = self.addrx(unit, i), self.addrx(unit, j)
            elif kind == C.DW_LLE_startx_length:
                i, pos = uleb(buf, pos)
                n, pos = uleb(buf, pos)
                lo = self.addrx(unit, i)
                hi = lo + n
            elif kind == C.DW_LLE_default_location:
                lo = hi = None
            elif kind == C.DW_LLE_start_end:
                lo = uint(buf, pos, asz)
                hi = uint(buf, pos + asz, asz)
                pos += 2 * asz
            elif kind == C.DW_LLE_start_length:
                lo = uint(buf, pos, asz)
                pos += asz
                n, pos = uleb(buf, pos)
                hi = lo + n
            else:
                raise FormatError(f"unknown location list entry kind {kind}", file=self.name, offset=pos - 1)
            n, pos = uleb(buf, pos)
            out.append((lo, hi, bytes(buf[pos:pos + n])))
            pos += n

    def _loc_v4(self, unit: Unit, off: int):
        return self._v4_list(self.loc, unit, off, ".debug_loc", with_expr=True)

    # ------------------------------------------------------------------ lines
    def line_table(self, unit: Unit):
        """The decoded line program of ``unit`` (``amddbg.dwarf.lines.LineTable``) or None."""
        if unit.stmt_list is None:
            return None
        key = (unit.stmt_list, unit.offset)
        t = self._line_tables.get(key)
        if t is None:
            from amddbg.dwarf.lines import LineTable

            t = self._line_tables[key] = LineTable(self, unit.stmt_list, unit.comp_dir, unit)
        return t


# Clang's range lists for inlined code are mostly DW_RLE_offset_pair entries whose two ULEB128
# operands take two bytes each (offsets 128..16383 into a function): a regex finds such a run in C
# and ``struct`` splits it; a two-byte ULEB b0 b1 read as a little-endian uint16 h is
# (h & 0x7F) | ((h >> 1) & 0x3F80).
_RUN22 = re.compile(rb"(?:\x04[\x80-\xff][\x00-\x7f][\x80-\xff][\x00-\x7f])+")
_PAIR22 = struct.Struct("<xHH")


def _find_nul(buf, off: int, name: str, sec: str) -> int:
    n = len(buf)
    if off >= n:
        raise FormatError(f"string offset out of range in {sec}", file=name, offset=off)
    b = bytes(buf[off:off + 4096])
    e = b.find(b"\0")
    if e >= 0:
        return off + e
    b = bytes(buf[off:])
    e = b.find(b"\0")
    if e < 0:
        raise FormatError(f"unterminated string in {sec}", file=name, offset=off)
    return off + e


__all__ = ["DwarfInfo", "sleb"]
