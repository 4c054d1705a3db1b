"""A C-subset expression parser (gdb's `print` language for C): tokens -> a small tuple AST.

Nodes are tuples ``(kind, ...)``: ("int", n, ctype) ("float", x) ("char", n) ("str", s) ("var", name)
("reg", name) ("conv", name) ("hist", n | None, back) ("un", op, e) ("bin", op, a, b) ("tern", c, a, b)
("cast", typename, e) ("sizeof_t", typename) ("sizeof", e) ("member", e, name) ("arrow", e, name)
("index", e, i) ("assign", target, e). Type names stay text: only the evaluator's scope knows types.
"""

from __future__ import annotations

import re

from amddbg.errors import UsageError

# Nesting bound: each parenthesis level enters two counted rules (assignment and unary), so 1000 allows about
# 500 levels (gdb accepts 200 and more). Python's own recursion limit is raised while parsing and evaluating
# (`deep_recursion`) so that this bound, not a RecursionError, is what a deep expression meets.
MAX_DEPTH = 1000
_RECURSION = 20000


class deep_recursion:  # noqa: N801 - used as a context manager, like contextlib's
    """Raise Python's recursion limit for a parse or an evaluation, and restore it after (nested uses keep
    the outer value). Python 3.11+ keeps Python-to-Python calls off the C stack, so the limit is the bound."""

    def __enter__(self):
        import sys

        self.old = sys.getrecursionlimit()
        if self.old < _RECURSION:
            sys.setrecursionlimit(_RECURSION)
        return self

    def __exit__(self, *exc) -> None:
        import sys

        sys.setrecursionlimit(self.old)

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<float>(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?[fFlL]?|\d+[eE][+-]?\d+[fFlL]?)
  | (?P<int>0[xX][0-9a-fA-F]+[uUlL]*|0[bB][01]+[uUlL]*|\d+[uUlL]*)
  | (?P<char>'(?:\\.|[^'\\])+')
  | (?P<str>"(?:\\.|[^"\\])*")
  | (?P<dollar>\$\$\d*|\$\d+|\$[A-Za-z_]\w*|\$)
  | (?P<ident>[A-Za-z_]\w*)
  | (?P<op>->|<<=|>>=|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!~<>=?:.,()\[\]\#@])
""", re.X)

TYPE_WORDS = {"int", "unsigned", "signed", "char", "short", "long", "float", "double", "bool", "_Bool", "void",
              "struct", "union", "enum", "const", "volatile", "half", "_Float16", "size_t", "int8_t", "uint8_t",
              "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "__attribute__"}
SPACE_WORDS = {"global", "local", "private_lane", "private_wave", "generic", "region", "constant", "private"}
ESCAPES = {"n": 10, "t": 9, "r": 13, "0": 0, "a": 7, "b": 8, "f": 12, "v": 11, "\\": 92, "'": 39, '"': 34,
           "e": 27}


def tokenize(text: str) -> list[tuple[str, str]]:
    out = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise UsageError(f"Invalid character '{text[pos]}' in expression.")
        kind = m.lastgroup
        if kind != "ws":
            out.append((kind, m.group()))
        pos = m.end()
    out.append(("end", ""))
    return out


def _unescape(body: str) -> list[int]:
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            if n in "01234567":
                j = i + 1
                while j < len(body) and j < i + 4 and body[j] in "01234567":
                    j += 1
                out.append(int(body[i + 1:j], 8) & 0xFF)
                i = j
                continue
            if n == "x":
                j = i + 2
                while j < len(body) and body[j] in "0123456789abcdefABCDEF":
                    j += 1
                if j == i + 2:
                    raise UsageError("\\x used with no following hex digits.")
                out.append(int(body[i + 2:j], 16) & 0xFF)
                i = j
                continue
            out.append(ESCAPES.get(n, ord(n)))
            i += 2
            continue
        out.append(ord(c))
        i += 1
    return out


class Parser:
    def __init__(self, text: str, is_type=None) -> None:
        self.toks = tokenize(text)
        self.i = 0
        self.depth = 0
        self.is_type = is_type or (lambda name: False)

    # -- helpers
    def peek(self, k: int = 0) -> tuple[str, str]:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def take(self) -> tuple[str, str]:
        t = self.toks[self.i]
        self.i = min(self.i + 1, len(self.toks) - 1)
        return t

    def accept(self, op: str) -> bool:
        if self.peek() == ("op", op):
            self.take()
            return True
        return False

    def expect(self, op: str) -> None:
        if not self.accept(op):
            got = self.peek()[1] or "end of expression"
            raise UsageError(f"A syntax error in expression, near `{got}'.")

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise UsageError(f"expression nested too deeply (more than {MAX_DEPTH // 2} levels)")

    # -- grammar
    def parse(self):
        if self.peek()[0] == "end":
            raise UsageError("Argument required (expression to compute).")
        e = self.comma()
        if self.peek()[0] != "end":
            raise UsageError(f"A syntax error in expression, near `{self.rest()}'.")
        return e

    def rest(self) -> str:
        return " ".join(v for k, v in self.toks[self.i:] if k != "end")

    def comma(self):
        e = self.assign()
        while self.accept(","):
            e = ("comma", e, self.assign())
        return e

    def assign(self):
        self.enter()
        try:
            e = self.ternary()
            if self.accept("="):
                return ("assign", e, self.assign())
            return e
        finally:
            self.depth -= 1

    def ternary(self):
        c = self.binary(0)
        if self.accept("?"):
            a = self.comma()
            self.expect(":")
            b = self.ternary()
            return ("tern", c, a, b)
        return c

    LEVELS = [("||",), ("&&",), ("|",), ("^",), ("&",), ("==", "!="), ("<", ">", "<=", ">="), ("<<", ">>"),
              ("+", "-"), ("*", "/", "%"), ("@",)]  # gdb: `@` binds tighter than `*`, looser than unary

    PREC = {op: i for i, ops in enumerate(LEVELS) for op in ops}

    def binary(self, level: int):
        """Precedence climbing over LEVELS (left-associative): one Python frame per operand, not one per
        precedence level, so nesting depth costs a few frames per parenthesis."""
        e = self.unary()
        while True:
            k, v = self.peek()
            prec = self.PREC.get(v) if k == "op" else None
            if prec is None or prec < level:
                return e
            self.take()
            e = ("bin", v, e, self.binary(prec + 1))

    def unary(self):
        self.enter()
        try:
            k, v = self.peek()
            if k == "op" and v in ("-", "+", "!", "~", "*", "&"):
                self.take()
                return ("un", v, self.unary())
            if k == "ident" and v == "sizeof":
                self.take()
                if self.peek() == ("op", "(") and self._type_ahead(1):
                    self.take()
                    t = self.type_name()
                    self.expect(")")
                    return ("sizeof_t", t)
                return ("sizeof", self.unary())
            if k == "op" and v == "(" and self._type_ahead(1):
                self.take()
                t = self.type_name()
                self.expect(")")
                return ("cast", t, self.unary())
            return self.postfix()
        finally:
            self.depth -= 1

    def _type_ahead(self, k: int) -> bool:
        kind, v = self.peek(k)
        return kind == "ident" and (v in TYPE_WORDS or self.is_type(v))

    def type_name(self) -> str:
        words: list[str] = []
        while True:
            k, v = self.peek()
            if k == "ident" and v == "__attribute__":
                self.take()
                self.expect("(")
                self.expect("(")
                k2, name = self.take()
                if name != "address_space":
                    raise UsageError(f"unsupported attribute {name}")
                self.expect("(")
                k3, num = self.take()
                if k3 != "int":
                    raise UsageError("address_space needs a number")
                self.expect(")")
                self.expect(")")
                self.expect(")")
                words.append(f"__attribute__((address_space({int(num, 0)})))")
                continue
            if k == "ident":
                named = [w for w in words if w not in ("const", "volatile", "*") and w not in SPACE_WORDS]
                if v in TYPE_WORDS or v in SPACE_WORDS or (words and words[-1] in ("struct", "union", "enum")):
                    words.append(self.take()[1])
                    continue
                if not named and self.is_type(v):
                    words.append(self.take()[1])
                    continue
                break
            if k == "op" and v == "*":
                self.take()
                words.append("*")
                continue
            if k == "op" and v == "<" and words:  # template arguments: Foo<int>
                depth = 0
                buf = ""
                while True:
                    tk, tv = self.take()
                    if tk == "end":
                        raise UsageError("unterminated template argument list")
                    buf += tv if tv not in (",",) else ", "
                    if tv == "<":
                        depth += 1
                    elif tv == ">":
                        depth -= 1
                        if depth == 0:
                            break
                words[-1] += buf
                continue
            break
        if not words:
            raise UsageError("A syntax error in expression: type name expected.")
        return " ".join(words)

    def postfix(self):
        e = self.primary()
        while True:
            if self.accept("["):
                i = self.comma()
                self.expect("]")
                e = ("index", e, i)
            elif self.accept("."):
                k, v = self.take()
                if k != "ident":
                    raise UsageError("A syntax error in expression, near `.'.")
                e = ("member", e, v)
            elif self.accept("->"):
                k, v = self.take()
                if k != "ident":
                    raise UsageError("A syntax error in expression, near `->'.")
                e = ("arrow", e, v)
            else:
                return e

    def primary(self):
        k, v = self.take()
        if k == "int":
            body = v.rstrip("uUlL")
            suffix = v[len(body):].lower()
            try:
                if body[:2].lower() == "0x":
                    n = int(body, 16)
                elif body[:2].lower() == "0b":
                    n = int(body[2:], 2)
                elif len(body) > 1 and body[0] == "0":
                    n = int(body, 8)
                else:
                    n = int(body)
            except ValueError:
                raise UsageError(f'Invalid number "{v}".') from None
            return ("int", n, suffix)
        if k == "float":
            body = v.rstrip("fFlL")
            return ("float", float(body), "f" if v[-1:] in "fF" else "")
        if k == "char":
            codes = _unescape(v[1:-1])
            if len(codes) != 1:
                raise UsageError(f"Invalid character constant {v}.")
            return ("char", codes[0])
        if k == "str":
            return ("str", bytes(_unescape(v[1:-1])))
        if k == "dollar":
            if v == "$":
                return ("hist", None, 0)
            if v.startswith("$$"):
                return ("hist", None, int(v[2:]) if len(v) > 2 else 1)
            if v[1:].isdigit():
                return ("hist", int(v[1:]), 0)
            return ("dollar", v[1:])
        if k == "ident":
            if self.peek() == ("op", "#"):  # ROCgdb address-space qualifier: local#0x10
                self.take()
                if v not in SPACE_WORDS:
                    raise UsageError(f"unknown address space '{v}'")
                return ("space", v, self.unary())
            return ("var", v)
        if k == "op" and v == "(":
            e = self.comma()
            self.expect(")")
            return e
        raise UsageError(f"A syntax error in expression, near `{v or 'end of expression'}'.")


def parse(text: str, is_type=None):
    with deep_recursion():
        return Parser(text, is_type).parse()
