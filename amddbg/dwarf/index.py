"""Fast lazy address index: address -> compile unit -> innermost subroutine -> inlined chain.

The structure mirrors what LLVM's symbolizer does, because ``amddbg addr2line`` must print what
``llvm-addr2line`` prints:

* CU ranges come from .debug_aranges plus every CU DIE's ``DW_AT_ranges``/``low_pc``
  (``DWARFDebugAranges::generate``); overlaps go to the lowest CU offset.
* Per CU, an address -> DIE map of ``DW_TAG_subprogram``/``DW_TAG_inlined_subroutine`` ranges is
  built in DIE pre-order with LLVM's splitting rule (``DWARFUnit::updateAddressDieMap``), so
  quirky overlaps resolve the same way.
* The inlined chain walks parents from the leaf, collecting inlined subroutines up to the
  subprogram. Names resolve through ``DW_AT_abstract_origin``/``DW_AT_specification``.

Everything an index holds is plain arrays and strings, so it can be written to the on-disk cache
(``amddbg.dwarf.cache``) and read back without re-parsing DWARF.
"""

from __future__ import annotations

import bisect
from array import array
from dataclasses import dataclass

from amddbg.dwarf import constants as C
from amddbg.dwarf.info import Ref
from amddbg.dwarf.reader import uleb
from amddbg.errors import AmddbgError

SUBPROGRAM = C.DW_TAG_subprogram
INLINED = C.DW_TAG_inlined_subroutine


@dataclass(slots=True)
class Subroutine:
    """One subprogram or inlined subroutine as the index keeps it."""

    offset: int
    inlined: bool
    parent: int  # index of the nearest enclosing subroutine in the same table, -1 if none
    call_file: int
    call_line: int
    call_column: int
    call_discriminator: int
    linkage_name: str | None
    name: str | None
    decl_line: int

    def to_data(self) -> list:
        return [self.offset, int(self.inlined), self.parent, self.call_file, self.call_line,
                self.call_column, self.call_discriminator, self.linkage_name, self.name, self.decl_line]

    @classmethod
    def from_data(cls, d: list) -> Subroutine:
        return cls(d[0], bool(d[1]), d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9])


class LazySubs:
    """Subroutine records kept as raw lists (from the cache) and turned into objects on access."""

    __slots__ = ("raw", "made")

    def __init__(self, raw: list) -> None:
        self.raw = raw
        self.made: dict[int, Subroutine] = {}

    def __getitem__(self, i: int) -> Subroutine:
        s = self.made.get(i)
        if s is None:
            s = self.made[i] = Subroutine.from_data(self.raw[i])
        return s

    def __len__(self) -> int:
        return len(self.raw)

    def __iter__(self):
        return (self[i] for i in range(len(self.raw)))


class SubroutineMap:
    """LLVM's AddrDieMap for one unit: sorted range starts -> (end, subroutine index)."""

    def __init__(self, subs: list[Subroutine], keys, highs, idx) -> None:
        self.subs = subs
        self.keys = keys
        self.highs = highs
        self.idx = idx

    def leaf(self, address: int) -> int:
        i = bisect.bisect_right(self.keys, address) - 1
        if i < 0 or address >= self.highs[i]:
            return -1
        return self.idx[i]

    def chain(self, address: int) -> list[Subroutine]:
        """Innermost first: inlined subroutines, then the subprogram (LLVM getInlinedChainForAddress)."""
        i = self.leaf(address)
        out = []
        subs = self.subs
        while i >= 0:
            s = subs[i]
            out.append(s)
            if not s.inlined:
                break
            i = s.parent
        return out


def build_subroutine_map(unit) -> SubroutineMap:
    """Walk the unit's DIEs once (decoding only subroutine DIEs) and build the address map."""
    dwarf = unit.dwarf
    buf = dwarf.info
    abbrevs = unit.abbrevs
    read_form = unit._read_form
    pos = unit.die_offset
    end = unit.end
    stack: list[int] = []  # nearest subroutine index per open level
    cur = -1
    subs: list[Subroutine] = []
    entries: dict[int, list] = {}  # low -> [high, sub index]
    keys: list[int] = []
    name_cache: dict[int, tuple] = {}
    skip = _skip_plans(unit)
    while pos < end:
        start = pos
        code, pos = uleb(buf, pos)
        if code == 0:
            if stack:
                cur = stack.pop()
            continue
        ab = abbrevs.get(code)
        if ab is None:
            raise AmddbgError(f"unknown abbreviation code {code}", file=dwarf.name, offset=start)
        tag, children, specs = ab
        if tag == SUBPROGRAM or tag == INLINED:
            attrs = {}
            forms = {}
            for attr, form, ic in specs:
                val, pos = read_form(buf, pos, form, ic, False)
                attrs[attr] = val
                forms[attr] = form
            me = len(subs)
            ranges = _ranges(dwarf, unit, attrs, forms)
            linkage, short = _names(dwarf, unit, attrs, name_cache)
            get = attrs.get
            subs.append(Subroutine(start, tag == INLINED, cur, get(C.DW_AT_call_file, 0) or 0,
                                   get(C.DW_AT_call_line, 0) or 0, get(C.DW_AT_call_column, 0) or 0,
                                   get(C.DW_AT_GNU_discriminator, 0) or 0, linkage, short,
                                   _decl_line(dwarf, unit, attrs, name_cache)))
            for lo, hi in ranges:
                if lo == hi:
                    continue
                _insert(entries, keys, lo, hi, me)
            if children:
                stack.append(cur)
                cur = me
        else:
            plan = skip.get(code)
            if plan is not None:
                pos += plan
            else:
                for _attr, form, ic in specs:
                    _, pos = read_form(buf, pos, form, ic, True)
            if children:
                stack.append(cur)
    ks = array("Q", keys)
    hs = array("Q", (entries[k][0] for k in keys))
    ix = array("i", (entries[k][1] for k in keys))
    return SubroutineMap(subs, ks, hs, ix)


def _insert(entries: dict, keys: list, lo: int, hi: int, die: int) -> None:
    """``DWARFUnit::updateAddressDieMap`` on a std::map emulated by dict + sorted key list."""
    if keys:
        last = keys[-1]
        if lo > last and lo >= entries[last][0]:  # fast path: beyond everything so far
            entries[lo] = [hi, die]
            keys.append(lo)
            return
    i = bisect.bisect_right(keys, lo)
    if i > 0:
        bk = keys[i - 1]
        b = entries[bk]
        if lo < b[0]:
            if hi < b[0]:
                if hi in entries:
                    entries[hi] = [b[0], b[1]]
                else:
                    entries[hi] = [b[0], b[1]]
                    bisect.insort(keys, hi)
            if lo > bk:
                b[0] = lo
    if lo in entries:
        entries[lo] = [hi, die]
    else:
        entries[lo] = [hi, die]
        bisect.insort(keys, lo)


_FIXED_UNIT = None


def _skip_plans(unit) -> dict[int, int]:
    """Abbrev code -> byte size for DIEs whose attributes are all fixed-size in this unit."""
    from amddbg.dwarf.info import _FIXED, _OFFSZ_FORMS

    out = {}
    for code, (_tag, _ch, specs) in unit.abbrevs.items():
        n = 0
        for _a, form, _ic in specs:
            if form in _FIXED:
                n += _FIXED[form]
            elif form in _OFFSZ_FORMS:
                n += unit.offset_size
            elif form == C.DW_FORM_addr:
                n += unit.addr_size
            elif form == C.DW_FORM_ref_addr:
                n += unit.offset_size if unit.version >= 3 else unit.addr_size
            else:
                n = None
                break
        if n is not None:
            out[code] = n
    return out


class _D:
    """Tiny adapter so ``DwarfInfo.die_ranges`` works on attributes decoded without a ``Die``."""

    __slots__ = ("attrs", "forms", "unit")


def _ranges(dwarf, unit, attrs, forms) -> list[tuple[int, int]]:
    d = _D()
    d.attrs, d.forms, d.unit = attrs, forms, unit
    try:
        return dwarf.die_ranges(d)
    except AmddbgError:
        return []


def _attrs_at(dwarf, unit, off: int, cache: dict):
    """Attributes of the DIE at absolute offset ``off`` (any unit), decoded alone and cached."""
    hit = cache.get(off)
    if hit is not None:
        return hit
    u = unit if unit.offset <= off < unit.end else dwarf.unit_containing(off)
    die, _ = u._parse_die(off, None)
    res = (die.attrs, u) if die is not None else ({}, u)
    cache[off] = res
    return res


def _find_recursively(dwarf, unit, attrs, wanted: tuple, cache: dict):
    """``DWARFDie::findRecursively``: the DIE, then its abstract_origin/specification chain."""
    work = [(attrs, unit)]
    seen = set()
    while work:
        a, u = work.pop(0)
        for w in wanted:
            v = a.get(w)
            if v is not None:
                return v
        for link in (C.DW_AT_abstract_origin, C.DW_AT_specification):
            r = a.get(link)
            if isinstance(r, Ref) and r not in seen:
                seen.add(r)
                try:
                    work.append(_attrs_at(dwarf, u, int(r), cache))
                except AmddbgError:
                    pass
    return None


def _names(dwarf, unit, attrs, cache) -> tuple[str | None, str | None]:
    linkage = _find_recursively(dwarf, unit, attrs, (C.DW_AT_MIPS_linkage_name, C.DW_AT_linkage_name), cache)
    short = _find_recursively(dwarf, unit, attrs, (C.DW_AT_name,), cache)
    return (linkage if isinstance(linkage, str) else None, short if isinstance(short, str) else None)


def _decl_line(dwarf, unit, attrs, cache) -> int:
    v = _find_recursively(dwarf, unit, attrs, (C.DW_AT_decl_line,), cache)
    return v if isinstance(v, int) else 0


class CuRanges:
    """Address -> CU offset (``DWARFDebugAranges``): sorted disjoint [lo, hi) -> unit offset."""

    def __init__(self, los, his, cus) -> None:
        self.los = los
        self.his = his
        self.cus = cus

    def find(self, address: int) -> int | None:
        i = bisect.bisect_right(self.los, address) - 1
        if i >= 0 and address < self.his[i]:
            return self.cus[i]
        return None


def build_cu_ranges(dwarf) -> CuRanges:
    spans: list[tuple[int, int, int]] = []
    parsed: set[int] = set()
    for lo, hi, cu in _aranges(dwarf):
        parsed.add(cu)
        if lo < hi:
            spans.append((lo, hi, cu))
    for off in dwarf.unit_offsets:
        if off in parsed:
            continue
        u = dwarf.unit(off)
        if u.unit_type not in (C.DW_UT_compile, C.DW_UT_partial, C.DW_UT_skeleton):
            continue
        try:
            rs = dwarf.die_ranges(u.top)
        except AmddbgError:
            rs = []
        for lo, hi in rs:
            if lo < hi:
                spans.append((lo, hi, off))
    return _construct(spans)


def _construct(spans) -> CuRanges:
    """Flatten possibly overlapping spans; overlapping parts go to the smallest CU offset (LLVM)."""
    events = []
    for lo, hi, cu in spans:
        events.append((lo, 1, cu))
        events.append((hi, 0, cu))
    events.sort()
    los, his, cus = [], [], []
    active: dict[int, int] = {}
    prev = None
    for addr, kind, cu in events:
        if active and prev is not None and addr > prev:
            c = min(active)
            if cus and cus[-1] == c and his[-1] == prev:
                his[-1] = addr
            else:
                los.append(prev)
                his.append(addr)
                cus.append(c)
        if kind == 1:
            active[cu] = active.get(cu, 0) + 1
        else:
            active[cu] -= 1
            if not active[cu]:
                del active[cu]
        prev = addr
    return CuRanges(array("Q", los), array("Q", his), array("Q", cus))


def _aranges(dwarf):
    from amddbg.dwarf.reader import U16, U32, U64, uint

    buf = dwarf.aranges
    pos = 0
    n = len(buf)
    while pos + 4 <= n:
        length = U32(buf, pos)[0]
        p = pos + 4
        offsz = 4
        if length == 0xFFFFFFFF:
            length = U64(buf, p)[0]
            p += 8
            offsz = 8
        end = p + length
        _ver = U16(buf, p)[0]
        cu = uint(buf, p + 2, offsz)
        p += 2 + offsz
        asz = buf[p]
        seg = buf[p + 1]
        p += 2
        tup = 2 * asz + seg
        hdr = p - pos
        if tup and hdr % tup:
            p += tup - hdr % tup
        while p + tup <= end:
            a = uint(buf, p + seg, asz)
            ln = uint(buf, p + seg + asz, asz)
            p += tup
            if a == 0 and ln == 0:
                break
            yield a, a + ln, cu
        pos = end
