"""Where a wave is, in the lines the user wrote: the frame chain of a PC, innermost first, through inlining.

A barrier reached through an always-inline helper (``__syncthreads()``, a ``wg_sync()`` of the user's own) sits
at the helper's line in the line table; the user wants the kernel's line that calls it. So every location names
the inlined chain at its PC (innermost first), and the summaries quote the **outermost** line of that chain (the
line in the physical function: the kernel, or a real callee), with the helpers' lines as detail.

No ``line 0``: frames come from ``Program.symbolize``, whose lines are attributed as gdb does
(amddbg.dwarf.attribution). A PC gdb would put on the line *before* a loop (spill code or the loop's head, with
no line of its own) but that sits inside a backward-branch loop is named by the loop instead: its first real line
(the location) and "loop at lines A-B" (the text), since the wave is running the loop, not the line before it.

JSON (docs/json.md, docs/explain.md): ``expand_locations`` adds, after each location whose PC is inlined code,
one entry per call site outward with the same ``role`` and ``"inlined_from": {"function", "file", "line"}`` (the
frame it calls), so tools that want the innermost line keep the first entry. A wave's own location inside a
called function (-O0 keeps helpers as calls) continues through the callers `bt` unwinds (``wave_place``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from amddbg.errors import AmddbgError
from amddbg.replay.code import loop_of
from amddbg.replay.wwm import program_exec


@dataclass(frozen=True)
class Place:
    """A PC in source terms: ``chain`` is [(function, file, line)] innermost first, never line 0 where a line
    exists; ``loop`` is (first line, last line) when the PC is loop overhead named by its loop."""

    pc: int
    chain: tuple
    loop: tuple | None = None
    generated: bool = False  # the innermost line was attributed (a line-0 row), and no loop names it

    @property
    def outer(self) -> tuple:
        return self.chain[-1] if self.chain else (None, None, None)

    def text(self) -> str:
        """``k.hip:56 (in __syncthreads at k.hip:16)``; ``loop at lines 26-27 of k.hip``; the PC if no line."""
        if not self.chain or not self.chain[0][1]:
            return f"{self.pc:#x}"
        if self.loop is not None:
            fn, file, _line = self.chain[0]
            lo, hi = self.loop
            span = f"{os.path.basename(file)}:{lo}" + (f"-{hi}" if hi != lo else "")
            if len(self.chain) == 1:
                return f"the loop at {span}"
            return f"{_short(self.outer)} (the loop at {span} in {_plain(fn)})"
        fn, file, line = self.outer
        out = _short(self.outer)
        if self.generated and len(self.chain) == 1:
            out = f"compiler-generated code in {_plain(fn)} near {out}"
        if len(self.chain) > 1:
            out += " (in " + ", ".join(f"{_plain(f[0])} at {_short(f)}" for f in self.chain[-2::-1]) + ")"
        return out


def _short(frame) -> str:
    return f"{os.path.basename(frame[1])}:{frame[2]}" if frame[1] else "??"


def _plain(name: str | None) -> str:
    from amddbg.dwarf.demangle import plain_name  # name shortening (the same everywhere a name is printed)

    return plain_name(name) if name else "??"


def place(program, pc: int) -> Place:
    """The source place of an absolute PC (cached per program: thousands of waves share a few PCs)."""
    cache = program.__dict__.setdefault("_where_cache", {})
    hit = cache.get(pc)
    if hit is None:
        hit = cache[pc] = _place(program, pc)
    return hit


def _place(program, pc: int) -> Place:
    srcs = program.symbolize(pc)
    chain = tuple((s.function, s.file, s.line or None) for s in srcs)
    how = srcs[0].how if srcs else ""
    if not how:
        return Place(pc, chain)
    loop = _loop_naming(program, pc)
    if loop is None:
        return Place(pc, chain, generated=how in ("following", "declaration"))
    return loop


def _loop_naming(program, pc: int) -> Place | None:
    """Loop overhead at `pc` (a line-0 row inside the innermost backward-branch loop): the loop's first real line
    and its line span in that line's file and function."""
    bounds, body = loop_of(program, pc)
    if bounds is None:
        return None
    first = None
    lines = set()
    for i in body:
        srcs = program.symbolize(i.address)
        if not srcs or srcs[0].how or not srcs[0].line or not srcs[0].file:
            continue
        if first is None:
            first = srcs
        if (srcs[0].file, srcs[0].function) == (first[0].file, first[0].function):
            lines.add(srcs[0].line)
    if first is None:
        return None
    chain = tuple((s.function, s.file, s.line or None) for s in first)
    return Place(pc, chain, (min(lines), max(lines)))


def trap_pc(program, pc: int) -> int:
    """The `s_trap`'s own address when `pc` is the instruction after one (the saved PC of a trapped wave, or an
    emulated one): a trap's line is the trap's, as `bt` and addr2line say, not the next statement's."""
    try:
        prev = program.instruction_before(pc)
    except AmddbgError:
        return pc
    return prev.address if prev is not None and prev.mnemonic == "s_trap" else pc


def wave_pc(t) -> int:
    """Where a wave is for the user: its PC, or its `s_trap`'s for a wave the trap stopped."""
    from amddbg.session.threads import WaveState

    return trap_pc(t.program, t.pc) if t.state is WaveState.TRAPPED else t.pc


def wave_place(t, pc: int | None = None) -> Place:
    """Where a wave is: its PC's place, and, when the PC is in a called function (not the kernel: -O0 keeps
    helpers as calls), the chain continues through the callers `bt` shows, so the summary quotes the kernel's
    line. Unwinding is per wave: only waves inside a callee pay for it."""
    pc = wave_pc(t) if pc is None else pc
    p = place(t.program, pc)
    sym = t.program.symbol_at(pc)
    if sym is None or sym[1].kind == "kernel" or p.loop is not None:
        return p
    try:
        frames = t.frames()
    except AmddbgError:
        return p
    outer = [(f.function, f.file, f.line or None) for f in frames[len(p.chain):] if f.file and f.line]
    return Place(p.pc, p.chain + tuple(outer), p.loop, p.generated) if outer else p


def wave_where(t, pc: int | None = None) -> str:
    """The user's line for a wave's PC (default: where the wave is): the outermost line of its inlined chain, the
    helpers' lines as detail."""
    if pc is None or pc == wave_pc(t):
        return wave_place(t).text()
    return place(t.program, pc).text()


def wave_location(t, role: str, pc: int | None = None) -> dict:
    """The innermost source location of `pc` (default: the wave's PC; then its callers too, as `bt` shows
    them), never line 0. A `pc` in the same called function as the wave (the poll of an -O0 or noinline lock
    helper the wave spins in) continues through the wave's callers too."""
    here = wave_pc(t)
    if pc is None or pc == here:
        return location(t.program, role, here, wave_place(t))
    callers = _wave_callers(t, here, pc)
    if callers:
        p = place(t.program, pc)
        return location(t.program, role, pc, Place(p.pc, p.chain + callers, p.loop, p.generated))
    return location(t.program, role, pc)


def _wave_callers(t, here: int, pc: int) -> tuple:
    """The wave's caller frames (function, file, line), outermost last, when `pc` is in the same called (non-kernel)
    function as the wave's PC `here`; else ()."""
    sym, other = t.program.symbol_at(here), t.program.symbol_at(pc)
    if sym is None or other is None or sym[1].kind == "kernel" or sym[1] is not other[1]:
        return ()
    try:
        frames = t.frames()
    except AmddbgError:
        return ()
    # the frames of the calls the wave is in: past the frames at its own PC (the function and what is inlined in it)
    return tuple((f.function, f.file, f.line or None) for f in frames if f.pc != here and f.file and f.line)


def wave_call_place(t, pc: int) -> Place | None:
    """`static_call_place` from each function on wave `t`'s stack, its own first (a waiter inside `__syncthreads()`
    at -O0 is in a callee; the call to the writer is in the kernel)."""
    pcs = [wave_pc(t)]
    try:
        pcs += [f.pc for f in t.frames() if f.pc not in pcs]
    except AmddbgError:
        pass
    for caller_pc in pcs:
        got = static_call_place(t.program, pc, caller_pc)
        if got is not None:
            return got
    return None


def static_call_place(program, pc: int, caller_pc: int) -> Place | None:
    """`pc`'s place continued through the one call in `caller_pc`'s function to the function holding `pc` (-O0
    keeps helpers as calls: the waiter of a barrier cycle writes the flag in `signal_stage()`, called once from the
    kernel), found from the call's target (`s_getpc_b64` + the symbol's offset, `code.pc_relative_base`); None
    when the function is the kernel itself, or there is no such call or more than one."""
    from amddbg.replay.code import pc_relative_base

    callee, caller = program.symbol_at(pc), program.symbol_at(caller_pc)
    if callee is None or caller is None or callee[1].kind == "kernel" or callee[1] is caller[1]:
        return None
    start = callee[0].load_address + callee[1].address
    try:
        insns = program.disassemble(caller_pc)
    except AmddbgError:
        return None
    calls = [i for i in insns if i.is_call and pc_relative_base(insns, i) == start]
    if len(calls) != 1:
        return None
    p, c = place(program, pc), place(program, calls[0].address)
    if not c.chain or not c.chain[0][2]:
        return None
    return Place(p.pc, p.chain + c.chain, p.loop, p.generated)


def call_site_place(program, pc: int, return_address: int | None) -> Place | None:
    """`pc`'s place continued through the call that `return_address` returns to (a PC replay reached inside a
    called function, -O0's `unlock()`: its caller's line), or None when that is not the address after a call."""
    if not return_address or program.symbol_at(pc) is None or program.symbol_at(pc)[1].kind == "kernel":
        return None
    caller = program.symbol_at(return_address)
    if caller is None:
        return None
    try:
        insns = program.disassemble(return_address)
    except AmddbgError:
        return None
    call = next((i for i in insns if i.address + i.size == return_address), None)
    if call is None or not call.is_call:
        return None
    p, c = place(program, pc), place(program, call.address)
    if not c.chain or not c.chain[0][2]:
        return None
    return Place(p.pc, p.chain + c.chain, p.loop, p.generated)


def wave_doc(t) -> dict:
    """A wave as a finding's JSON lists it: workgroup, wave in group, the lanes the program runs (not the
    whole-wave-mode EXEC of spill code, amddbg.replay.wwm), `info threads` id and target id."""
    from amddbg.dwarf.values import lane_ranges

    return {"workgroup": list(t.workgroup) if t.workgroup else None, "wave_in_group": t.wave_in_group,
            "lanes": lane_ranges(program_exec(t), t.lanes), "thread": t.number, "target_id": t.target_id}


def location(program, role: str, pc: int, place_: Place | None = None) -> dict:
    """The innermost location dict of `pc` (the JSON contract's shape; ``expand_locations`` adds call sites; a
    `place_` with callers beyond the inlined chain (``wave_place``) is kept for it under ``_place``)."""
    p = place_ if place_ is not None else place(program, pc)
    fn, file, line = p.chain[0] if p.chain else (None, None, None)
    if p.chain and not p.chain[0][0]:
        sym = program.symbol_at(pc)
        fn = sym[1].name if sym else None
    out = {"function": _plain(fn) if fn else None, "file": file, "line": line, "role": role, "pc": f"{pc:#x}"}
    if place_ is not None and len(place_.chain) > len(place(program, pc).chain):
        out["_place"] = place_  # dropped by expand_locations (never in the JSON)
    return out


def expand_locations(program, locations: list) -> list:
    """Each location followed by its call sites outward (same role, ``inlined_from`` the frame inside)."""
    out = []
    for loc in locations:
        if "inlined_from" in loc:
            continue  # already expanded (idempotent)
        own = loc.pop("_place", None)
        out.append(loc)
        try:
            pc = int(str(loc.get("pc")), 0)
        except (TypeError, ValueError):
            continue
        try:
            chain = own.chain if own is not None else place(program, pc).chain
        except AmddbgError:
            continue
        for inner, outer in zip(chain, chain[1:], strict=False):
            if not outer[1] or not outer[2]:
                continue
            out.append({"function": _plain(outer[0]), "file": outer[1], "line": outer[2], "role": loc["role"],
                        "pc": loc["pc"], "inlined_from": {"function": _plain(inner[0]), "file": inner[1],
                                                          "line": inner[2]}})
    return out


def finish(program, explanation) -> None:
    """Merge spin findings that are one spin seen two ways, then expand every finding's locations (once, after
    all analyses added theirs)."""
    explanation.findings = merge_spins(program, explanation.findings)
    for f in explanation.findings:
        f.locations = expand_locations(program, f.locations)


def merge_spins(program, findings: list) -> list:
    """One finding per spin: waves polling the same address at the same line with the same cause are one group,
    whether the saved registers showed the address (static) or replay saw the loads repeat (dynamic: -O0 waves
    that stopped between reloading the flag pointer and loading the flag). The first finding keeps its text, with
    the merged waves named."""
    out, by = [], {}
    for f in findings:
        if f.kind != "spin_forever" or not f.locations or f.details.get("address") is None:
            out.append(f)
            continue
        addr = f.details["address"]
        m = re.search(r"0x[0-9a-fA-F]+", addr) if isinstance(addr, str) else None
        addr = int(m.group(0), 16) if m else addr  # "ready at 0x10000f000" (replay) is "0x10000f000" (static)
        key = (f.cause, str(addr), f.locations[0].get("file"),
               f.locations[0].get("line"))
        g = by.get(key)
        if g is None:
            by[key] = f
            out.append(f)
            continue
        try:
            before = who([program.thread(w["thread"]) for w in g.waves])
            seen = {w.get("thread") for w in g.waves}
            g.waves += [w for w in f.waves if w.get("thread") not in seen]
            after = who([program.thread(w["thread"]) for w in g.waves])
        except (AmddbgError, KeyError, TypeError):
            out.append(f)  # waves without thread ids: leave both findings as they are
            continue
        if g.summary.startswith(before):
            rest = g.summary[len(before):]
            if before.startswith("wave ") and not after.startswith("wave "):
                rest = rest.replace(" polls ", " poll ", 1).replace(" keeps polling ", " keep polling ", 1)
            g.summary = after + rest
        for loc in f.locations:
            if not any(x["role"] == loc["role"] and x.get("line") == loc.get("line") for x in g.locations):
                g.locations.append(loc)
    return out


# ------------------------------------------------------------------------------------------- text


def wave_list(numbers: list[int]) -> str:
    """``1-4, 7`` from wave numbers."""
    ns = sorted(set(numbers))
    parts = []
    i = 0
    while i < len(ns):
        j = i
        while j + 1 < len(ns) and ns[j + 1] == ns[j] + 1:
            j += 1
        parts.append(str(ns[i]) if i == j else f"{ns[i]}-{ns[j]}")
        i = j + 1
    return ", ".join(parts)


def text_lines(explanation) -> list[str]:
    """The text form of an Explanation (CLI and REPL print the same): per finding its summary, then its locations
    with call sites indented under the location they call into."""
    from amddbg.textsafe import safe

    out = [f"verdict: {explanation.verdict}"]
    for f in explanation.findings:
        out.append(f"- {f.kind} ({f.cause}): {safe(f.summary)}")
        sym = getattr(f, "by_symmetry", None)
        if sym:
            n = sym["replayed"] + sym["followed"]
            out.append(f"    ({n} wave{'s' if n != 1 else ''}: {sym['replayed']} replayed, the rest by symmetry: "
                       f"threads {sym['threads']} follow their class's representative)")
        for loc in f.locations:
            where = f"{loc['file']}:{loc['line']}" if loc.get("file") else loc.get("pc")
            if "inlined_from" in loc:
                out.append(f"        called from {safe(loc.get('function') or '??')} at {safe(where)}")
            else:
                out.append(f"    {loc['role']}: {safe(loc.get('function') or '??')} at {safe(where)}")
    return out


def who(threads) -> str:
    """Waves named by workgroup and wave-in-group, grouped (``waves 1-4, 7 of workgroup (0,0,0)``), with the
    thread ids `info threads` shows (``threads 2-5, 8``), so each can be selected in the REPL."""
    threads = list(threads)
    if not threads:
        return "no wave"
    by_wg: dict = {}
    for t in threads:
        by_wg.setdefault(tuple(t.workgroup or ()), []).append(t)
    ids = wave_list([t.number for t in threads])
    tid = f"(thread{'s' if len(threads) > 1 else ''} {ids})"
    if len(by_wg) == 1:
        wg, ts = next(iter(by_wg.items()))
        n = wave_list([t.wave_in_group for t in ts if t.wave_in_group is not None])
        wgs = f"({','.join(map(str, wg))})" if wg else "(?)"
        return f"wave{'s' if len(ts) > 1 else ''} {n} of workgroup {wgs} {tid}"
    return f"{len(threads)} waves in {len(by_wg)} workgroups {tid}"
