"""Front end for Dat3M/herd-style VULKAN `.litmus` tests (grammar of Dat3M's LitmusVulkan.g4).

Layout: a `VULKAN name` line, free text up to the first `{`, an init block (`x=0; P1:r0=0;`), an optional
`{ ssw P0 P1; }` block, the thread header `P0@sg 0, wg 0, qf 0 | ...;`, instruction rows with one
column per thread separated by `|` and terminated by `;`, then `exists` / `~exists` / `forall` and a
condition over registers (`P1:r0 == 1`) and locations with `/\\`, `\\/`, `~` and parentheses.
Instructions: `ld`, `st`, `rmw` (with `.add/.sub/...`), `membar`, `cbar id[, barrier-id[, quorum]]`,
`avdevice`, `visdevice`, labels `LCnn:`, `goto`, `beq/bne/blt/bgt/ble/bge a, b, LCnn` and local
arithmetic `add r, a, b`. Anything else is a FormatError naming the construct and its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from amddbg.amdgpu import Scope
from amddbg.errors import FormatError

_SCOPE = {"sg": Scope.WAVEFRONT, "wg": Scope.WORKGROUP, "qf": Scope.QUEUE_FAMILY, "dv": Scope.AGENT}
_OPS = {"add", "sub", "mul", "div", "and", "or", "xor"}
_CONDS = {"beq", "bne", "blt", "bgt", "ble", "bge"}


@dataclass
class Instr:
    op: str  # label, goto, br, local, ld, st, rmw, membar, cbar, avdevice, visdevice
    line: int
    text: str
    args: dict = field(default_factory=dict)


@dataclass
class HerdThread:
    tid: int
    sg: int
    wg: int
    qf: int
    code: list[Instr] = field(default_factory=list)


@dataclass
class HerdTest:
    path: str
    name: str
    threads: list[HerdThread]
    init_mem: dict[str, int]
    init_regs: dict[tuple[int, str], int]
    ssw: list[tuple[int, int]]
    quantifier: str  # exists, ~exists, forall
    condition: object
    condition_text: str
    aliases: dict[str, str] = field(default_factory=dict)  # reference -> location it aliases
    filter: object = None  # executions whose final state fails the filter are discarded
    format: str = "herd"

    def location(self, ref: str) -> str:
        seen = set()
        while ref in self.aliases and ref not in seen:
            seen.add(ref)
            ref = self.aliases[ref]
        return ref


def _err(path: str, line: int, what: str) -> FormatError:
    from amddbg.textsafe import safe

    return FormatError(f"line {line}: {safe(what)}", file=path)  # quoted file text stays on one line


def parse(text: str, path: str) -> HerdTest:
    lines = text.splitlines()
    header = next((ln for ln in lines if ln.strip()), "")
    parts = header.split(None, 1)
    if not parts or parts[0].upper() != "VULKAN":
        raise _err(path, 1, f"unsupported litmus architecture '{parts[0] if parts else ''}' (only VULKAN)")
    name = parts[1].strip() if len(parts) > 1 else path
    # offsets of each line for error reporting
    starts = []
    pos = 0
    for ln in lines:
        starts.append(pos)
        pos += len(ln) + 1

    def line_of(off: int) -> int:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= off:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    body_start = starts[1] if len(starts) > 1 else len(text)
    brace = text.find("{", body_start)
    if brace < 0:
        raise _err(path, 2, "missing initial-state block '{ ... }'")
    end = text.find("}", brace)
    if end < 0:
        raise _err(path, line_of(brace), "unterminated initial-state block")
    init_mem: dict[str, int] = {}
    init_regs: dict[tuple[int, str], int] = {}
    aliases: dict[str, str] = {}
    for item in text[brace + 1:end].split(";"):
        item = item.strip()
        if not item:
            continue
        m = re.fullmatch(r"P(\d+)\s*:\s*(r\d+)\s*=\s*(-?\d+)", item)
        if m:
            init_regs[(int(m.group(1)), m.group(2))] = int(m.group(3))
            continue
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(-?\d+)", item)
        if m:
            init_mem[m.group(1)] = int(m.group(2))
            continue
        m = re.fullmatch(r"([A-Za-z_]\w*)\s+aliases\s+([A-Za-z_]\w*)", item)
        if m:
            aliases[m.group(1)] = m.group(2)
            continue
        raise _err(path, line_of(brace), f"unsupported initial-state declaration '{item}'")
    pos = end + 1
    ssw: list[tuple[int, int]] = []
    m = re.match(r"\s*;?\s*\{", text[pos:])
    if m:
        b2 = pos + m.end() - 1
        e2 = text.find("}", b2)
        for item in text[b2 + 1:e2].split(";"):
            item = item.strip()
            if not item:
                continue
            mm = re.fullmatch(r"ssw\s+P?(\d+)\s+P?(\d+)", item)
            if not mm:
                raise _err(path, line_of(b2), f"unsupported declaration '{item}'")
            ssw.append((int(mm.group(1)), int(mm.group(2))))
        pos = e2 + 1
    cm = re.search(r"(^|\n)\s*(~\s*exists|exists|forall|locations|filter)\b", text[pos:])
    if not cm:
        raise _err(path, line_of(pos), "missing final condition (exists / ~exists / forall)")
    prog = text[pos:pos + cm.start()]
    cond_off = pos + cm.start()
    rows = []
    off = pos
    for chunk in prog.split(";"):
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip())
            rows.append((chunk.strip(), line_of(off + lead)))
        off += len(chunk) + 1
    if not rows:
        raise _err(path, line_of(pos), "no thread header")
    threads = []
    hdr, hl = rows[0]
    for k, cell in enumerate(hdr.split("|")):
        mm = re.fullmatch(r"\s*P(\d+)\s*@\s*sg\s*(\d+)\s*,\s*wg\s*(\d+)\s*,\s*qf\s*(\d+)\s*", cell)
        if not mm:
            raise _err(path, hl, f"unsupported thread header '{cell.strip()}' (expected 'Pn@sg a, wg b, qf c')")
        if int(mm.group(1)) != k:
            raise _err(path, hl, f"thread P{mm.group(1)} declared out of order")
        threads.append(HerdThread(k, int(mm.group(2)), int(mm.group(3)), int(mm.group(4))))
    for row, rl in rows[1:]:
        cells = row.split("|")
        if len(cells) != len(threads):
            raise _err(path, rl, f"row has {len(cells)} columns, expected {len(threads)}")
        for t, cell in zip(threads, cells, strict=True):
            cell = cell.strip()
            if cell:
                t.code.append(_instr(cell, path, rl))
    ctext = text[cond_off:].strip()
    cline = line_of(cond_off)
    if ctext.startswith("locations"):
        close = ctext.find("]")
        if close < 0:
            raise _err(path, cline, "unterminated 'locations [...]' clause")
        ctext = ctext[close + 1:].strip()
    filt = None
    if ctext.startswith("filter"):
        qm = re.search(r"(~\s*exists|\bexists|\bforall)", ctext)
        fsrc = ctext[len("filter"):qm.start() if qm else len(ctext)].strip()
        filt = _parse_cond(fsrc, path, cline)
        ctext = ctext[qm.start():] if qm else ""
    if not ctext:
        quant, cond, cond_src = "forall", ("const", True), "true"
    else:
        quant_m = re.match(r"(~\s*exists|exists|forall)", ctext)
        if not quant_m:
            raise _err(path, cline, f"unsupported final clause '{ctext.split()[0]}'")
        quant = re.sub(r"\s+", "", quant_m.group(1))
        cond_src = ctext[quant_m.end():].strip()
        cond = _parse_cond(cond_src, path, cline)
    for t in threads:
        labels = {i.args["name"] for i in t.code if i.op == "label"}
        for i in t.code:
            if i.op in ("goto", "br") and i.args["target"] not in labels:
                raise _err(path, i.line, f"jump to undefined label {i.args['target']} in P{t.tid}")
    return HerdTest(path, name, threads, init_mem, init_regs, ssw, quant, cond, f"{quant} {cond_src}",
                    aliases=aliases, filter=filt)


def _value(tok: str, path: str, line: int):
    tok = tok.strip()
    if re.fullmatch(r"-?\d+", tok):
        return int(tok)
    if re.fullmatch(r"r\d+", tok):
        return tok
    raise _err(path, line, f"unsupported operand '{tok}'")


def _instr(cell: str, path: str, line: int) -> Instr:
    m = re.fullmatch(r"(LC\d+)\s*:", cell)
    if m:
        return Instr("label", line, cell, {"name": m.group(1)})
    opcode, _, rest = cell.partition(" ")
    ops = [o.strip() for o in rest.split(",")] if rest.strip() else []
    if opcode == "goto":
        return Instr("goto", line, cell, {"target": rest.strip()})
    if opcode in _CONDS:
        if len(ops) != 3:
            raise _err(path, line, f"'{opcode}' needs two values and a label")
        return Instr("br", line, cell, {"cond": opcode, "a": _value(ops[0], path, line),
                                        "b": _value(ops[1], path, line), "target": ops[2]})
    if opcode in _OPS:
        if len(ops) != 3 or not re.fullmatch(r"r\d+", ops[0]):
            raise _err(path, line, f"'{opcode}' needs a register and two values")
        return Instr("local", line, cell, {"fn": opcode, "rd": ops[0], "a": _value(ops[1], path, line),
                                           "b": _value(ops[2], path, line)})
    if opcode in ("avdevice", "visdevice"):
        return Instr(opcode, line, cell)
    toks = opcode.split(".")
    base = toks[0]
    if base not in ("ld", "st", "rmw", "membar", "cbar"):
        raise _err(path, line, f"unsupported instruction '{opcode}'")
    a: dict = {"atomic": False, "acq": False, "rel": False, "av": False, "vis": False, "semav": False,
               "semvis": False, "nonpriv": False, "scope": None, "sc": None, "semsc": set(), "fn": None}
    for t in toks[1:]:
        if t == "atom":
            a["atomic"] = True
        elif t in ("acq", "rel"):
            a[t] = True
        elif t == "acq_rel":
            a["acq"] = a["rel"] = True
        elif t in ("av", "vis", "semav", "semvis", "nonpriv"):
            a[t] = True
        elif t in _SCOPE:
            if a["scope"] is not None:
                raise _err(path, line, f"two scopes in '{opcode}'")
            a["scope"] = _SCOPE[t]
        elif re.fullmatch(r"sc[0-3]", t):
            a["sc"] = int(t[2])
        elif re.fullmatch(r"semsc[0-3]", t):
            a["semsc"].add(int(t[5]))
        elif base == "rmw" and t in _OPS:
            a["fn"] = t
        else:
            raise _err(path, line, f"unsupported token '{t}' in '{opcode}'")
    a["semsc"] = frozenset(a["semsc"])
    mo = a["acq"] or a["rel"]
    if mo and not a["semsc"]:
        raise _err(path, line, f"'{opcode}': acquire/release needs storage-class semantics (semscN)")
    if base in ("ld", "st", "rmw"):
        if a["sc"] is None:
            raise _err(path, line, f"'{opcode}': memory access without storage class")
        if (a["atomic"] or a["av"] or a["vis"]) and a["scope"] is None:
            raise _err(path, line, f"'{opcode}': atomic/av/vis access without scope")
        if base == "rmw" and not a["atomic"]:
            raise _err(path, line, f"'{opcode}': rmw must be atomic")
        if mo and not a["atomic"]:
            raise _err(path, line, f"'{opcode}': acquire/release on a non-atomic access")
    if base == "ld":
        if len(ops) != 2 or not re.fullmatch(r"r\d+", ops[0]):
            raise _err(path, line, f"'{opcode}' needs 'register, location'")
        a.update(rd=ops[0], loc=ops[1])
    elif base == "st":
        if len(ops) != 2:
            raise _err(path, line, f"'{opcode}' needs 'location, value'")
        a.update(loc=ops[0], value=_value(ops[1], path, line))
    elif base == "rmw":
        if len(ops) != 3 or not re.fullmatch(r"r\d+", ops[0]):
            raise _err(path, line, f"'{opcode}' needs 'register, location, value'")
        a.update(rd=ops[0], loc=ops[1], value=_value(ops[2], path, line))
    elif base == "membar":
        if a["scope"] is None or not mo:
            raise _err(path, line, f"'{opcode}': membar needs acq/rel/acq_rel, a scope and semantics")
    elif base == "cbar":
        if a["scope"] is None:
            raise _err(path, line, f"'{opcode}': cbar without scope")
        if not ops or not re.fullmatch(r"\d+", ops[0]):
            raise _err(path, line, f"'{opcode}' needs a barrier instance number")
        a["instance"] = ops[0]
        a["resource"] = _value(ops[1], path, line) if len(ops) > 1 else None
        a["quorum"] = _value(ops[2], path, line) if len(ops) > 2 else None
        if len(ops) > 3:
            raise _err(path, line, f"'{opcode}': too many operands")
    if base in ("ld", "st", "rmw") and not re.fullmatch(r"[A-Za-z_]\w*", a["loc"]):
        raise _err(path, line, f"unsupported location operand '{a['loc']}'")
    return Instr(base, line, cell, a)


# ---------------------------------------------------------------- condition
_CTOK = re.compile(r"\s*(P\d+\s*:\s*r\d+|-?\d+|[A-Za-z_]\w*|/\\|\\/|==|!=|<=|>=|=|<|>|~|\(|\))")


MAX_COND_NESTING = 128


def _parse_cond(src: str, path: str, line: int):
    toks = []
    pos = 0
    while pos < len(src):
        if src[pos].isspace():
            pos += 1
            continue
        m = _CTOK.match(src, pos)
        if not m:
            raise _err(path, line, f"unsupported condition syntax at '{src[pos:pos + 20]}'")
        toks.append(re.sub(r"\s+", "", m.group(1)))
        pos = m.end()
    toks.append(None)
    # Nesting of '(' and '~' is bounded so a hostile condition cannot exhaust the Python stack.
    if sum(t in ("(", "~") for t in toks) > MAX_COND_NESTING:
        raise _err(path, line, f"condition has more than {MAX_COND_NESTING} '(' or '~'")
    i = 0

    def peek():
        return toks[i] if i < len(toks) else None

    def take():
        nonlocal i
        i += 1
        return toks[i - 1] if i - 1 < len(toks) else None

    def disj():
        left = conj()
        while peek() == "\\/":
            take()
            left = ("or", left, conj())
        return left

    def conj():
        left = unary()
        while peek() == "/\\":
            take()
            left = ("and", left, unary())
        return left

    def unary():
        if peek() == "~":
            take()
            return ("not", unary())
        if peek() == "(":
            take()
            e = disj()
            if take() != ")":
                raise _err(path, line, "missing ')' in condition")
            return e
        if peek() in ("true", "false"):
            return ("const", take() == "true")
        a = atom()
        op = take()
        if op not in ("==", "!=", "=", "<", ">", "<=", ">="):
            raise _err(path, line, f"unsupported comparison '{op}' in condition")
        b = atom()
        return ("cmp", "==" if op == "=" else op, a, b)

    def atom():
        t = take()
        if t is None:
            raise _err(path, line, "condition ends early")
        if re.fullmatch(r"-?\d+", t):
            return ("int", int(t))
        m = re.fullmatch(r"P(\d+):(r\d+)", t)
        if m:
            return ("reg", int(m.group(1)), m.group(2))
        if re.fullmatch(r"[A-Za-z_]\w*", t):
            return ("mem", t)
        raise _err(path, line, f"unsupported condition operand '{t}'")

    e = disj()
    if peek() is not None:
        raise _err(path, line, f"trailing text in condition: '{peek()}'")
    return e
