"""A small Itanium C++ ABI demangler producing LLVM's spelling (what ``llvm-addr2line -C`` prints).

Why our own: ``addr2line -C`` must match llvm-cxxfilt byte for byte (``256u`` literals, ``>>``
without a space, ``'lambda'(...)``, ``(anonymous namespace)``); GNU c++filt spells several of these
differently, and the pure-Python PyPI demanglers follow yet other styles. Covered: nested/local/
unscoped names, template args (types, integer/bool literals, packs), substitutions, template
parameters, ctor/dtor, operators, cv/ref qualifiers, pointers/references/arrays/function types,
pointer-to-member, std:: abbreviations, ABI tags, lambdas and unnamed types, vtable/typeinfo/guard
names. Anything else raises internally and we fall back to c++filt when installed, else return the
mangled name unchanged (which is also what LLVM prints for names it cannot demangle).
"""

from __future__ import annotations

from functools import lru_cache

BUILTIN = {
    "v": "void", "w": "wchar_t", "b": "bool", "c": "char", "a": "signed char", "h": "unsigned char",
    "s": "short", "t": "unsigned short", "i": "int", "j": "unsigned int", "l": "long",
    "m": "unsigned long", "x": "long long", "y": "unsigned long long", "n": "__int128",
    "o": "unsigned __int128", "f": "float", "d": "double", "e": "long double", "g": "__float128",
    "z": "...",
}
DBUILTIN = {"d": "decimal64", "e": "decimal128", "f": "decimal32", "h": "half", "i": "char32_t",
            "s": "char16_t", "u": "char8_t", "a": "auto", "c": "decltype(auto)", "n": "std::nullptr_t"}
LITERAL_SUFFIX = {"j": "u", "l": "l", "m": "ul", "x": "ll", "y": "ull", "i": "", "s": "", "t": ""}
OPERATORS = {
    "nw": "new", "na": "new[]", "dl": "delete", "da": "delete[]", "ps": "+", "ng": "-", "ad": "&",
    "de": "*", "co": "~", "pl": "+", "mi": "-", "ml": "*", "dv": "/", "rm": "%", "an": "&", "or": "|",
    "eo": "^", "aS": "=", "pL": "+=", "mI": "-=", "mL": "*=", "dV": "/=", "rM": "%=", "aN": "&=",
    "oR": "|=", "eO": "^=", "ls": "<<", "rs": ">>", "lS": "<<=", "rS": ">>=", "eq": "==", "ne": "!=",
    "lt": "<", "gt": ">", "le": "<=", "ge": ">=", "ss": "<=>", "nt": "!", "aa": "&&", "oo": "||",
    "pp": "++", "mm": "--", "cm": ",", "pm": "->*", "pt": "->", "cl": "()", "ix": "[]", "qu": "?",
}
STD_SUBST = {"a": "std::allocator", "b": "std::basic_string", "s": "std::string",
             "i": "std::istream", "o": "std::ostream", "d": "std::iostream"}


class _Fail(Exception):
    pass


class T:
    """A type as LLVM prints it: ``left`` + declarator + ``right``; kind drives pointer syntax."""

    __slots__ = ("left", "right", "kind", "pack")

    def __init__(self, left: str, right: str = "", kind: str = "plain") -> None:
        self.left, self.right, self.kind = left, right, kind
        self.pack = False

    def __str__(self) -> str:
        return self.left + self.right


class Name:
    """A (possibly qualified) name; ``base`` is the last unqualified component (for ctor/dtor)."""

    __slots__ = ("text", "base", "templated", "cv", "ref", "is_ctor_dtor")

    def __init__(self, text: str, base: str = "", templated: bool = False) -> None:
        self.text, self.base, self.templated = text, base or text, templated
        self.cv = ""
        self.ref = ""
        self.is_ctor_dtor = False

    def __str__(self) -> str:
        return self.text


class _P:
    def __init__(self, s: str) -> None:
        self.s = s
        self.i = 0
        self.subs: list = []
        self.tparams: list = []
        self.pending_tparams: list | None = None

    # ------------------------------------------------------------- helpers
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def eat(self, t: str) -> bool:
        if self.s.startswith(t, self.i):
            self.i += len(t)
            return True
        return False

    def need(self, t: str) -> None:
        if not self.eat(t):
            raise _Fail(t)

    def number(self) -> int:
        neg = self.eat("n")
        j = self.i
        while self.peek().isdigit():
            self.i += 1
        if j == self.i:
            raise _Fail("number")
        v = int(self.s[j:self.i])
        return -v if neg else v

    def seq_id(self) -> int:
        """<seq-id> before '_' (base 36, upper-case); S_ is 0, S0_ is 1."""
        if self.eat("_"):
            return 0
        j = self.i
        while self.peek() and (self.peek().isdigit() or self.peek().isupper()):
            self.i += 1
        v = int(self.s[j:self.i], 36) if self.i > j else None
        self.need("_")
        if v is None:
            raise _Fail("seq")
        return v + 1

    # ------------------------------------------------------------- encoding
    def encoding(self) -> str:
        if self.peek() in ("T", "G") and self.peek(1) in "VISTR" and self.peek() + self.peek(1) in (
                "TV", "TI", "TS", "TT", "GV"):
            k = self.s[self.i:self.i + 2]
            self.i += 2
            if k == "GV":
                return "guard variable for " + str(self.name())
            t = self.type_()
            return {"TV": "vtable for ", "TI": "typeinfo for ", "TS": "typeinfo name for ",
                    "TT": "VTT for "}[k] + str(t)
        name = self.name(top=True)
        if self.i >= len(self.s) or self.peek() == "E" or self.peek() == ".":
            return str(name)
        ret = None
        if name.templated and not name.is_ctor_dtor:
            ret = self.type_()
        params = []
        while self.i < len(self.s) and self.peek() not in ("E", "."):
            params.append(self.type_())
        if len(params) == 1 and str(params[0]) == "void":
            params = []
        params = [p for p in params if str(p) != ""]
        out = ""
        if ret is not None:
            out = ret.left + ("" if ret.left.endswith(("*", "&")) else " ")
        out += str(name) + "(" + ", ".join(str(p) for p in params) + ")"
        if ret is not None:
            out += ret.right
        out += name.cv + name.ref
        return out

    # ------------------------------------------------------------- names
    def name(self, top: bool = False) -> Name:
        c = self.peek()
        if c == "N":
            return self.nested(top)
        if c == "Z":
            return self.local(top)
        if c == "S" and self.peek(1) != "t":
            n = self.substitution()
            if self.peek() == "I":
                args, txt = self.template_args(top)
                return Name(str(n) + txt, str(n), True)
            return n if isinstance(n, Name) else Name(str(n))
        std = self.eat("St")
        n = self.unqualified(None)
        if std:
            n = Name("std::" + n.text, n.base)
        if self.peek() == "I":
            self.subs.append(n)
            args, txt = self.template_args(top)
            return Name(n.text + txt, n.base, True)
        return n

    def local(self, top: bool) -> Name:
        self.need("Z")
        saved = self.tparams
        enc = self.encoding_inner()
        self.need("E")
        if self.eat("s"):
            self._discriminator()
            return Name(enc + "::string literal")
        if self.eat("d"):
            self.number() if self.peek() != "_" else None
            self.need("_")
            inner = self.name(top)
            return Name(enc + "::" + inner.text, inner.base, inner.templated)
        inner = self.name(top)
        self._discriminator()
        self.tparams = self.tparams or saved
        n = Name(enc + "::" + inner.text, inner.base, inner.templated)
        n.cv, n.ref, n.is_ctor_dtor = inner.cv, inner.ref, inner.is_ctor_dtor
        return n

    def encoding_inner(self) -> str:
        # an <encoding> that stops at 'E' (used inside local names)
        name = self.name(top=True)
        if self.peek() == "E":
            return str(name)
        ret = None
        if name.templated and not name.is_ctor_dtor:
            ret = self.type_()
        params = []
        while self.peek() and self.peek() != "E":
            params.append(self.type_())
        if len(params) == 1 and str(params[0]) == "void":
            params = []
        params = [p for p in params if str(p) != ""]
        out = ""
        if ret is not None:
            out = ret.left + ("" if ret.left.endswith(("*", "&")) else " ")
        out += str(name) + "(" + ", ".join(str(p) for p in params) + ")"
        if ret is not None:
            out += ret.right
        return out + name.cv + name.ref

    def _discriminator(self) -> None:
        if self.eat("__"):
            self.number()
            self.need("_")
        elif self.eat("_"):
            if self.peek().isdigit():
                self.i += 1

    def nested(self, top: bool) -> Name:
        self.need("N")
        cv = ""
        while self.peek() in ("r", "V", "K"):
            q = self.peek()
            self.i += 1
            cv += {"K": " const", "V": " volatile", "r": " restrict"}[q]
        ref = ""
        if self.eat("R"):
            ref = " &"
        elif self.eat("O"):
            ref = " &&"
        so_far: Name | None = None
        templated = False
        ctor = False
        while not self.eat("E"):
            self.eat("L")
            templated = False
            if self.peek() == "T":
                t = self.template_param()
                so_far = Name(str(t))
            elif self.peek() == "I":
                if so_far is None:
                    raise _Fail("targs")
                _, txt = self.template_args(top)
                so_far = Name(so_far.text + txt, so_far.base)
                templated = True
            elif self.peek() == "S":
                if self.eat("St"):
                    so_far = Name("std")
                    continue
                s = self.substitution()
                so_far = s if isinstance(s, Name) else Name(str(s))
                continue
            elif self.peek() == "D" and self.peek(1) in ("t", "T"):
                raise _Fail("decltype")
            else:
                prefix = so_far
                n = self.unqualified(prefix)
                ctor = n.is_ctor_dtor
                so_far = Name((prefix.text + "::" if prefix is not None else "") + n.text, n.base)
                so_far.is_ctor_dtor = ctor
            self.subs.append(so_far)
            self.eat("M")
        if so_far is None or not self.subs:
            raise _Fail("nested")
        self.subs.pop()
        res = Name(so_far.text, so_far.base, templated)
        res.cv, res.ref, res.is_ctor_dtor = cv, ref, ctor and not templated
        return res

    def unqualified(self, prefix: Name | None) -> Name:
        c = self.peek()
        if c.isdigit():
            n = self.source_name()
            n = self.abi_tags(n)
            return Name(n)
        if c == "C" and self.peek(1) in "12345I":
            self.i += 1
            if self.eat("I"):
                pass
            self.i += 1
            base = prefix.base if prefix is not None else ""
            if "<" in base:
                base = base[:base.index("<")]
            n = Name(base)
            n.is_ctor_dtor = True
            return n
        if c == "D" and self.peek(1) in "0125":
            self.i += 2
            base = prefix.base if prefix is not None else ""
            if "<" in base:
                base = base[:base.index("<")]
            n = Name("~" + base)
            n.is_ctor_dtor = True
            return n
        if c == "U":
            if self.eat("Ut"):
                k = self._opt_num()
                return Name(f"'unnamed{k}'")
            if self.eat("Ul"):
                params = []
                while not self.eat("E"):
                    params.append(str(self.type_()))
                if params == ["void"]:
                    params = []
                k = self._opt_num()
                return Name(f"'lambda{k}'(" + ", ".join(params) + ")")
            raise _Fail("U")
        if c == "L":
            self.i += 1
            return self.unqualified(prefix)
        if c.islower() and len(self.s) > self.i + 1:
            op = self.s[self.i:self.i + 2]
            if op == "cv":
                self.i += 2
                t = self.type_()
                n = Name("operator " + str(t))
                n.templated = False
                return n
            if op == "li":
                self.i += 2
                return Name('operator"" ' + self.source_name())
            if op in OPERATORS:
                self.i += 2
                sym = OPERATORS[op]
                sep = " " if sym[0].isalpha() else ""
                return Name(self.abi_tags("operator" + sep + sym))
        raise _Fail("unqualified")

    def _opt_num(self) -> str:
        if self.eat("_"):
            return ""
        v = self.number()
        self.need("_")
        return str(v + 1)

    def source_name(self) -> str:
        n = self.number()
        s = self.s[self.i:self.i + n]
        if len(s) != n:
            raise _Fail("source")
        self.i += n
        if s.startswith("_GLOBAL__N"):
            return "(anonymous namespace)"
        return s

    def abi_tags(self, n: str) -> str:
        while self.eat("B"):
            n += "[abi:" + self.source_name() + "]"
        return n

    # ------------------------------------------------------------- substitutions / params
    def substitution(self):
        self.need("S")
        c = self.peek()
        if c in STD_SUBST:
            self.i += 1
            base = STD_SUBST[c]
            return Name(base, base.split("::")[-1])
        idx = self.seq_id()
        if idx >= len(self.subs):
            raise _Fail("subst")
        return self.subs[idx]

    def template_param(self) -> T:
        self.need("T")
        idx = self.seq_id()
        if idx >= len(self.tparams):
            raise _Fail("tparam")
        return self.tparams[idx]

    def template_args(self, top: bool) -> tuple[list, str]:
        self.need("I")
        args = []
        while not self.eat("E"):
            args.append(self.template_arg())
        if top:
            self.tparams = args
        txt = "<" + ", ".join(str(a) for a in args if str(a) != "") + ">"
        return args, txt

    def template_arg(self):
        c = self.peek()
        if c == "L":
            return T(self.literal())
        if c == "J":
            self.i += 1
            items = []
            while not self.eat("E"):
                items.append(str(self.template_arg()))
            t = T(", ".join(items))
            t.pack = True
            return t
        if c == "X":
            raise _Fail("expr")
        return self.type_()

    def literal(self) -> str:
        self.need("L")
        if self.eat("_Z"):
            enc = self.encoding_inner()
            self.need("E")
            return enc
        c = self.peek()
        if c == "b":
            self.i += 1
            v = self.number()
            self.need("E")
            return "true" if v else "false"
        if c in LITERAL_SUFFIX:
            self.i += 1
            v = self.number()
            self.need("E")
            return f"{v}{LITERAL_SUFFIX[c]}"
        if c in ("c", "a", "h"):
            self.i += 1
            v = self.number()
            self.need("E")
            return f"({BUILTIN[c]}){v}"
        if c == "D" and self.peek(1) == "n":
            self.i += 2
            self.eat("0")
            self.need("E")
            return "nullptr"
        if c.isdigit() or c in ("N", "S"):  # enum or other named integral type: (Type)N
            t = self.type_()
            v = self.number()
            self.need("E")
            return f"({t}){v}"
        raise _Fail("literal")

    # ------------------------------------------------------------- types
    def type_(self) -> T:
        c = self.peek()
        if c in BUILTIN:
            self.i += 1
            return T(BUILTIN[c])
        if c == "u":
            self.i += 1
            return T(self.source_name())
        if c == "D" and self.peek(1) in DBUILTIN:
            k = self.peek(1)
            self.i += 2
            return T(DBUILTIN[k])
        if c == "D" and self.peek(1) == "F":
            self.i += 2
            n = self.number()
            if n == 16 and self.peek() == "b":  # DF16b: __bf16, which LLVM spells std::bfloat16_t
                self.i += 1
                return T("std::bfloat16_t")
            self.need("_")
            return T(f"_Float{n}")
        if c in ("r", "V", "K"):
            quals = ""
            while self.peek() in ("r", "V", "K"):
                q = self.peek()
                self.i += 1
                quals = {"K": " const", "V": " volatile", "r": " restrict"}[q] + quals
            inner = self.type_()
            if inner.kind == "func":
                t = T(inner.left, inner.right + quals, "func")
            else:
                t = T(inner.left + quals, inner.right, inner.kind)
            self.subs.append(t)
            return t
        if c in ("P", "R", "O"):
            self.i += 1
            inner = self.type_()
            sym = {"P": "*", "R": "&", "O": "&&"}[c]
            if inner.kind in ("func", "array"):
                sep = " (" if inner.kind == "array" else "("
                t = T(inner.left + sep + sym, ")" + inner.right, "ptr")
            else:
                t = T(inner.left + sym, inner.right, "ptr")
            self.subs.append(t)
            return t
        if c == "F":
            self.i += 1
            self.eat("Y")
            ret = self.type_()
            params = []
            ref = ""
            while not self.eat("E"):
                if self.eat("R"):
                    ref = " &"
                    continue
                if self.eat("O"):
                    ref = " &&"
                    continue
                params.append(str(self.type_()))
            if params == ["void"]:
                params = []
            t = T(ret.left + " ", "(" + ", ".join(params) + ")" + ret.right + ref, "func")
            self.subs.append(t)
            return t
        if c == "A":
            self.i += 1
            dim = ""
            if self.peek().isdigit():
                dim = str(self.number())
            elif self.peek() == "T":  # dimension given by a template parameter
                dim = str(self.template_param())
            self.need("_")
            inner = self.type_()
            t = T(inner.left, " [" + dim + "]" + (inner.right.lstrip() if inner.kind == "array" else inner.right),
                  "array")
            self.subs.append(t)
            return t
        if c == "M":
            self.i += 1
            cls = self.type_()
            mem = self.type_()
            if mem.kind == "func":
                t = T(mem.left + "(" + str(cls) + "::*", ")" + mem.right, "ptr")
            else:
                t = T(mem.left + " " + str(cls) + "::*", mem.right, "ptr")
            self.subs.append(t)
            return t
        if c == "T":
            t = self.template_param()
            self.subs.append(t)
            if self.peek() == "I":
                _, txt = self.template_args(False)
                t = T(str(t) + txt)
                self.subs.append(t)
            return t
        if c == "S":
            if self.peek(1) == "t":
                n = self.name()
                t = T(str(n))
                self.subs.append(t)
                return t
            s = self.substitution()
            if self.peek() == "I":
                _, txt = self.template_args(False)
                t = T(str(s) + txt)
                self.subs.append(t)
                return t
            return s if isinstance(s, T) else T(str(s))
        if c == "D" and self.peek(1) == "v":
            self.i += 2
            if self.peek().isdigit():
                n = self.number()
            else:
                raise _Fail("vector")
            self.need("_")
            inner = self.type_()
            t = T(f"{inner} vector[{n}]")
            self.subs.append(t)
            return t
        if c == "D" and self.peek(1) == "p":  # pack expansion of a template parameter pack: its elements
            self.i += 2
            inner = self.type_()
            if not getattr(inner, "pack", False) and self.s[self.i - 1] != "_":
                raise _Fail("pack expansion of a non-parameter")
            t = T(inner.left, inner.right, inner.kind)
            t.pack = getattr(inner, "pack", False)
            self.subs.append(t)
            return t
        if c.isdigit() or c == "N" or c == "Z":
            n = self.name()
            t = T(str(n))
            self.subs.append(t)
            return t
        raise _Fail("type " + c)


def _ours(name: str) -> str | None:
    s = name
    lead = len(s) - len(s.lstrip("_"))
    if lead < 1 or lead > 4 or s[lead:lead + 1] != "Z":
        return None
    p = _P(s)
    p.i = lead + 1
    try:
        out = p.encoding()
    except (_Fail, IndexError, ValueError, RecursionError):
        return None
    if p.i < len(s):
        rest = s[p.i:]
        if rest.startswith("."):  # clone suffixes: foo.cold -> foo (.cold)
            return out + " (" + rest + ")"
        return None
    return out


@lru_cache(maxsize=65536)
def demangle(name: str) -> str:
    """LLVM-style demangling of an Itanium name; non-mangled names come back unchanged."""
    if not name.startswith(("_Z", "__Z", "___Z", "____Z")):
        return name
    r = _ours(name)
    if r is not None:
        return r
    import shutil
    import subprocess

    tool = shutil.which("llvm-cxxfilt") or shutil.which("c++filt")
    if tool is None:
        return name
    try:
        out = subprocess.run([tool, name], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return name
    return out or name


def plain_name(name: str | None) -> str:
    """``divergent_barrier(int*, int*)`` -> ``divergent_barrier``; ``probe<int>(int*)`` -> ``probe<int>``: the short
    name every view prints for a demangled function (name shortening sits beside the demangler)."""
    if not name:
        return "??"
    depth = 0
    cut = len(name)
    for i, ch in enumerate(name):
        if ch in "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "(" and depth == 0 and i > 0:
            cut = i
            break
    head = name[:cut]
    depth = 0
    last_space = -1
    for i, ch in enumerate(head):  # drop a template's return type: "void probe<int>" -> "probe<int>"
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == " " and depth == 0:
            last_space = i
    return head[last_space + 1:] if last_space >= 0 and not head.startswith("operator") else head


def name_forms(symbol: str) -> set[str]:
    """Every spelling a user may give for a kernel or function symbol: the mangled name, the full
    demangled signature, the signature without its return type, the name without parameters, and
    the name without template arguments (`probe` matches `void probe<int>(int*)`)."""
    try:
        d = demangle(symbol)
    except Exception:  # noqa: BLE001 - a name the demangler cannot read is matched as written
        d = symbol
    forms = {symbol, d}
    paren = d.find("(")
    head, params = (d[:paren], d[paren:]) if paren >= 0 else (d, "")
    depth, cut = 0, 0
    for i, c in enumerate(head):  # the return type ends at the last top-level space
        depth += c == "<"
        depth -= c == ">"
        if c == " " and depth == 0:
            cut = i + 1
    name = head[cut:]
    forms |= {name + params, name}
    if name.endswith(">") and "<" in name:
        forms.add(name[: name.index("<")])
    return {f for f in forms if f}


def name_matches(query: str, symbol: str | None) -> bool:
    """Does the user's `query` name `symbol` in one of its `name_forms`?"""
    return bool(symbol) and (query == symbol or query in name_forms(symbol))
