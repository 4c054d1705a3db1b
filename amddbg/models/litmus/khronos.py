"""Front end for the Khronos Vulkan-MemoryModel `.test` format (alloy/litmus.cpp conventions).

Semantics carried over from the reference translator: `NEWQF/NEWWG/NEWSG/NEWTHREAD` open new scope
instances; each instruction is dot-separated tokens plus `var [= value [value2]]` or a control
barrier instance number; a load with a value must read from the store(s) of the same variable
writing that value (value 0: the initial value); loads without a matching store are free.
`SLOC a b` makes two references one location, `SSW a b` adds system-synchronizes-with from every
instruction of thread a to every instruction of thread b. Each `SATISFIABLE`/`NOSOLUTION` line is an
independent query over the model, optionally `NOCHAINS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from amddbg.amdgpu import Scope
from amddbg.errors import FormatError
from amddbg.models import rel as R
from amddbg.models.checker import Scenario
from amddbg.models.events import INIT, Event, Kind

_TOKENS = {"st", "ld", "membar", "atom", "acq", "rel", "sc0", "sc1", "semsc0", "semsc1", "scopesg",
           "scopewg", "scopeqf", "scopedev", "cbar", "rmw", "avdevice", "visdevice", "semav", "semvis",
           "av", "vis", "nonpriv"}
_SCOPES = {"scopesg": Scope.WAVEFRONT, "scopewg": Scope.WORKGROUP, "scopeqf": Scope.QUEUE_FAMILY,
           "scopedev": Scope.AGENT}


@dataclass
class Query:
    expect_sat: bool
    nochains: bool
    expr: object
    text: str
    line: int


@dataclass
class KhronosTest:
    path: str
    name: str
    scenario: Scenario
    queries: list[Query] = field(default_factory=list)
    format: str = "khronos"


def _ill(issues: list[str], cond: bool, what: str) -> None:
    if cond:
        issues.append(what)


def parse(text: str, path: str) -> KhronosTest:
    events: list[Event] = []
    threads: dict[int, list[int]] = {}
    values: list[tuple[str | None, int, int]] = []  # var, value, value2
    qf = wg = sg = 0
    threadnum = 0
    cur_thread: int | None = None
    ssw_lines: list[tuple[int, int, int]] = []
    sloc_pairs: list[tuple[str, str]] = []
    queries: list[Query] = []
    issues: list[str] = []
    name = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r\n")
        if len(line) < 2 or line.startswith("//"):
            continue
        if "//" in line:
            line = line[: line.index("//")]
        line = line.strip()
        if not line:
            continue
        head = line.split()[0]
        if head in ("SATISFIABLE", "NOSOLUTION"):
            rest = line[len(head):].strip()
            nochains = False
            if rest.startswith("NOCHAINS"):
                nochains = True
                rest = rest[len("NOCHAINS"):].strip()
            queries.append(Query(head == "SATISFIABLE", nochains, _parse_pred(rest, path, lineno), line,
                                 lineno))
            continue
        if head == "SSW":
            nums = re.findall(r"\d+", line)
            if len(nums) != 2:
                raise FormatError(f"line {lineno}: SSW needs two thread numbers", file=path)
            ssw_lines.append((int(nums[0]), int(nums[1]), lineno))
            continue
        if head == "SLOC":
            parts = line.split()
            if len(parts) != 3:
                raise FormatError(f"line {lineno}: SLOC needs two variable names", file=path)
            sloc_pairs.append((parts[1], parts[2]))
            continue
        if head in ("NEWQF", "NEWWG", "NEWSG", "NEWTHREAD"):
            if head == "NEWQF":
                qf += 1
            if head in ("NEWQF", "NEWWG"):
                wg += 1
            if head in ("NEWQF", "NEWWG", "NEWSG"):
                sg += 1
            if head == "NEWTHREAD":
                m = re.search(r"\d+", line)
                threadnum = int(m.group()) if m else threadnum + 1
                if threads.get(threadnum):
                    raise FormatError(f"line {lineno}: thread {threadnum} declared twice", file=path)
                threads.setdefault(threadnum, [])
                cur_thread = threadnum
            continue
        if cur_thread is None:
            cur_thread = threadnum
            threads.setdefault(threadnum, [])
        ev, var, v1, v2 = _instruction(line, path, lineno, issues)
        ev.thread = cur_thread
        ev.instances = {Scope.WAVEFRONT: sg, Scope.WORKGROUP: wg, Scope.CLUSTER: wg, Scope.QUEUE_FAMILY: qf,
                        Scope.AGENT: 0, Scope.SYSTEM: 0}
        threads[cur_thread].append(len(events))
        events.append(ev)
        values.append((var, v1, v2))

    if not events:
        raise FormatError("no instructions in the test", file=path)
    order = sorted(threads)
    po_threads = [threads[t] for t in order if threads[t]]
    for k, lst in enumerate(po_threads):  # display threads as P0, P1, ... in file order
        for i in lst:
            events[i].extra["file_thread"] = events[i].thread
            events[i].thread = k
    # SSW: from every instruction of thread a to every instruction of thread b
    ssw = []
    for a, b, lineno in ssw_lines:
        if not threads.get(a) or not threads.get(b):
            raise FormatError(f"line {lineno}: SSW names a thread without instructions", file=path)
        lo_a, hi_a = min(threads[a]), max(threads[a])
        lo_b, hi_b = min(threads[b]), max(threads[b])
        ssw += [(i, j) for i in range(lo_a, hi_a + 1) for j in range(lo_b, hi_b + 1)]
    # locations: each variable is a reference; SLOC merges locations (transitively)
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.get(x, x) != x:
            x = parent[x]
        return x

    for a, b in sloc_pairs:
        parent[find(a)] = find(b)
    for ev, (var, _v1, _v2) in zip(events, values, strict=True):
        if var is not None:
            ev.ref = var
            ev.loc = find(var)

    # reads-from constraints from the values, as the reference translator emits them
    rf_allowed: dict[int, list[int]] = {}
    for j, ev in enumerate(events):
        var, v1, _ = values[j]
        if not ev.is_read or var is None:
            continue
        forced = [i for i, e in enumerate(events) if e.is_write and values[i][0] == var
                  and _wval(e, values[i]) == v1]
        init = v1 == 0 and not (ev.is_write and _wval(ev, values[j]) == v1)
        if j in forced:
            issues.append(f"{ev.label}: reads from itself")
        if len(forced) > 1 or (forced and init):
            issues.append(f"{ev.label}: more than one forced reads-from source")
        if forced:
            rf_allowed[j] = forced[:1]
        elif init:
            rf_allowed[j] = [INIT]
        ev.read_value = v1 if v1 != -1 else None
    for i, ev in enumerate(events):
        if ev.is_write and values[i][0] is not None:
            wv = _wval(ev, values[i])
            ev.write_value = wv if wv != -1 else None

    # control barrier instances
    n = len(events)
    syncbar = R.empty(n)
    inst: dict[int, list[int]] = {}
    for i, ev in enumerate(events):
        if ev.kind is Kind.CBAR:
            inst.setdefault(ev.barrier, []).append(i)
    pos = {i: (t, k) for t, lst in threads.items() for k, i in enumerate(lst)}
    for members in inst.values():
        mm = R.mask_of(members)
        threads_seen = set()
        for i in members:
            syncbar[i] = mm
            if events[i].thread in threads_seen:
                issues.append(f"control barrier instance {events[i].barrier} twice in one thread")
            threads_seen.add(events[i].thread)
            a = events[i]
            for j in members:
                b = events[j]
                if (a.scope, a.acquire, a.release, a.semsc) != (b.scope, b.acquire, b.release, b.semsc):
                    issues.append(f"control barrier instance {a.barrier} mixes scopes or semantics")
    for x, y in ((x, y) for ms in inst.values() for x in ms for y in ms if x != y):
        # no (po . scbarinst . po) & scbarinst: instances executed in different orders by two threads
        tx, kx = pos[x]
        ty, ky = pos[y]
        for x2 in threads[tx][kx + 1:]:
            if events[x2].kind is Kind.CBAR:
                for y2 in threads[ty][:ky]:
                    if events[y2].kind is Kind.CBAR and events[y2].barrier == events[x2].barrier:
                        issues.append("control barrier instances are ordered differently in two threads")
    sc = Scenario(events, po_threads, ssw, rf_allowed, [syncbar] if inst else None)
    sc.ill_formed = "; ".join(dict.fromkeys(issues)) or None
    return KhronosTest(path, name, sc, queries)


def _wval(ev: Event, vals: tuple[str | None, int, int]) -> int:
    return vals[2] if (ev.is_read and ev.is_write) else vals[1]


def _instruction(line: str, path: str, lineno: int, issues: list[str]):
    opcode, _, rest = line.partition(" ")
    toks = opcode.split(".")
    for t in toks:
        if t not in _TOKENS:
            raise FormatError(f"line {lineno}: unsupported token '{t}' in instruction '{opcode}'", file=path)
    has = set(toks)
    R_ = "ld" in has or "rmw" in has
    W_ = "st" in has or "rmw" in has
    A_ = "atom" in has or "rmw" in has
    if R_ and W_:
        kind = Kind.RMW
    elif R_:
        kind = Kind.LOAD
    elif W_:
        kind = Kind.STORE
    elif "cbar" in has:
        kind = Kind.CBAR
    elif "membar" in has:
        kind = Kind.FENCE
    elif "avdevice" in has:
        kind = Kind.AVDEVICE
    elif "visdevice" in has:
        kind = Kind.VISDEVICE
    else:
        raise FormatError(f"line {lineno}: instruction '{opcode}' is not a load, store, rmw, membar or cbar",
                          file=path)
    scopes = [_SCOPES[t] for t in toks if t in _SCOPES]
    scs = [int(t[2:]) for t in toks if t in ("sc0", "sc1")]
    semsc = frozenset(int(t[5:]) for t in toks if t.startswith("semsc"))
    ev = Event(kind=kind, thread=0, instances={}, label=line, line=lineno,
               scope=scopes[0] if scopes else None, storage_class=scs[0] if scs else None, semsc=semsc,
               atomic=A_, acquire="acq" in has, release="rel" in has, av="av" in has or (A_ and W_),
               vis="vis" in has or (A_ and R_), semav="semav" in has, semvis="semvis" in has,
               nonpriv="nonpriv" in has)
    label = f"'{line}' (line {lineno})"
    # static facts of spirv.als that a program text can violate
    _ill(issues, len(scopes) > 1, f"{label}: more than one scope")
    _ill(issues, len(scs) > 1, f"{label}: more than one storage class")
    mem = R_ or W_
    _ill(issues, mem and not scs, f"{label}: memory access without storage class")
    _ill(issues, not mem and bool(scs), f"{label}: storage class on a non-access")
    _ill(issues, mem and bool(has & {"cbar", "membar"}), f"{label}: access is also a barrier")
    is_fence = "membar" in has or ("cbar" in has and bool(has & {"acq", "rel"}))
    _ill(issues, "membar" in has and not (has & {"acq", "rel"}), f"{label}: membar without acq or rel")
    _ill(issues, "acq" in has and not ((R_ and A_) or is_fence), f"{label}: acq needs an atomic read or fence")
    _ill(issues, "rel" in has and not ((W_ and A_) or is_fence), f"{label}: rel needs an atomic write or fence")
    _ill(issues, "av" in has and not W_, f"{label}: av on a non-write")
    _ill(issues, "vis" in has and not R_, f"{label}: vis on a non-read")
    _ill(issues, "nonpriv" in has and not mem, f"{label}: nonpriv on a non-access")
    _ill(issues, "atom" in has and not mem, f"{label}: atom on a non-access")
    _ill(issues, "semav" in has and "rel" not in has, f"{label}: semav without rel")
    _ill(issues, "semvis" in has and "acq" not in has, f"{label}: semvis without acq")
    _ill(issues, bool(has & {"acq", "rel"}) != bool(semsc), f"{label}: acq/rel and semsc must go together")
    _ill(issues, (A_ or is_fence or "cbar" in has) and not scopes, f"{label}: atomic or barrier without scope")
    _ill(issues, kind in (Kind.AVDEVICE, Kind.VISDEVICE) and len(has) > 1,
         f"{label}: avdevice/visdevice take no other token")
    var = None
    v1 = v2 = -1
    rest = rest.strip()
    if kind is Kind.CBAR:
        m = re.match(r"(\d+)", rest)
        if not m:
            issues.append(f"{label}: cbar without instance")
            ev.barrier = -1
        else:
            ev.barrier = int(m.group(1))
    elif rest:
        m = re.match(r"([^\s=]+)\s*(?:=\s*(-?\d+)(?:\s+(-?\d+))?)?\s*$", rest)
        if not m:
            raise FormatError(f"line {lineno}: cannot parse operands '{rest}'", file=path)
        var = m.group(1)
        if m.group(2) is not None:
            v1 = int(m.group(2))
        if m.group(3) is not None:
            v2 = int(m.group(3))
            _ill(issues, kind is not Kind.RMW or not A_, f"{label}: second value requires an RMW atomic")
    elif mem:
        issues.append(f"{label}: memory access without variable")
    return ev, var, v1, v2


# ---------------------------------------------------------------- query predicates
_TOK = re.compile(r"\s*(consistent\[X\]|racefree\[X\]|locordcomplete\[X\]|#[A-Za-z_]+|&&|\|\||!|\(|\)|"
                  r">=|<=|!=|=|<|>|\d+)")
MAX_QUERY_NESTING = 64
COUNTABLE = {"dr", "rs", "sw", "hb", "asmo", "locord"}


def _parse_pred(text: str, path: str, lineno: int):
    toks = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOK.match(text, pos)
        if not m:
            raise FormatError(f"line {lineno}: unsupported query syntax at '{text[pos:].strip()}'", file=path)
        toks.append(m.group(1))
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    toks.append(None)
    i = 0

    # Past the end every read is None (the end marker): a query cut short is a FormatError below,
    # never an IndexError.
    def peek():
        return toks[i] if i < len(toks) else None

    def take():
        nonlocal i
        t = peek()
        i += 1
        return t

    def expr(depth: int = 0):
        left = term(depth)
        while peek() in ("&&", "||"):
            op = take()
            left = (op, left, term(depth))
        return left

    def term(depth: int = 0):
        if depth > MAX_QUERY_NESTING:  # a hostile query must not exhaust the Python stack
            raise FormatError(f"line {lineno}: query nested more than {MAX_QUERY_NESTING} deep", file=path)
        t = take()
        if t == "!":
            return ("!", term(depth + 1))
        if t == "(":
            e = expr(depth + 1)
            if take() != ")":
                raise FormatError(f"line {lineno}: missing ')' in query", file=path)
            return e
        if t in ("consistent[X]", "racefree[X]"):
            return (t[:-3],)
        if t and t.startswith("#"):
            name = t[1:]
            if name not in COUNTABLE:
                raise FormatError(f"line {lineno}: unsupported relation count '#{name}' in query", file=path)
            op = take()
            num = take()
            if op not in ("=", "!=", ">", "<", ">=", "<=") or num is None or not num.isdigit():
                raise FormatError(f"line {lineno}: malformed count comparison in query", file=path)
            return ("#", name, op, int(num))
        if t is None:
            raise FormatError(f"line {lineno}: query ends early", file=path)
        raise FormatError(f"line {lineno}: unsupported query term '{t}'", file=path)

    e = expr()
    if peek() is not None:
        raise FormatError(f"line {lineno}: trailing text in query: '{peek()}'", file=path)
    return e
