"""Types from DIEs: names spelled as llvm-dwarfdump spells them, sizes, members, address spaces.

``Type`` wraps a type DIE (or None for ``void``). ``name`` follows LLVM's ``DWARFTypePrinter`` so the
corpus' stored ``llvm-dwarfdump-22`` dumps are an oracle for it: ``int *``, ``const float *``,
``int *const``, ``int[64]``, ``void (*)(int)``, ``structure `` for an unnamed struct, scopes as
``ns::T``. Pointers carry their address space: ``DW_AT_LLVM_address_space`` (current AMD fork) or
``DW_AT_address_class`` read with the producer's numbering (clang <= 21: 1 private, 2 local;
LLVM 22: DW_ASPACE_*), see ``amddbg.dwarf.producer``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from amddbg.dwarf import constants as C
from amddbg.dwarf.info import Die, Ref

_CV = (C.DW_TAG_const_type, C.DW_TAG_volatile_type)
_PTRLIKE = {C.DW_TAG_pointer_type: "*", C.DW_TAG_reference_type: "&", C.DW_TAG_rvalue_reference_type: "&&"}
_SCOPES = (C.DW_TAG_namespace, C.DW_TAG_structure_type, C.DW_TAG_class_type, C.DW_TAG_union_type,
           C.DW_TAG_enumeration_type)
_FORTRAN_LIKE = {0x0007, 0x0008, 0x000E, 0x0022, 0x0023, 0x0003, 0x000D, 0x002E, 0x0013}  # lower bound 1


def referenced(die: Die | None) -> Die | None:
    """The DIE named by DW_AT_type (None: void / absent)."""
    if die is None:
        return None
    r = die.attrs.get(C.DW_AT_type)
    if not isinstance(r, Ref):
        return None
    return die.unit.dwarf.die(int(r))


@dataclass(frozen=True)
class Member:
    name: str | None
    type: Type
    offset: int | None  # bytes
    bit_size: int | None = None
    bit_offset: int | None = None  # from the start of the member's storage (DW_AT_data_bit_offset)


def normalize_type_name(name: str) -> str:
    """`struct Particle`, `const Particle`, `Particle` -> `Particle`: the form value printers are matched in, so
    one registered as "Particle" matches C's `struct Particle` and C++'s `Particle`, const or not."""
    text = " ".join(name.split())
    changed = True
    while changed:
        changed = False
        for word in ("const ", "volatile ", "struct ", "class ", "union ", "enum "):
            if text.startswith(word):
                text = text[len(word):]
                changed = True
    return text


class Type:
    """A type DIE with derived facts. ``Type(None)`` is void."""

    def __init__(self, die: Die | None) -> None:
        self.die = die

    def __repr__(self) -> str:
        return f"<Type {self.name!r}>"

    def __eq__(self, other) -> bool:
        return isinstance(other, Type) and (self.die.offset if self.die else None) == (
            other.die.offset if other.die else None)

    def __hash__(self) -> int:
        return hash(self.die.offset if self.die else None)

    @property
    def tag(self) -> int | None:
        return self.die.tag if self.die is not None else None

    @cached_property
    def name(self) -> str:
        p = _Printer()
        p.qualified(self.die)
        return "".join(p.out)

    @property
    def target(self) -> Type:
        """The type this one refers to (pointee, element, underlying, qualified)."""
        return Type(referenced(self.die))

    def strip(self) -> Type:
        """Through typedefs and const/volatile/atomic/restrict to the structural type."""
        t = self
        while t.die is not None and t.tag in (C.DW_TAG_typedef, C.DW_TAG_const_type, C.DW_TAG_volatile_type,
                                              C.DW_TAG_atomic_type, C.DW_TAG_restrict_type):
            t = t.target
        return t

    @property
    def kind(self) -> str:
        """void, base, pointer, reference, array, struct, union, class, enum, typedef, const, volatile,
        atomic, restrict, subroutine, unspecified, other."""
        if self.die is None:
            return "void"
        return {C.DW_TAG_base_type: "base", C.DW_TAG_pointer_type: "pointer",
                C.DW_TAG_reference_type: "reference", C.DW_TAG_rvalue_reference_type: "reference",
                C.DW_TAG_array_type: "array", C.DW_TAG_structure_type: "struct", C.DW_TAG_union_type: "union",
                C.DW_TAG_class_type: "class", C.DW_TAG_enumeration_type: "enum", C.DW_TAG_typedef: "typedef",
                C.DW_TAG_const_type: "const", C.DW_TAG_volatile_type: "volatile",
                C.DW_TAG_atomic_type: "atomic", C.DW_TAG_restrict_type: "restrict",
                C.DW_TAG_subroutine_type: "subroutine", C.DW_TAG_unspecified_type: "unspecified",
                }.get(self.die.tag, "other")

    @property
    def encoding(self) -> int | None:
        return self.die.attrs.get(C.DW_AT_encoding) if self.die is not None else None

    @cached_property
    def size(self) -> int | None:
        """Size in bytes (pointers: the unit's address size unless DW_AT_byte_size says otherwise)."""
        d = self.die
        if d is None:
            return None
        bs = d.attrs.get(C.DW_AT_byte_size)
        if isinstance(bs, int):
            return bs
        k = self.kind
        if k in ("pointer", "reference"):
            return d.unit.addr_size
        if k in ("typedef", "const", "volatile", "atomic", "restrict", "enum"):
            return self.target.size
        if k == "array":
            el = self.target.size
            if el is None:
                return None
            n = 1
            for c in self.dims:
                if c is None:
                    return None
                n *= c
            return el * n
        return None

    @cached_property
    def dims(self) -> list[int | None]:
        """Element counts of an array type, outermost first (None: unknown bound)."""
        out: list[int | None] = []
        if self.die is None or self.die.tag != C.DW_TAG_array_type:
            return out
        lang = self.die.unit.language
        default_lb = 1 if lang in _FORTRAN_LIKE else 0
        for c in self.die.children or []:
            if c.tag not in (C.DW_TAG_subrange_type, C.DW_TAG_generic_subrange):
                continue
            cnt = c.attrs.get(C.DW_AT_count)
            ub = c.attrs.get(C.DW_AT_upper_bound)
            lb = c.attrs.get(C.DW_AT_lower_bound, default_lb)
            if isinstance(cnt, int) and not isinstance(cnt, Ref):
                out.append(cnt)
            elif isinstance(ub, int) and not isinstance(ub, Ref) and isinstance(lb, int):
                out.append(ub - lb + 1)
            else:
                out.append(None)
        return out

    @cached_property
    def members(self) -> list[Member]:
        d = self.die
        if d is None or d.tag not in (C.DW_TAG_structure_type, C.DW_TAG_class_type, C.DW_TAG_union_type):
            return []
        out = []
        for c in d.children or []:
            if c.tag not in (C.DW_TAG_member, C.DW_TAG_inheritance) or c.attrs.get(C.DW_AT_external):
                continue
            if c.attrs.get(C.DW_AT_declaration):
                continue
            loc = c.attrs.get(C.DW_AT_data_member_location)
            off = loc if isinstance(loc, int) and not isinstance(loc, bytes) else None
            dbo = c.attrs.get(C.DW_AT_data_bit_offset)
            bsz = c.attrs.get(C.DW_AT_bit_size)
            if off is None and isinstance(dbo, int):
                off, dbo = dbo // 8, dbo % 8
            if off is None and d.tag == C.DW_TAG_union_type:
                off = 0
            name = c.attrs.get(C.DW_AT_name)
            if c.tag == C.DW_TAG_inheritance:
                name = Type(referenced(c)).name
            out.append(Member(name, Type(referenced(c)), off, bsz, dbo))
        return out

    @cached_property
    def enumerators(self) -> list[tuple[str, int]]:
        d = self.die
        if d is None or d.tag != C.DW_TAG_enumeration_type:
            return []
        return [(c.attrs.get(C.DW_AT_name, "?"), c.attrs.get(C.DW_AT_const_value, 0))
                for c in d.children or [] if c.tag == C.DW_TAG_enumerator]

    @cached_property
    def template_params(self) -> list[tuple[str, str, object]]:
        """(kind 'type'|'value'|'pack', name, Type or constant) of template parameters."""
        d = self.die
        out = []
        for c in (d.children or []) if d is not None else []:
            if c.tag == C.DW_TAG_template_type_parameter:
                out.append(("type", c.attrs.get(C.DW_AT_name, ""), Type(referenced(c))))
            elif c.tag == C.DW_TAG_template_value_parameter:
                out.append(("value", c.attrs.get(C.DW_AT_name, ""), c.attrs.get(C.DW_AT_const_value)))
            elif c.tag == C.DW_TAG_GNU_template_parameter_pack:
                out.append(("pack", c.attrs.get(C.DW_AT_name, ""), [Type(referenced(x)) for x in c.children or []]))
        return out

    @property
    def address_space(self) -> str | None:
        """Address space of a pointer/reference: from DW_AT_LLVM_address_space (current AMD fork
        numbering, DW_ASPACE_*) or DW_AT_address_class with the producer's numbering."""
        d = self.die
        if d is None or d.tag not in _PTRLIKE:
            return None
        pi = d.unit.dwarf.producer_info(d.unit)
        from amddbg.dwarf.producer import DW_ASPACE, OLD_CLANG_ASPACE

        v = d.attrs.get(pi.lane_attr("address_space"))
        if isinstance(v, int):
            return DW_ASPACE.get(v)
        v = d.attrs.get(C.DW_AT_address_class)
        if isinstance(v, int):
            if pi.aspace_numbering == "dwarf-aspace":
                return DW_ASPACE.get(v)
            return OLD_CLANG_ASPACE.get(v)
        return None

    @property
    def is_signed(self) -> bool:
        e = self.strip().encoding
        return e in (C.DW_ATE_signed, C.DW_ATE_signed_char, C.DW_ATE_signed_fixed)


def type_of(die: Die) -> Type:
    """Type of a variable/parameter/member/subprogram DIE (through abstract origins)."""
    d = die
    seen = set()
    while d is not None and C.DW_AT_type not in d.attrs and d.offset not in seen:
        seen.add(d.offset)
        r = d.attrs.get(C.DW_AT_abstract_origin) or d.attrs.get(C.DW_AT_specification)
        d = d.unit.dwarf.die(int(r)) if isinstance(r, Ref) else None
    return Type(referenced(d))


class _Printer:
    """LLVM DWARFTypePrinter, the parts C/C++/OpenCL/HIP types need."""

    def __init__(self) -> None:
        self.out: list[str] = []
        self.word = True

    def w(self, s: str) -> None:
        self.out.append(s)

    def qualified(self, d: Die | None) -> None:
        inner = self.before(d, scopes=True)
        self.after(d, inner)

    def scopes(self, d: Die | None) -> None:
        chain = []
        p = d.parent if d is not None else None
        while p is not None and p.tag in _SCOPES:
            chain.append(p)
            p = p.parent
        for s in reversed(chain):
            n = s.attrs.get(C.DW_AT_name)
            if n is None:
                n = "(anonymous namespace)" if s.tag == C.DW_TAG_namespace else "(anonymous " + {
                    C.DW_TAG_structure_type: "struct", C.DW_TAG_class_type: "class",
                    C.DW_TAG_union_type: "union", C.DW_TAG_enumeration_type: "enum"}[s.tag] + ")"
            self.w(n + "::")

    def before(self, d: Die | None, scopes: bool = False) -> Die | None:
        if d is None:
            self.w("void")
            self.word = True
            return None
        if scopes:
            self.scopes(d)
        t = d.tag
        inner = referenced(d)
        if t in _PTRLIKE:
            self.before(inner, scopes=True)
            if self.word:
                self.w(" ")
            if inner is not None and inner.tag in (C.DW_TAG_subroutine_type, C.DW_TAG_array_type):
                self.w("(")
            self.w(_PTRLIKE[t])
            self.word = False
            return inner
        if t == C.DW_TAG_subroutine_type:
            self.before(inner, scopes=True)
            if self.word:
                self.w(" ")
            self.word = False
            return inner
        if t == C.DW_TAG_array_type:
            self.before(inner, scopes=True)
            return inner
        if t in _CV:
            return self.cv_before(d)
        if t == C.DW_TAG_unspecified_type:
            n = d.attrs.get(C.DW_AT_name, "")
            self.w("std::nullptr_t" if n == "decltype(nullptr)" else n)
            self.word = True
            return inner
        n = d.attrs.get(C.DW_AT_name)
        if n is None:
            tn = C.TAGS.get(t, "")
            if tn.endswith("_type"):
                self.w(tn[:-5] + " ")
            return None
        self.w(n)
        self.word = True
        return inner

    def cv_before(self, d: Die) -> Die | None:
        c = v = None
        t = d
        while t is not None and t.tag in _CV:
            if t.tag == C.DW_TAG_const_type:
                c = t
            else:
                v = t
            t = referenced(t)
        post = t is not None and t.tag in (C.DW_TAG_pointer_type, C.DW_TAG_reference_type,
                                           C.DW_TAG_rvalue_reference_type, C.DW_TAG_subroutine_type,
                                           C.DW_TAG_ptr_to_member_type)
        if not post:
            if c is not None:
                self.w("const ")
            if v is not None:
                self.w("volatile ")
        self._cv_pending = (c, v, post)
        inner = self.before(t, scopes=True)
        if post and t is not None and t.tag != C.DW_TAG_subroutine_type:
            if c is not None:
                self.w("const")
                self.word = True
            if v is not None:
                self.w(" volatile" if c is not None else "volatile")
                self.word = True
        self._cv_target = t
        return t if t is not inner else inner

    def after(self, d: Die | None, inner: Die | None) -> None:
        if d is None:
            return
        t = d.tag
        if t in _PTRLIKE:
            if inner is not None and inner.tag in (C.DW_TAG_subroutine_type, C.DW_TAG_array_type):
                self.w(")")
            self.after(inner, referenced(inner) if inner is not None else None)
        elif t == C.DW_TAG_subroutine_type:
            self.w("(")
            first = True
            for p in d.children or []:
                if p.tag not in (C.DW_TAG_formal_parameter, C.DW_TAG_unspecified_parameters):
                    break
                if not first:
                    self.w(", ")
                first = False
                if p.tag == C.DW_TAG_unspecified_parameters:
                    self.w("...")
                else:
                    self.qualified(referenced(p))
            self.w(")")
            self.after(inner, referenced(inner) if inner is not None else None)
        elif t == C.DW_TAG_array_type:
            lang = d.unit.language
            default_lb = 1 if lang in _FORTRAN_LIKE else 0
            for c in d.children or []:
                if c.tag != C.DW_TAG_subrange_type:
                    continue
                lb = c.attrs.get(C.DW_AT_lower_bound)
                cnt = c.attrs.get(C.DW_AT_count)
                ub = c.attrs.get(C.DW_AT_upper_bound)
                lb = None if not isinstance(lb, int) or lb == default_lb else lb
                cnt = cnt if isinstance(cnt, int) and not isinstance(cnt, Ref) else None
                ub = ub if isinstance(ub, int) and not isinstance(ub, Ref) else None
                if lb is None and cnt is None and ub is None:
                    self.w("[]")
                elif lb is None:
                    self.w(f"[{cnt if cnt is not None else ub - default_lb + 1}]")
                else:
                    hi = str(lb + cnt) if cnt is not None else (str(ub + 1) if ub is not None else "?")
                    self.w(f"[[{lb}, {hi})]")
            self.after(inner, referenced(inner) if inner is not None else None)
        elif t in _CV:
            tgt = d
            while tgt is not None and tgt.tag in _CV:
                tgt = referenced(tgt)
            if tgt is not None:
                self.after(tgt, referenced(tgt))
