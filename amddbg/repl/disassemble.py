"""`disassemble [/s] [/r] [FUNC|ADDR[,+LEN]|START,END]` in gdb's shape, with the `=>` PC marker."""

from __future__ import annotations

import re

from amddbg.dwarf.demangle import plain_name
from amddbg.errors import UsageError
from amddbg.textsafe import safe


def print_instructions(dbg, insns, *, pc: int | None, raw: bool = False, source: bool = False) -> None:
    program = dbg.program
    last_line = None
    for i in insns:
        if source:
            srcs = program.symbolize(i.address)
            if srcs and srcs[0].file:
                key = (srcs[0].file, srcs[0].line)
                if key != last_line:
                    text = dbg._source_line(srcs[0].file, srcs[0].line)
                    dbg.out(f"{safe(srcs[0].file)}:")
                    dbg.out(f"{srcs[0].line}\t{text if text is not None else ''}")
                    last_line = key
        hit = program.symbol_at(i.address)
        sym = f" <{safe(plain_name(_dem(hit[1].name)))}+{hit[2]}>" if hit else ""
        mark = "=> " if pc is not None and i.address == pc else "   "
        rawtext = ("\t" + " ".join(f"{b:02x}" for b in i.raw)) if raw else ""
        text = safe(i.text)
        target = getattr(i, "branch_target", None)
        if target is not None:  # ROCgdb: the branch's target address and symbol after the operand
            th = program.symbol_at(target)
            text += f" # {target:#x}" + (f" <{safe(plain_name(_dem(th[1].name)))}+{th[2]}>" if th else "")
        dbg.out(f"{mark}0x{i.address:016x}{sym}:{rawtext}\t{text}")


def _dem(name):
    from amddbg.dwarf.demangle import demangle

    return demangle(name) or name


def disassemble(dbg, args: str) -> None:
    mods = set()
    while args.startswith("/"):
        m = re.match(r"/(\w+)\s*(.*)", args, re.S)
        if not m:
            raise UsageError("Invalid disassembly modifier.")
        for ch in m.group(1):
            if ch not in "srm":
                raise UsageError("Invalid disassembly modifier.")
            mods.add("s" if ch == "m" else ch)
        args = m.group(2)
    program = dbg.program
    frame = program.current_frame
    pc = frame.pc if frame is not None else None
    args = args.strip()
    if not args:
        if pc is None:
            raise UsageError("No frame selected.")
        # the function is the frame's (a trap-stopped frame 0's pc register may be past its s_trap's function)
        where = getattr(frame, "source_pc", None) or pc
        insns = program.disassemble(where)
        hit = program.symbol_at(where)
        name = plain_name(_dem(hit[1].name)) if hit else "??"
    elif "," in args:
        a, b = args.split(",", 1)
        start = dbg._address(a)
        b = b.strip()
        end = start + dbg.program.evaluate(b[1:]).to_int() if b.startswith("+") else dbg._address(b)
        insns = program.disassemble(start, end)
        name = None
    else:
        start = dbg._address(args)
        insns = program.disassemble(start)
        hit = program.symbol_at(start)
        name = plain_name(_dem(hit[1].name)) if hit else "??"
    if name:
        dbg.out(f"Dump of assembler code for function {safe(name)}:")
    else:
        lo, hi = (insns[0].address, insns[-1].address) if insns else (0, 0)
        dbg.out(f"Dump of assembler code from {lo:#x} to {hi:#x}:")
    print_instructions(dbg, insns, pc=pc, raw="r" in mods, source="s" in mods)
    dbg.out("End of assembler dump.")
