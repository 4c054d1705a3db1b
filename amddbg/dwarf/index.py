"""Fast lazy address index: address -> compile unit -> innermost subroutine -> inlined chain.

The structure mirrors what LLVM's symbolizer does, because ``amddbg addr2line`` must print what
``llvm-addr2line`` prints:

* CU ranges come from .debug_aranges plus every CU DIE's ``DW_AT_ranges``/``low_pc``
  (``DWARFDebugAranges::generate``); overlaps go to the lowest CU offset.
* Per CU, LLVM keeps an address -> DIE map of ``DW_TAG_subprogram``/``DW_TAG_inlined_subroutine``
  ranges built in DIE pre-order with its splitting rule (``DWARFUnit::updateAddressDieMap``).
  ``exact_map`` replays that rule over every range (what the on-disk index stores), so quirky
  overlaps resolve the same way. Cold lookups use ``NestedSubroutineMap`` instead: one skim over
  the DIEs (``scan_subroutines``, no attribute decoded), then a walk down the subroutine tree
  that decodes only the range lists of children of subroutines it visits. Where ranges nest,
  both give the same answer; every level visited is checked, and a unit where they do not nest
  falls back to the exact replay.
* The inlined chain walks parents from the leaf, collecting inlined subroutines up to the
  subprogram. Names resolve through ``DW_AT_abstract_origin``/``DW_AT_specification``.

Everything an index holds is plain arrays and strings, so it can be written to the on-disk cache
(``amddbg.dwarf.cache``) and read back without re-parsing DWARF.
"""

from __future__ import annotations

import bisect
import operator
from array import array
from collections import namedtuple
from itertools import islice, repeat

from amddbg.dwarf import constants as C
from amddbg.dwarf.info import Ref
from amddbg.dwarf.reader import guard, paused_gc, uint, uleb
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
        return _chain(self.subs, self.leaf(address))


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
            linkage, short, decl_line = _names_and_line(u.dwarf, u, attrs, self.names)
            get = attrs.get
            s = self.made[i] = Subroutine(
                self.offs[i], bool(self.inl[i]), self.parents[i], _int(get(C.DW_AT_call_file)),
                _int(get(C.DW_AT_call_line)), _int(get(C.DW_AT_call_column)),
                _int(get(C.DW_AT_GNU_discriminator)), linkage, short, decl_line)
        return s


def _int(v) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


_RANGE_ATTRS = (C.DW_AT_low_pc, C.DW_AT_high_pc, C.DW_AT_ranges)


def _plans(unit) -> dict[int, tuple]:
    """Per abbreviation code, how to walk a DIE's attributes without decoding them.

    A plan is (tag, is subroutine?, skip steps, has children?, fixed size or shape (``_shape``),
    range steps, has range attributes?, ``_range_recipe`` or None). A step is an int (skip that
    many bytes), "L" (skip a LEB128), "S" (skip a C string), "B" (skip a ULEB-sized block),
    "1"/"2"/"4" (skip a block with a 1/2/4-byte size), or (attr, form, ic) for an attribute to
    decode: a form we cannot skip blindly, and in the range steps of a subroutine also its range
    attributes (read only when its ranges are wanted).
    """
    out = {}
    for code, (tag, children, specs) in unit.abbrevs.items():
        sub = tag == SUBPROGRAM or tag == INLINED
        skip = _steps(unit, specs, ())
        fixed, skip = _shape(skip)
        ranged = _steps(unit, specs, _RANGE_ATTRS) if sub else ()
        out[code] = (tag, sub, skip, bool(children), fixed, ranged, any(type(s) is tuple for s in ranged),
                     _range_recipe(ranged))
    return out


def _shape(skip: tuple) -> tuple[int, tuple]:
    """(fixed, steps) for the scan: ``fixed`` >= 0 is a DIE body of that many bytes; -2 and -3 are
    k bytes, one LEB128 (-2) or one ULEB-sized block (-3), then n bytes, with steps (k, n). These
    shapes cover nine DIEs in ten, and the scan skips them inline, without a call; -1: other."""
    strs = [i for i, st in enumerate(skip) if type(st) is not int]
    if not strs:
        return sum(skip), skip
    if len(strs) == 1 and skip[strs[0]] in ("L", "B"):
        i = strs[0]
        return (-2 if skip[i] == "L" else -3), (sum(skip[:i]), sum(skip[i + 1:]))
    return -1, skip


_HI_OFFSET_SIZE = {C.DW_FORM_data1: 1, C.DW_FORM_data2: 2, C.DW_FORM_data4: 4, C.DW_FORM_data8: 8}


def _range_recipe(steps: tuple) -> tuple | None:
    """How to read a subroutine's ranges straight from its DIE body, for the two layouts clang emits,
    when everything around them has a fixed size: ("rnglistx", offset of the DW_AT_ranges index) or
    ("lowhigh", offset of a low_pc addrx/addr, bytes between, high_pc form: an offset (data1..8)
    or an address (addr)). None: decode the attributes in general (``range_attrs``)."""
    fields = []  # (offset from the previous field's end, attr, form)
    gap = 0
    for st in steps:
        if type(st) is int:
            gap += st
        elif type(st) is tuple:
            fields.append((gap, st[0], st[1]))
            gap = 0
        else:
            return None
    if len(fields) == 1 and fields[0][1:] == (C.DW_AT_ranges, C.DW_FORM_rnglistx):
        return ("rnglistx", fields[0][0])
    if len(fields) == 2 and fields[0][1] == C.DW_AT_low_pc and fields[1][1] == C.DW_AT_high_pc \
            and fields[0][2] in (C.DW_FORM_addrx, C.DW_FORM_addr) \
            and (fields[1][2] in _HI_OFFSET_SIZE or fields[1][2] == C.DW_FORM_addr):
        return ("lowhigh", fields[0][0], fields[0][2], fields[1][0], fields[1][2])
    return None


def _steps(unit, specs, decode: tuple) -> tuple:
    """Walking steps (see ``_plans``) for attribute ``specs``; attributes in ``decode`` are read."""
    from amddbg.dwarf.info import _FIXED, _OFFSZ_FORMS

    steps: list = []
    for attr, form, ic in specs:
        if attr in decode:
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
        step = _SKIP_STEP.get(form)
        steps.append(step if step is not None else (attr, form, ic))
    return tuple(s for s in steps if s != 0)


_SKIP_STEP = {
    **dict.fromkeys((C.DW_FORM_udata, C.DW_FORM_sdata, C.DW_FORM_ref_udata, C.DW_FORM_strx, C.DW_FORM_addrx,
                     C.DW_FORM_loclistx, C.DW_FORM_rnglistx, C.DW_FORM_GNU_addr_index,
                     C.DW_FORM_GNU_str_index), "L"),
    C.DW_FORM_string: "S", C.DW_FORM_exprloc: "B", C.DW_FORM_block: "B",
    C.DW_FORM_block1: "1", C.DW_FORM_block2: "2", C.DW_FORM_block4: "4",
}


def _walk(buf, pos: int, steps: tuple, read_form, attrs: dict | None = None, forms: dict | None = None) -> int:
    """Run walking ``steps`` from ``pos``; decoded attributes go to ``attrs``/``forms``. New position."""
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
            if attrs is not None:
                attrs[attr] = val
                forms[attr] = form
    return pos


class SubroutineScan:
    """One walk over a unit's DIEs: every subroutine DIE (offset, inlined?, nearest enclosing
    subroutine); ``ranges(i)`` reads its range attributes and decodes them on demand.

    Why lazy: range lists are most of the cost of a cold lookup (a 14 MB rocsparse object has 235k
    ranges in 16k lists), and the nested lookup below needs only the lists on its way down.
    """

    __slots__ = ("unit", "subs", "has_ranges", "orphans", "_ranges", "_plans")

    def __init__(self, unit, subs: ParsedSubs, has_ranges: bytearray, orphans: bool, plans: dict) -> None:
        self.unit = unit
        self.subs = subs
        self.has_ranges = has_ranges  # per subroutine: 1 if its abbreviation has range attributes
        self.orphans = orphans  # a subroutine with ranges inside one without: nesting can't be assumed
        self._ranges: dict[int, list[tuple[int, int, int]]] = {}
        self._plans = plans

    def range_attrs(self, i: int) -> tuple[dict, dict] | None:
        """(attrs, forms) of the range attributes of subroutine ``i`` (None if it has none)."""
        if not self.has_ranges[i]:
            return None
        u = self.unit
        buf = u.dwarf.info_bytes
        code, pos = uleb(buf, self.subs.offs[i])
        attrs: dict = {}
        forms: dict = {}
        _walk(buf, pos, self._plans[code][5], u._read_form, attrs, forms)
        return attrs, forms

    def ranges(self, i: int) -> list[tuple[int, int, int]]:
        """Non-empty ranges of subroutine ``i`` as (lo, hi, i) (LLVM ignores empty ones), decoded once."""
        r = self._ranges.get(i)
        if r is None:
            r = []
            u = self.unit
            try:
                if self.has_ranges[i]:
                    buf = u.dwarf.info_bytes
                    code, pos = uleb(buf, self.subs.offs[i])
                    recipe = self._plans[code][7]
                    if recipe is not None:
                        r = self._ranges[i] = _read_ranges(u, buf, pos, recipe, i)
                        return r
                ra = self.range_attrs(i)  # any other layout: decode the attributes in general
                if ra is not None:
                    d = _D()
                    d.unit = u
                    d.attrs, d.forms = ra
                    r = [(lo, hi, i) for lo, hi in u.dwarf.die_ranges(d) if lo != hi]
            except AmddbgError:
                r = []
            self._ranges[i] = r
        return r


def _read_ranges(u, buf, pos: int, recipe: tuple, i: int) -> list[tuple[int, int, int]]:
    """Ranges (lo, hi, i) of the DIE body at ``pos`` by a ``_range_recipe`` (what ``DwarfInfo.die_ranges``
    gives for these layouts, without building attribute dictionaries)."""
    d = u.dwarf
    if recipe[0] == "rnglistx":
        return d.rnglist(u, d.rnglistx_offset(u, uleb(buf, pos + recipe[1])[0]), i)
    _, at, lo_form, gap, hi_form = recipe
    pos += at
    if lo_form == C.DW_FORM_addrx:
        idx, pos = uleb(buf, pos)
        lo = d.addrx(u, idx)
    else:
        lo = uint(buf, pos, u.addr_size)
        pos += u.addr_size
    pos += gap
    if hi_form == C.DW_FORM_addr:
        hi = uint(buf, pos, u.addr_size)
    else:
        hi = lo + uint(buf, pos, _HI_OFFSET_SIZE[hi_form])
    return [(lo, hi, i)] if lo != hi else []


@guard(".debug_info")
def scan_subroutines(unit) -> SubroutineScan:
    """Walk the unit's DIEs once, skipping every attribute by abbreviation plans, and note the
    subroutine DIEs and their nesting (no attribute of theirs is decoded here)."""
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
    has_ranges = bytearray()
    orphans = False
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
        tag, sub, steps, kids, fixed, _ranged, ranged_attrs, _at = plan
        if fixed >= 0:
            pos += fixed
        elif fixed == -2:
            pos += steps[0]
            while buf[pos] >= 0x80:
                pos += 1
            pos += 1 + steps[1]
        elif fixed == -3:
            n = buf[pos + steps[0]]
            if n < 0x80:
                pos += steps[0] + 1 + n + steps[1]
            else:
                n, pos = uleb(buf, pos + steps[0])
                pos += n + steps[1]
        else:
            pos = _walk(buf, pos, steps, read_form)
        if sub:
            me = len(offs)
            offs.append(start)
            inl.append(tag == INLINED)
            parents.append(cur)
            has_ranges.append(ranged_attrs)
            if ranged_attrs and cur >= 0 and not has_ranges[cur]:
                orphans = True
            if kids:
                stack.append(cur)
                cur = me
        elif kids:
            stack.append(cur)
    return SubroutineScan(unit, ParsedSubs(unit, offs, inl, parents), has_ranges, orphans, plans)


def build_subroutine_map(unit) -> SubroutineMap:
    """LLVM's exact AddrDieMap for ``unit`` (every range decoded; what the on-disk index stores)."""
    return exact_map(scan_subroutines(unit))


@guard(".debug_info")
def exact_map(scan: SubroutineScan) -> SubroutineMap:
    """Replay ``DWARFUnit::updateAddressDieMap`` over every subroutine range in DIE pre-order."""
    groups: list[list[tuple[int, int, int]]] = []  # ranges per top-level subroutine, in DIE order
    group: list[tuple[int, int, int]] = []
    parents = scan.subs.parents
    for i, ranged in enumerate(scan.has_ranges):
        if not ranged:
            continue
        if parents[i] < 0:  # a new top-level subroutine starts a new group
            group = []
            groups.append(group)
        group.extend(scan.ranges(i))
    keys, entries = _address_die_map(groups)
    ks = array("Q", keys)
    vals = [entries[k] for k in keys]
    hs = array("Q", [v[0] for v in vals])
    ix = array("i", [v[1] for v in vals])
    return SubroutineMap(scan.subs, ks, hs, ix)


class NestedSubroutineMap:
    """Address -> innermost subroutine by walking down the DIE tree: at each subroutine, the sorted
    ranges of its child subroutines (decoded on first visit) say which child holds the address.

    Why: LLVM's map needs every range of the unit decoded and replayed; descending decodes only the
    children of subroutines actually visited (about 60% of the ranges for 3000 addresses spread
    over a 14 MB rocsparse object, far less for a few addresses). Both give the same answer when
    ranges nest: siblings do not overlap and each child range lies inside one range of its parent.
    That holds for what compilers emit (an inlined scope's code is part of its caller's) and is
    checked at every level visited; a unit where it fails, or where a subroutine with ranges sits
    inside one without, falls back to the exact replay (``exact_map``), so quirky overlaps still
    resolve as LLVM's map does. Levels never visited are not checked: a child range lying outside
    all of its parent's ranges would be missed there (the tests compare both maps on every corpus
    instruction address).
    """

    def __init__(self, scan: SubroutineScan) -> None:
        self.scan = scan
        self.subs = scan.subs
        self._levels: dict[int, tuple | None] = {}
        self._exact: SubroutineMap | None = exact_map(scan) if scan.orphans else None
        self._kids: dict[int, list[int]] | None = None

    def exact(self) -> SubroutineMap:
        """The exact map (decodes everything; for the on-disk index)."""
        if self._exact is None:
            with paused_gc():
                self._exact = exact_map(self.scan)
        return self._exact

    def _children(self) -> dict[int, list[int]]:
        kids: dict[int, list[int]] = {}
        for i, p in enumerate(self.subs.parents):
            lst = kids.get(p)
            if lst is None:
                kids[p] = [i]
            else:
                lst.append(i)
        return kids

    def _level(self, node: int) -> tuple | None:
        """(los, his, child) of the child subroutines' ranges under ``node`` (-1: the unit), sorted;
        None when they do not nest (overlapping siblings, or a child range not inside one parent range).
        The checks run as ``map`` over whole lists: most levels are small and visited once."""
        if self._kids is None:
            self._kids = self._children()
        ranges = self.scan.ranges
        ents: list[tuple[int, int, int]] = []
        for c in self._kids.get(node, ()):
            ents += ranges(c)
        if not ents:
            return (), (), ()
        ents.sort()
        los, his, who = zip(*ents, strict=True)
        if any(map(operator.lt, his, los)) or any(map(operator.lt, islice(los, 1, None), his)):
            return None
        if node >= 0:
            outer = sorted(ranges(node))
            olos = [-1] + [o[0] for o in outer]
            ohis = [-1] + [o[1] for o in outer]
            # the parent range that could hold each child range: the last one starting at or below it
            bounds = map(ohis.__getitem__, map(operator.sub, map(bisect.bisect_right, repeat(olos), los),
                                               repeat(1)))
            if any(map(operator.gt, his, bounds)):
                return None
        return los, his, who

    def leaf(self, address: int) -> int:
        if self._exact is not None:
            return self._exact.leaf(address)
        levels = self._levels
        node = -1
        while True:
            lv = levels.get(node, False)
            if lv is False:
                if self._kids is not None and node not in self._kids:
                    return node  # no child subroutines: nothing to descend into
                with paused_gc():
                    lv = levels[node] = self._level(node)
            if lv is None:
                return self.exact().leaf(address)
            los, his, who = lv
            j = bisect.bisect_right(los, address) - 1
            if j < 0 or address >= his[j]:
                return node
            node = who[j]

    def chain(self, address: int) -> list[Subroutine]:
        """Innermost first: inlined subroutines, then the subprogram (LLVM getInlinedChainForAddress)."""
        return _chain(self.subs, self.leaf(address))


def _chain(subs, i: int) -> list[Subroutine]:
    out = []
    while i >= 0:
        s = subs[i]
        out.append(s)
        if not s.inlined:
            break
        i = s.parent
    return out


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


_LINKAGE = (C.DW_AT_MIPS_linkage_name, C.DW_AT_linkage_name)


def _names_and_line(dwarf, unit, attrs, cache) -> tuple[str | None, str | None, int]:
    """(linkage name, name, decl_line) as three ``_find_recursively`` calls would find them, in one
    walk: the first value in the same breadth-first order over abstract_origin/specification links."""
    found: list = [None, None, None]
    missing = 3
    work = [(attrs, unit)]
    seen = set()
    k = 0
    while k < len(work) and missing:
        a, u = work[k]
        k += 1
        if found[0] is None:
            for w in _LINKAGE:
                v = a.get(w)
                if v is not None:
                    found[0] = v
                    missing -= 1
                    break
        if found[1] is None:
            v = a.get(C.DW_AT_name)
            if v is not None:
                found[1] = v
                missing -= 1
        if found[2] is None:
            v = a.get(C.DW_AT_decl_line)
            if v is not None:
                found[2] = v
                missing -= 1
        for link in (C.DW_AT_abstract_origin, C.DW_AT_specification):
            r = a.get(link)
            if isinstance(r, Ref) and r not in seen:
                seen.add(r)
                try:
                    work.append(_attrs_at(dwarf, u, int(r), cache))
                except AmddbgError:
                    pass
    linkage, short, line = found
    return (linkage if isinstance(linkage, str) else None, short if isinstance(short, str) else None,
            line if isinstance(line, int) else 0)


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
