"""`x/NFU [SPACE#]ADDRESS`: gdb's memory examine, with ROCgdb's address-space qualifiers.

N units (default 1) of size U (b h w g; default w, sticky) printed as F (x d u o t a c f s i; default x,
sticky), gdb's per-line counts (8 bytes/halves, 4 words, 2 giants), each line labelled with its address
(``local#0x20:`` for a non-global space). ``x`` with no address continues after the last one.
"""

from __future__ import annotations

import re
import struct

from amddbg.errors import Unavailable, UsageError

UNIT = {"b": 1, "h": 2, "w": 4, "g": 8}
PER_LINE = {1: 8, 2: 8, 4: 4, 8: 2}
JSON_FIELDS = ("address", "space", "values")


def parse_spec(spec: str, last: dict) -> tuple[int, str, int]:
    m = re.fullmatch(r"(-?\d*)([a-z]*)", spec)
    if not m:
        raise UsageError(f"Invalid number \"{spec}\".")
    count = int(m.group(1)) if m.group(1) not in ("", "-") else 1
    fmt, unit = last["fmt"], last["unit"]
    for ch in m.group(2):
        if ch in UNIT:
            unit = ch
        elif ch in "xduotacfsiz":
            fmt = ch
        else:
            raise UsageError(f'Invalid format letter "{ch}".')
    if fmt == "a":
        unit = "g"
    if fmt == "c" and "b" not in m.group(2) and not any(u in m.group(2) for u in "hwg"):
        unit = "b"
    return count, fmt, UNIT[unit]


def _fmt(fmt: str, data: bytes, size: int) -> str:
    u = int.from_bytes(data, "little")
    s = int.from_bytes(data, "little", signed=True)
    if fmt == "x":
        return f"0x{u:0{2 * size}x}"
    if fmt == "z":
        return f"0x{u:0{2 * size}x}"
    if fmt == "d":
        return str(s)
    if fmt == "u":
        return str(u)
    if fmt == "o":
        return f"0{u:o}" if u else "0"
    if fmt == "t":
        return f"{u:0{8 * size}b}"
    if fmt == "a":
        return f"{u:#x}"
    if fmt == "c":
        from amddbg.session.values import _char_literal

        c = s & 0xFF
        return f"{s if -128 <= s < 128 else c} {_char_literal(c)}"
    if fmt == "f":
        if size == 4:
            from amddbg.dwarf.values import _float

            return _float(data)
        if size == 8:
            return repr(struct.unpack("<d", data)[0])
        if size == 2:
            return repr(struct.unpack("<e", data)[0])
        return str(s)
    return f"0x{u:0{2 * size}x}"


def _label(space: str | None, address: int) -> str:
    return f"{space}#{address:#x}" if space and space not in ("global", "generic") else f"{address:#x}"


def examine(dbg, args: str) -> None:
    as_json, args = dbg._json_flag(args)
    spec = ""
    if args.startswith("/"):
        m = re.match(r"/(\S*)\s*(.*)", args, re.S)
        spec, args = m.group(1), m.group(2)
    count, fmt, size = parse_spec(spec, dbg.last_x)
    space = None
    expr = args.strip()
    m = re.match(r"(global|generic|local|private_lane|private_wave|private|region|constant)#(.*)", expr, re.S)
    if m:
        space = "private_lane" if m.group(1) == "private" else m.group(1)
        expr = m.group(2)
    if expr:
        v = dbg.program.evaluate(expr)
        address = v.to_int() & (2**64 - 1)
        if space is None:
            from amddbg.session.values import scalar_kind

            if scalar_kind(v.type) == "pointer":
                ptype = v.type
                space = getattr(ptype, "space", None)
                if space is None and hasattr(ptype, "strip"):
                    try:
                        space = ptype.strip().address_space
                    except AttributeError:
                        space = None
    else:
        if dbg.last_x["next"] is None:
            raise UsageError("Argument required (starting display address).")
        address = dbg.last_x["next"]
        space = dbg.last_x["space"] if space is None else space
    space = space or "global"
    if fmt == "i":
        from amddbg.repl.disassemble import print_instructions

        insns = []
        addr = address
        for _ in range(count):
            i = dbg.program.instruction_at(addr)
            if i is None:
                break
            insns.append(i)
            addr = i.address + i.size
        frame = dbg.program.current_frame  # gdb marks the selected frame's PC with `=>`
        print_instructions(dbg, insns, pc=frame.pc if frame is not None else None)
        dbg.last_x.update(fmt=fmt, next=addr, space=space)
        return
    if fmt == "s":
        addr = address
        rows = []
        for _ in range(count):
            buf = bytearray()
            while len(buf) < 4096:
                try:
                    b = dbg.program.read(space, addr + len(buf), 1)
                except Unavailable:
                    break
                if b == b"\0":
                    break
                buf += b
            text = buf.decode("latin-1")
            rows.append((addr, '"' + text.encode("unicode_escape").decode() + '"'))
            addr += len(buf) + 1
        for a, t in rows:
            dbg.out(f"{_label(space, a)}:\t{t}")
        dbg.last_x.update(fmt=fmt, next=addr, space=space)
        return
    unit_letter = {v: k for k, v in UNIT.items()}[size]
    dbg.last_x.update(fmt=fmt, unit=unit_letter, space=space)
    per_line = PER_LINE[size]
    values = []
    lines = []
    for row in range(0, count, per_line):
        n = min(per_line, count - row)
        a = address + row * size
        try:
            data = dbg.program.read(space, a, n * size)
        except Unavailable as exc:
            if row == 0 and not lines:
                raise Unavailable(space, a, n * size, exc.why) from None
            lines.append(f"{_label(space, a)}:\t<unavailable>")
            break
        items = [_fmt(fmt, data[i * size:(i + 1) * size], size) for i in range(n)]
        values.extend(items)
        lines.append(f"{_label(space, a)}:\t" + "\t".join(items))
    dbg.last_x["next"] = address + count * size
    if as_json:
        dbg.emit_json({"command": "x", "address": address, "space": space, "format": fmt, "unit": size,
                       "values": values})
        return
    for line in lines:
        dbg.out(line)
