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
from collections import namedtuple

from amddbg.dwarf import constants as C
from amddbg.dwarf.info import Ref
from amddbg.dwarf.reader import guard, uleb
from amddbg.errors import AmddbgError

SUBPROGRAM = C.DW_TAG_subprogram
INLINED = C.DW_TAG_inlined_subroutine


_SubroutineBase = namedtuple("_SubroutineBase", "offset inlined parent call_file call_line call_column "
                                                "call_discriminator linkage_name name decl_line")


class Subroutine(_SubroutineBase):
    """One subprogram or inlined subroutine as the index keeps it (``parent``: index of the nearest
    enclosing subroutine in the same table, -1 if none)."""

    __slots__ = ()

    def to_data(self) -> list:
        return [self.offset, int(self.inlined), *self[2:]]

    @classmethod
    def from_data(cls, d: list) -> Subroutine:
        return cls(d[0], bool(d[1]), *d[2:])


NCOLS = 10


def subs_to_columns(subs) -> tuple[list[str], array]:
    """(string table, flat int64 array of NCOLS per subroutine; names as string-table indexes, -1 none)."""
    strings: dict[str, int] = {}
    flat = array("q")
    for s in subs:
        ln = -1 if s.linkage_name is None else strings.setdefault(s.linkage_name, len(strings))
        nm = -1 if s.name is None else strings.setdefault(s.name, len(strings))
        flat.extend((s.offset, int(s.inlined), s.parent, s.call_file, s.call_line, s.call_column,
                     s.call_discriminator, ln, nm, s.decl_line))
    return list(strings), flat


class LazySubs:
    """Subroutines kept as a flat int array + string table (the cache form), made into objects on access."""

    __slots__ = ("strings", "flat", "made")

    def __init__(self, strings: list[str], flat: array) -> None:
        self.strings = strings
        self.flat = flat
        self.made: dict[int, Subroutine] = {}

    def __getitem__(self, i: int) -> Subroutine:
        s = self.made.get(i)
        if s is None:
            f = self.flat[i * NCOLS:(i + 1) * NCOLS]
            st = self.strings
            s = self.made[i] = Subroutine(f[0], bool(f[1]), f[2], f[3], f[4], f[5], f[6],
                                          st[f[7]] if f[7] >= 0 else None, st[f[8]] if f[8] >= 0 else None,
                                          f[9])
        return s

    def __len__(self) -> int:
        return len(self.flat) // NCOLS

    def __iter__(self):
        return (self[i] for i in range(len(self)))


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


class ParsedSubs:
    """Subroutines found by the scan, kept as (DIE offset, inlined, parent); the rest (call site,
    names through abstract origins) is decoded from the DIE on first access."""

    __slots__ = ("unit", "offs", "inl", "parents", "made", "names")

    def __init__(self, unit, offs: array, inl: bytearray, parents: array) -> None:
        self.unit = unit
        self.offs = offs
        self.inl = inl
        self.parents = parents
        self.made: dict[int, Subroutine] = {}
        self.names: dict = {}

    def __len__(self) -> int:
        return len(self.offs)

    def __iter__(self):
        return (self[i] for i in range(len(self.offs)))

    def __getitem__(self, i: int) -> Subroutine:
        s = self.made.get(i)
        if s is None:
            u = self.unit
            die, _ = u._parse_die(self.offs[i], None)
            attrs = die.attrs
            linkage, short = _names(u.dwarf, u, attrs, self.names)
            get = attrs.get
            s = self.made[i] = Subroutine(
                self.offs[i], bool(self.inl[i]), self.parents[i], _int(get(C.DW_AT_call_file)),
                _int(get(C.DW_AT_call_line)), _int(get(C.DW_AT_call_column)),
                _int(get(C.DW_AT_GNU_discriminator)), linkage, short,
                _decl_line(u.dwarf, u, attrs, self.names))
        return s


def _int(v) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


_RANGE_ATTRS = (C.DW_AT_low_pc, C.DW_AT_high_pc, C.DW_AT_ranges)


def _plans(unit) -> dict[int, tuple]:
    """Per abbreviation code: a tuple of steps to walk a DIE's attributes without decoding them.

    A step is an int (skip that many bytes), "L" (skip a LEB128), "S" (skip a C string), "B" (skip a
    ULEB-sized block), "1"/"2"/"4" (skip a block with a 1/2/4-byte size), or (attr, form, ic) for an
    attribute to decode (the range attributes of subroutine DIEs) or a form we cannot skip blindly.
    """
    from amddbg.dwarf.info import _FIXED, _OFFSZ_FORMS

    leb = {C.DW_FORM_udata, C.DW_FORM_sdata, C.DW_FORM_ref_udata, C.DW_FORM_strx, C.DW_FORM_addrx,
           C.DW_FORM_loclistx, C.DW_FORM_rnglistx, C.DW_FORM_GNU_addr_index, C.DW_FORM_GNU_str_index}
    out = {}
    for code, (tag, _ch, specs) in unit.abbrevs.items():
        sub = tag == SUBPROGRAM or tag == INLINED
        steps: list = []
        for attr, form, ic in specs:
            if sub and attr in _RANGE_ATTRS:
                steps.append((attr, form, ic))
                continue
            if form in _FIXED:
                n = _FIXED[form]
            elif form in _OFFSZ_FORMS:
                n = unit.offset_size
            elif form == C.DW_FORM_addr:
                n = unit.addr_size
            elif form == C.DW_FORM_ref_addr:
                n = unit.offset_size if unit.version >= 3 else unit.addr_size
            else:
                n = None
            if n is not None:
                if steps and type(steps[-1]) is int:
                    steps[-1] += n
                else:
                    steps.append(n)
                continue
            if form in leb:
                steps.append("L")
            elif form == C.DW_FORM_string:
                steps.append("S")
            elif form in (C.DW_FORM_exprloc, C.DW_FORM_block):
                steps.append("B")
            elif form == C.DW_FORM_block1:
                steps.append("1")
            elif form == C.DW_FORM_block2:
                steps.append("2")
            elif form == C.DW_FORM_block4:
                steps.append("4")
            else:
                steps.append((attr, form, ic))
        out[code] = (tag, sub, tuple(s for s in steps if s != 0))
    return out


@guard(".debug_info")
def build_subroutine_map(unit) -> SubroutineMap:
    """Walk the unit's DIEs once, decoding only the ranges of subroutine DIEs, and build the map."""
    dwarf = unit.dwarf
    buf = dwarf.info_bytes
    read_form = unit._read_form
    plans = _plans(unit)
    pos = unit.die_offset
    end = unit.end
    stack: list[int] = []  # nearest subroutine index per open level
    cur = -1
    offs = array("Q")
    inl = bytearray()
    parents = array("i")
    groups: list[list[tuple[int, int, int]]] = []  # ranges per top-level subroutine, in DIE order
    group: list[tuple[int, int, int]] = []
    children_of = {code: ab[1] for code, ab in unit.abbrevs.items()}
    d = _D()
    d.unit = unit
    while pos < end:
        start = pos
        code = buf[pos]
        pos += 1
        if code >= 0x80:
            code, pos = uleb(buf, start)
        if code == 0:
            if stack:
                cur = stack.pop()
            continue
        plan = plans.get(code)
        if plan is None:
            raise AmddbgError(f"unknown abbreviation code {code}", file=dwarf.name, offset=start)
        tag, sub, steps = plan
        attrs = forms = None
        if sub:
            attrs = {}
            forms = {}
        for st in steps:
            t = type(st)
            if t is int:
                pos += st
            elif t is str:
                if st == "L":
                    while buf[pos] >= 0x80:
                        pos += 1
                    pos += 1
                elif st == "S":
                    pos = buf.index(0, pos) + 1
                elif st == "B":
                    n, pos = uleb(buf, pos)
                    pos += n
                elif st == "1":
                    pos += 1 + buf[pos]
                elif st == "2":
                    pos += 2 + int.from_bytes(buf[pos:pos + 2], "little")
                else:
                    pos += 4 + int.from_bytes(buf[pos:pos + 4], "little")
            else:
                attr, form, ic = st
                val, pos = read_form(buf, pos, form, ic, False)
                if sub:
                    attrs[attr] = val
                    forms[attr] = form
        if sub:
            me = len(offs)
            offs.append(start)
            inl.append(tag == INLINED)
            parents.append(cur)
            if attrs:
                d.attrs, d.forms = attrs, forms
                try:
                    ranges = dwarf.die_ranges(d)
                except AmddbgError:
                    ranges = []
                if cur < 0:  # a new top-level subroutine starts a new group
                    group = []
                    groups.append(group)
                for lo, hi in ranges:
                    if lo != hi:
                        group.append((lo, hi, me))
            if children_of[code]:
                stack.append(cur)
                cur = me
        elif children_of[code]:
            stack.append(cur)
    keys, entries = _address_die_map(groups)
    ks = array("Q", keys)
    vals = [entries[k] for k in keys]
    hs = array("Q", [v[0] for v in vals])
    ix = array("i", [v[1] for v in vals])
    return SubroutineMap(ParsedSubs(unit, offs, inl, parents), ks, hs, ix)


def _address_die_map(groups: list[list[tuple[int, int, int]]]) -> tuple[list[int], dict]:
    """LLVM's AddrDieMap from ranges in DIE pre-order, grouped by top-level subroutine.

    Inserting into one big sorted list is quadratic-ish in Python; but when the address spans of the
    groups are disjoint (the normal case) no insertion of one group can touch another's entries,
    so each group is built on its own small map and the results are concatenated. Overlapping
    spans fall back to inserting everything into one map, in the original order.
    """
    spans = []
    for g in groups:
        if g:
            spans.append((min(r[0] for r in g), max(r[1] for r in g), g))
    spans.sort(key=lambda t: (t[0], t[1]))
    disjoint = all(spans[i][1] <= spans[i + 1][0] for i in range(len(spans) - 1))
    keys: list[int] = []
    entries: dict[int, list] = {}
    if not disjoint:
        for g in groups:
            for lo, hi, me in g:
                _insert(entries, keys, lo, hi, me)
        return keys, entries
    for _lo, _hi, g in spans:
        gk: list[int] = []
        ge: dict[int, list] = {}
        for lo, hi, me in g:
            _insert(ge, gk, lo, hi, me)
        keys.extend(gk)
        entries.update(ge)
    return keys, entries


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


class _D:
    """Tiny adapter so ``DwarfInfo.die_ranges`` works on attributes decoded without a ``Die``."""

    __slots__ = ("attrs", "forms", "unit")


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


@guard(".debug_info/.debug_aranges")
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
