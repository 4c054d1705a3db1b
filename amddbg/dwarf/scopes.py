"""Scopes and variables at a PC: subprogram -> lexical blocks / inlined subroutines -> variables.

``scopes_at(dwarf, pc)`` returns the nest of scopes containing ``pc``, innermost first, each with
its variables and parameters (names through ``DW_AT_abstract_origin`` for inlined copies), their
types and their location (an expression, a location list resolved at ``pc``, or none:
``<optimized out>``). ``variable_value`` evaluates a location with the expression evaluator in
``amddbg.dwarf.expr`` for a set of lanes and returns the bytes per lane; ``format_lanes`` prints them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from amddbg.dwarf import constants as C
from amddbg.dwarf.info import Die, Expr, Ref
from amddbg.dwarf.types import Type, type_of
from amddbg.errors import AmddbgError, NotSupported

_SCOPE_TAGS = {C.DW_TAG_subprogram: "subprogram", C.DW_TAG_inlined_subroutine: "inlined",
               C.DW_TAG_lexical_block: "lexical_block"}
_LOCLIST_FORMS = (C.DW_FORM_sec_offset, C.DW_FORM_loclistx, C.DW_FORM_data4, C.DW_FORM_data8)


def _origin_attr(die: Die, attr: int):
    d = die
    seen = set()
    while d is not None and d.offset not in seen:
        seen.add(d.offset)
        if attr in d.attrs:
            return d.attrs[attr]
        r = d.attrs.get(C.DW_AT_abstract_origin) or d.attrs.get(C.DW_AT_specification)
        d = d.unit.dwarf.die(int(r)) if isinstance(r, Ref) else None
    return None


@dataclass
class Variable:
    die: Die
    name: str | None
    type: Type
    is_parameter: bool
    decl_file: int | None
    decl_line: int | None
    const_value: object = None

    def location_at(self, pc: int | None) -> bytes | None:
        """Location expression in effect at ``pc`` (None: optimized out / no location)."""
        d = self.die
        if C.DW_AT_location not in d.attrs:
            return None
        v = d.attrs[C.DW_AT_location]
        form = d.forms[C.DW_AT_location]
        if isinstance(v, Expr | bytes):
            return bytes(v)
        if form in _LOCLIST_FORMS or form == C.DW_FORM_loclistx:
            entries = d.unit.dwarf.location_list(d.unit, v, form)
            default = None
            for lo, hi, expr in entries:
                if lo is None:
                    default = expr
                elif pc is not None and lo <= pc < hi:
                    return expr
            return default
        return None

    def location_list(self) -> list[tuple[int | None, int | None, bytes]]:
        d = self.die
        v = d.attrs.get(C.DW_AT_location)
        if v is None:
            return []
        if isinstance(v, Expr | bytes):
            return [(None, None, bytes(v))]
        return d.unit.dwarf.location_list(d.unit, v, d.forms[C.DW_AT_location])


@dataclass
class Scope:
    die: Die
    kind: str  # subprogram | inlined | lexical_block
    name: str | None
    linkage_name: str | None
    ranges: list[tuple[int, int]]
    variables: list[Variable] = field(default_factory=list)
    call_file: str | None = None
    call_line: int | None = None
    call_column: int | None = None

    @property
    def frame_base(self) -> bytes | None:
        fb = _origin_attr(self.die, C.DW_AT_frame_base) if self.kind == "subprogram" else None
        return bytes(fb) if isinstance(fb, bytes) else None

    def parameters(self) -> list[Variable]:
        return [v for v in self.variables if v.is_parameter]

    @property
    def template_params(self) -> list[tuple[str, str, object]]:
        """Template parameters of the (abstract origin of the) subprogram: (kind, name, type/value)."""
        d = self.die
        seen = set()
        while d is not None and d.offset not in seen:
            seen.add(d.offset)
            tp = Type(d).template_params
            if tp:
                return tp
            r = d.attrs.get(C.DW_AT_abstract_origin) or d.attrs.get(C.DW_AT_specification)
            d = d.unit.dwarf.die(int(r)) if isinstance(r, Ref) else None
        return []


def _variables(scope_die: Die) -> list[Variable]:
    out = []
    for c in scope_die.children or []:
        if c.tag not in (C.DW_TAG_variable, C.DW_TAG_formal_parameter):
            continue
        out.append(Variable(c, _origin_attr(c, C.DW_AT_name), type_of(c), c.tag == C.DW_TAG_formal_parameter,
                            _origin_attr(c, C.DW_AT_decl_file), _origin_attr(c, C.DW_AT_decl_line),
                            c.attrs.get(C.DW_AT_const_value)))
    return out


def _make_scope(die: Die) -> Scope:
    dwarf = die.unit.dwarf
    kind = _SCOPE_TAGS[die.tag]
    sc = Scope(die, kind, _origin_attr(die, C.DW_AT_name),
               _origin_attr(die, C.DW_AT_linkage_name) or _origin_attr(die, C.DW_AT_MIPS_linkage_name),
               dwarf.die_ranges(die), _variables(die))
    if kind == "inlined":
        lt = dwarf.line_table(die.unit)
        cf = die.attrs.get(C.DW_AT_call_file)
        sc.call_file = lt.file_path(cf) if (lt is not None and isinstance(cf, int)) else None
        sc.call_line = die.attrs.get(C.DW_AT_call_line)
        sc.call_column = die.attrs.get(C.DW_AT_call_column)
    return sc


def scopes_at(dwarf, pc: int) -> list[Scope]:
    """Scopes containing ``pc``, innermost first (empty if no unit covers it)."""
    from amddbg.dwarf.index import build_cu_ranges

    cr = getattr(dwarf, "_cu_ranges_cache", None)
    if cr is None:
        cr = dwarf._cu_ranges_cache = build_cu_ranges(dwarf)
    cu = cr.find(pc)
    if cu is None:
        return []
    unit = dwarf.unit(cu)
    chain: list[Die] = []

    def walk(d: Die) -> bool:
        for c in d.children or []:
            if c.tag in _SCOPE_TAGS:
                try:
                    rs = dwarf.die_ranges(c)
                except AmddbgError:
                    rs = []
                if any(lo <= pc < hi for lo, hi in rs):
                    chain.append(c)
                    walk(c)
                    return True
            elif c.tag in (C.DW_TAG_namespace, C.DW_TAG_structure_type, C.DW_TAG_class_type):
                if walk(c):
                    return True
        return False

    walk(unit.root)
    return [_make_scope(d) for d in reversed(chain)]


def subprograms(dwarf):
    """Every concrete subprogram DIE (with code) of every unit."""
    for u in dwarf.units():
        for d in u.dies().values():
            if d.tag == C.DW_TAG_subprogram and (C.DW_AT_low_pc in d.attrs or C.DW_AT_ranges in d.attrs):
                yield d


def variable_value(var: Variable, pc: int, context, lanes, *, encoding=None, load_bias: int = 0) -> dict:
    """Bytes of ``var`` per lane: lane -> bytes | None (optimized out) | exception.

    Evaluates the location at ``pc`` with ``amddbg.dwarf.expr`` (once for all lanes when the
    expression does not depend on the lane) and reads ``type.size`` bytes from each lane's location.
    Base types and `.debug_addr` come from the variable's unit (``load_bias``: the code object's load
    address, added to `DW_OP_addrx` addresses).
    """
    lanes = list(lanes)
    if var.const_value is not None:
        cv = var.const_value
        size = var.type.size or 8
        data = bytes(cv) if isinstance(cv, bytes) else int(cv).to_bytes(size, "little", signed=cv < 0)
        return {ln: data for ln in lanes}
    expr = var.location_at(pc)
    if expr is None:
        return {ln: None for ln in lanes}
    try:
        from amddbg.dwarf import expr as E
    except ImportError:  # pragma: no cover - evaluator is part of the package
        raise NotSupported("DWARF expression evaluation") from None
    size = var.type.size
    if size is None:
        raise NotSupported(f"reading a value of type {var.type.name!r} (unknown size)")
    unit = var.die.unit
    from amddbg.dwarf.unitctx import UnitContext

    context = UnitContext(context, unit, load_bias=load_bias)
    # The producer decides what upstream idioms mean (xderef literals, whole-wave VGPR registers) and
    # which vendor-op encoding the unit uses: evaluate as that producer meant it.
    info = unit.dwarf.producer_info(unit)
    opts = {"address_size": unit.addr_size, "offset_size": unit.offset_size,
            **E.producer_options(info.producer, info.augmentation)}
    if encoding is not None:
        opts["encoding"] = encoding
    res = E.evaluate_lanes(expr, context, lanes, **opts)
    out = {}
    for ln in lanes:
        loc = res.locations.get(ln)
        if isinstance(loc, Exception):
            out[ln] = None if isinstance(loc, E.UndefinedLocation) else loc
            continue
        if opts.get("lane_slice_vector_registers") and size > 4 and _is_vgpr_slice(loc):
            # one lane's dword cannot hold more than 4 bytes: reading on would return the next lane's
            out[ln] = NotSupported(f"a {size}-byte {var.type.name or 'value'} in one lane's 32-bit slice of a "
                                   "vector register")
            continue
        try:
            out[ln] = E.read_bytes(context, loc, size, lane=ln)
        except E.UndefinedLocation:
            out[ln] = None  # the location says the value is not there: <optimized out>
        except AmddbgError as exc:
            out[ln] = exc
    return out


def _is_vgpr_slice(loc) -> bool:
    from amddbg.dwarf.expr.location import Register
    from amddbg.dwarf.expr.regs import register_info

    if len(loc.singles) != 1 or not isinstance(loc.singles[0].storage, Register):
        return False
    info = register_info(loc.singles[0].storage.number)
    return info is not None and info.is_vector


def location_expressions(dwarf):
    """Every `DW_AT_location` / `DW_AT_frame_base` expression of a `DwarfInfo`, location lists expanded:
    dicts with unit, die, attr ("location"/"frame_base"), name, lo, hi (None: an exprloc), expr bytes. (The
    location-shape census, corefiles/make_location_shapes.py, walks the corpus with it.)"""
    for unit in dwarf.units():
        for die in unit.dies().values():
            for attr, label in ((C.DW_AT_location, "location"), (C.DW_AT_frame_base, "frame_base")):
                if attr not in die.attrs:
                    continue
                v = die.attrs[attr]
                name = _origin_attr(die, C.DW_AT_name)
                if isinstance(v, Expr | bytes):
                    yield {"unit": unit, "die": die, "attr": label, "name": name, "lo": None, "hi": None,
                           "expr": bytes(v)}
                    continue
                for lo, hi, expr in dwarf.location_list(unit, v, die.forms[attr]):
                    yield {"unit": unit, "die": die, "attr": label, "name": name, "lo": lo, "hi": hi,
                           "expr": bytes(expr)}
