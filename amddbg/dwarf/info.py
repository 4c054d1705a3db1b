""".debug_info reading: unit headers, abbreviation tables, DIEs with resolved attribute values.

Our own reader (not pyelftools) because (1) it is the hot path of every address lookup and must be
lazy per unit, (2) attribute codes from AMD's fork (0x3e08..0x3e13) need producer-aware naming,
(3) values must come out already resolved (strx/addrx/rnglistx/loclistx through the unit bases).

Values by form class: addresses and constants are ints (``DW_FORM_sdata`` signed, ``data1..8``
unsigned; callers sign-extend by type), strings are ``str``, references are absolute .debug_info
offsets (``Ref``), blocks/exprloc are ``bytes`` (``Block``), flags are bools, sec_offset are ints.
"""

from __future__ import annotations

from amddbg.dwarf import constants as C
from amddbg.dwarf.constants import (  # noqa: F401 - module-level names: faster than C.X in hot loops
    DW_FORM_addr,
    DW_FORM_addrx,
    DW_FORM_addrx1,
    DW_FORM_addrx2,
    DW_FORM_addrx3,
    DW_FORM_addrx4,
    DW_FORM_block,
    DW_FORM_block1,
    DW_FORM_block2,
    DW_FORM_block4,
    DW_FORM_data1,
    DW_FORM_data2,
    DW_FORM_data4,
    DW_FORM_data8,
    DW_FORM_data16,
    DW_FORM_exprloc,
    DW_FORM_flag,
    DW_FORM_flag_present,
    DW_FORM_GNU_addr_index,
    DW_FORM_GNU_ref_alt,
    DW_FORM_GNU_str_index,
    DW_FORM_GNU_strp_alt,
    DW_FORM_implicit_const,
    DW_FORM_indirect,
    DW_FORM_line_strp,
    DW_FORM_loclistx,
    DW_FORM_ref1,
    DW_FORM_ref2,
    DW_FORM_ref4,
    DW_FORM_ref8,
    DW_FORM_ref_addr,
    DW_FORM_ref_sig8,
    DW_FORM_ref_sup4,
    DW_FORM_ref_sup8,
    DW_FORM_ref_udata,
    DW_FORM_rnglistx,
    DW_FORM_sdata,
    DW_FORM_sec_offset,
    DW_FORM_string,
    DW_FORM_strp,
    DW_FORM_strp_sup,
    DW_FORM_strx,
    DW_FORM_strx1,
    DW_FORM_strx2,
    DW_FORM_strx3,
    DW_FORM_strx4,
    DW_FORM_udata,
)
from amddbg.dwarf.reader import S8, S16, S32, S64, U16, U32, U64, cstr, guard, sleb, uint, uleb
from amddbg.errors import FormatError


class Ref(int):
    """A reference to another DIE: absolute offset in .debug_info."""


class Block(bytes):
    """DW_FORM_exprloc / block* contents."""


class Expr(Block):
    """DW_FORM_exprloc: a DWARF expression."""


def parse_abbrevs(buf: memoryview, offset: int) -> dict[int, tuple]:
    """Abbreviation table at ``offset``: code -> (tag, children, specs)."""
    out: dict[int, tuple] = {}
    pos = offset
    n = len(buf)
    while pos < n:
        code, pos = uleb(buf, pos)
        if code == 0:
            break
        tag, pos = uleb(buf, pos)
        children = buf[pos] != 0
        pos += 1
        specs = []
        while True:
            attr, pos = uleb(buf, pos)
            form, pos = uleb(buf, pos)
            if attr == 0 and form == 0:
                break
            ic = None
            if form == DW_FORM_implicit_const:
                ic, pos = sleb(buf, pos)
            specs.append((attr, form, ic))
        out[code] = (tag, children, tuple(specs))
    return out


# Fixed sizes of forms that do not depend on the unit (None: variable or unit-dependent).
_FIXED = {
    DW_FORM_data1: 1, DW_FORM_ref1: 1, DW_FORM_flag: 1, DW_FORM_strx1: 1, DW_FORM_addrx1: 1,
    DW_FORM_data2: 2, DW_FORM_ref2: 2, DW_FORM_strx2: 2, DW_FORM_addrx2: 2,
    DW_FORM_strx3: 3, DW_FORM_addrx3: 3,
    DW_FORM_data4: 4, DW_FORM_ref4: 4, DW_FORM_strx4: 4, DW_FORM_addrx4: 4, DW_FORM_ref_sup4: 4,
    DW_FORM_data8: 8, DW_FORM_ref8: 8, DW_FORM_ref_sig8: 8, DW_FORM_ref_sup8: 8,
    DW_FORM_data16: 16, DW_FORM_flag_present: 0, DW_FORM_implicit_const: 0,
}
_OFFSZ_FORMS = {DW_FORM_strp, DW_FORM_sec_offset, DW_FORM_line_strp, DW_FORM_strp_sup,
                DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt}
# ``Unit._read_form`` fast paths: unsigned constants (ref_sig8 is a type signature, not a DIE offset)
# and unit-relative references, by size.
_UNSIGNED_SIZE = {DW_FORM_data1: 1, DW_FORM_data2: 2, DW_FORM_data4: 4, DW_FORM_data8: 8, DW_FORM_ref_sig8: 8}
_REF_SIZE = {DW_FORM_ref1: 1, DW_FORM_ref2: 2, DW_FORM_ref4: 4, DW_FORM_ref8: 8}
_STRX_FORMS = frozenset((DW_FORM_strx1, DW_FORM_strx2, DW_FORM_strx3, DW_FORM_strx4, DW_FORM_strx,
                         DW_FORM_GNU_str_index))


class Die:
    """One debugging information entry. ``attrs`` maps attribute code -> resolved value;
    ``children`` is None for a DIE whose abbreviation has no children."""

    __slots__ = ("unit", "offset", "tag", "attrs", "forms", "parent", "children")

    def __init__(self, unit: Unit, offset: int, tag: int, attrs: dict, forms: dict, parent: Die | None = None,
                 children: list | None = None) -> None:
        self.unit = unit
        self.offset = offset
        self.tag = tag
        self.attrs = attrs
        self.forms = forms
        self.parent = parent
        self.children = children

    def get(self, attr: int, default=None):
        return self.attrs.get(attr, default)

    def __contains__(self, attr: int) -> bool:
        return attr in self.attrs

    @property
    def name(self) -> str | None:
        return self.attrs.get(C.DW_AT_name)

    def attr_name(self, attr: int) -> str:
        return self.unit.dwarf.producer_info(self.unit).attr_name(attr)

    def __repr__(self) -> str:
        return f"<Die {C.tag_name(self.tag)} at {self.offset:#x} {self.name or ''}>"


class Unit:
    """One unit of .debug_info (compile/partial/type/skeleton). DIEs are parsed on demand."""

    @guard("unit header (.debug_info)")
    def __init__(self, dwarf, offset: int) -> None:
        self.dwarf = dwarf
        buf = dwarf.info
        self.offset = offset
        length = U32(buf, offset)[0]
        pos = offset + 4
        self.offset_size = 4
        if length == 0xFFFFFFFF:
            length = U64(buf, pos)[0]
            pos += 8
            self.offset_size = 8
        self.end = pos + length
        if self.end > len(buf):
            raise FormatError("unit runs past the end of .debug_info", file=dwarf.name, offset=offset)
        self.version = U16(buf, pos)[0]
        pos += 2
        self.unit_type = C.DW_UT_compile
        if self.version >= 5:
            self.unit_type = buf[pos]
            self.addr_size = buf[pos + 1]
            pos += 2
            self.abbrev_offset = uint(buf, pos, self.offset_size)
            pos += self.offset_size
            if self.unit_type in (C.DW_UT_skeleton, C.DW_UT_split_compile):
                pos += 8
            elif self.unit_type in (C.DW_UT_type, C.DW_UT_split_type):
                pos += 8 + self.offset_size
        elif 2 <= self.version <= 4:
            self.abbrev_offset = uint(buf, pos, self.offset_size)
            pos += self.offset_size
            self.addr_size = buf[pos]
            pos += 1
        else:
            raise FormatError(f"unsupported DWARF version {self.version}", file=dwarf.name, offset=offset)
        self.die_offset = pos
        self.abbrevs = dwarf.abbrev_table(self.abbrev_offset)
        self._dies: dict[int, Die] | None = None
        self._root: Die | None = None
        # bases (DWARF 5 defaults: none)
        self.str_offsets_base = 8 if self.offset_size == 4 else 16
        self.addr_base = 8
        self.rnglists_base = 0
        self.loclists_base = 0
        self.low_pc = 0
        top = self._parse_die(self.die_offset, None, raw_only=True)[0]
        a = top.attrs
        self.str_offsets_base = a.get(C.DW_AT_str_offsets_base, self.str_offsets_base)
        self.addr_base = a.get(C.DW_AT_addr_base, a.get(C.DW_AT_GNU_addr_base, self.addr_base))
        self.rnglists_base = a.get(C.DW_AT_rnglists_base, self.rnglists_base)
        self.loclists_base = a.get(C.DW_AT_loclists_base, self.loclists_base)
        self.top = self._parse_die(self.die_offset, None)[0]
        ta = self.top.attrs
        lp = ta.get(C.DW_AT_low_pc, 0)
        self.low_pc = lp if isinstance(lp, int) else 0
        self.producer: str = ta.get(C.DW_AT_producer) or ""
        self.name: str | None = ta.get(C.DW_AT_name)
        self.comp_dir: str | None = ta.get(C.DW_AT_comp_dir)
        self.stmt_list: int | None = ta.get(C.DW_AT_stmt_list)
        self.language: int | None = ta.get(C.DW_AT_language)

    # ----------------------------------------------------------------- attribute values
    def _parse_die(self, pos: int, parent, raw_only: bool = False):
        buf = self.dwarf.info_bytes
        code, pos = uleb(buf, pos)
        if code == 0:
            return None, pos
        try:
            tag, children, specs = self.abbrevs[code]
        except KeyError:
            raise FormatError(f"unknown abbreviation code {code}", file=self.dwarf.name, offset=pos) from None
        start = pos
        attrs = {}
        forms = {}
        for attr, form, ic in specs:
            val, pos = self._read_form(buf, pos, form, ic, raw_only)
            attrs[attr] = val
            forms[attr] = form
        die = Die(self, start - _uleb_len(code), tag, attrs, forms, parent)
        die.children = [] if children else None
        return die, pos

    def _read_form(self, buf, pos: int, form: int, ic, raw: bool):  # noqa: C901 - one switch
        # The two commonest classes first, by one dict lookup each: plain constants and references.
        n = _UNSIGNED_SIZE.get(form)
        if n is not None:
            return (buf[pos] if n == 1 else uint(buf, pos, n)), pos + n
        n = _REF_SIZE.get(form)
        if n is not None:
            return Ref(self.offset + (buf[pos] if n == 1 else uint(buf, pos, n))), pos + n
        if form in _STRX_FORMS:
            if form == DW_FORM_strx:
                idx, pos = uleb(buf, pos)
            elif form == DW_FORM_GNU_str_index:
                idx, pos = uleb(buf, pos)
            else:
                n = _FIXED[form]
                idx = uint(buf, pos, n)
                pos += n
            return (idx if raw else self.dwarf.strx(self, idx)), pos
        if form == DW_FORM_flag_present:
            return True, pos
        if form == DW_FORM_flag:
            return buf[pos] != 0, pos + 1
        if form == DW_FORM_implicit_const:
            return ic, pos
        if form == DW_FORM_addr:
            return uint(buf, pos, self.addr_size), pos + self.addr_size
        if form in (DW_FORM_addrx, DW_FORM_GNU_addr_index, DW_FORM_addrx1, DW_FORM_addrx2,
                    DW_FORM_addrx3, DW_FORM_addrx4):
            if form in (DW_FORM_addrx, DW_FORM_GNU_addr_index):
                idx, pos = uleb(buf, pos)
            else:
                n = _FIXED[form]
                idx = uint(buf, pos, n)
                pos += n
            return (idx if raw else self.dwarf.addrx(self, idx)), pos
        if form in _OFFSZ_FORMS:
            v = uint(buf, pos, self.offset_size)
            pos += self.offset_size
            if raw:
                return v, pos
            if form == DW_FORM_strp:
                return self.dwarf.strp(v), pos
            if form == DW_FORM_line_strp:
                return self.dwarf.line_strp(v), pos
            return v, pos
        if form == DW_FORM_string:
            end = buf.index(0, pos) if isinstance(buf, bytes) else _find0(buf, pos)
            return bytes(buf[pos:end]).decode("utf-8", "replace"), end + 1
        if form == DW_FORM_udata or form == DW_FORM_ref_udata:
            v, pos = uleb(buf, pos)
            return (Ref(self.offset + v) if form == DW_FORM_ref_udata else v), pos
        if form == DW_FORM_sdata:
            return sleb(buf, pos)
        if form == DW_FORM_exprloc or form == DW_FORM_block:
            n, pos = uleb(buf, pos)
            cls = Expr if form == DW_FORM_exprloc else Block
            return cls(buf[pos:pos + n]), pos + n
        if form == DW_FORM_block1:
            n = buf[pos]
            return Block(buf[pos + 1:pos + 1 + n]), pos + 1 + n
        if form == DW_FORM_block2:
            n = U16(buf, pos)[0]
            return Block(buf[pos + 2:pos + 2 + n]), pos + 2 + n
        if form == DW_FORM_block4:
            n = U32(buf, pos)[0]
            return Block(buf[pos + 4:pos + 4 + n]), pos + 4 + n
        if form == DW_FORM_ref_addr:
            n = self.offset_size if self.version >= 3 else self.addr_size
            return Ref(uint(buf, pos, n)), pos + n
        if form == DW_FORM_loclistx or form == DW_FORM_rnglistx:
            return uleb(buf, pos)
        if form == DW_FORM_data16:
            return bytes(buf[pos:pos + 16]), pos + 16
        if form == DW_FORM_ref_sup4:
            return U32(buf, pos)[0], pos + 4
        if form == DW_FORM_ref_sup8:
            return U64(buf, pos)[0], pos + 8
        if form == DW_FORM_indirect:
            real, pos = uleb(buf, pos)
            ic2 = None
            if real == DW_FORM_implicit_const:
                ic2, pos = sleb(buf, pos)
            return self._read_form(buf, pos, real, ic2, raw)
        raise FormatError(f"unknown attribute form {form:#x}", file=self.dwarf.name, offset=pos)

    # ----------------------------------------------------------------- DIE tree
    def dies(self) -> dict[int, Die]:
        """All DIEs of the unit (parsed once), keyed by absolute offset, with parent/children links."""
        if self._dies is None:
            self._load()
        return self._dies

    @property
    def root(self) -> Die:
        if self._root is None:
            self._load()
        return self._root

    @guard(".debug_info")
    def _load(self) -> None:
        dies: dict[int, Die] = {}
        pos = self.die_offset
        end = self.end
        stack: list[Die] = []
        root = None
        parse = self._parse_die
        while pos < end:
            parent = stack[-1] if stack else None
            die, pos = parse(pos, parent)
            if die is None:
                if stack:
                    stack.pop()
                continue
            dies[die.offset] = die
            if parent is not None:
                parent.children.append(die)
            elif root is None:
                root = die
            if die.children is not None:
                stack.append(die)
        self._dies = dies
        self._root = root

    def die_at(self, offset: int) -> Die:
        d = self.dies().get(offset)
        if d is None:
            raise FormatError("reference to a DIE that does not exist", file=self.dwarf.name, offset=offset)
        return d

    def __repr__(self) -> str:
        return f"<Unit at {self.offset:#x} v{self.version} {self.name!r}>"


def _uleb_len(v: int) -> int:
    n = 1
    while v >= 0x80:
        v >>= 7
        n += 1
    return n


def _find0(buf, pos: int) -> int:
    n = len(buf)
    while pos < n and buf[pos] != 0:
        pos += 1
    if pos >= n:
        raise FormatError("unterminated string in .debug_info", offset=pos)
    return pos


__all__ = ["Block", "Die", "Expr", "Ref", "Unit", "parse_abbrevs", "S8", "S16", "S32", "S64",
           "cstr"]
