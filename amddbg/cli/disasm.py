"""`amddbg disasm FILE`: disassemble the executable sections of an AMDGPU code object.

Human output follows `llvm-objdump -d` (symbol headers, one instruction per line, branch targets
named `<symbol+0xoff>`), with addresses first and optional source lines (`--source`, from the DWARF
line table). `--json` prints JSON Lines, one object per instruction:
`{"address": int, "bytes": "<lowercase hex, file order>", "text": "<mnemonic operands>"}`.

Decoding is per function, from each symbol's start, like objdump: a stray data word cannot shift
the instruction boundaries of the next function.
"""

from __future__ import annotations

import argparse
import bisect
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from amddbg.errors import NotSupported, UsageError
from amddbg.textsafe import safe


def add_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="AMDGPU code object (ELF)")
    sel = p.add_mutually_exclusive_group()
    sel.add_argument("--kernel", metavar="NAME", help="only this kernel")
    sel.add_argument("--function", metavar="NAME", help="only this function (kernel or device function)")
    sel.add_argument("--address", metavar="A[:B]",
                     help="the function containing A, or the range [A, B) (hex with 0x, or decimal)")
    p.add_argument("--source", action="store_true", help="interleave source lines from the DWARF line table")
    p.add_argument("--json", action="store_true", help="JSON Lines: address, bytes, text per instruction")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A run of code decoded from one start address (a function, or the part of a section before one)."""

    section: str
    name: str | None  # symbol name, None for code not covered by a symbol
    start: int
    end: int
    data: bytes
    symbol_size: int = 0  # the symbol's own size (the chunk runs on to the next symbol, like objdump)


def _parse_int(text: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        try:
            return int(text, 16)
        except ValueError:
            raise UsageError(f"not an address: {text!r}") from None


def load(path: str):
    """The code object at `path` (amddbg.codeobj)."""
    from amddbg.codeobj import CodeObject, classify

    kind = classify(path)
    if kind != "code_object":
        raise UsageError(f"{path}: is a {kind}, not a code object; `amddbg info {path}` lists its code objects")
    return CodeObject.from_path(path)


def chunks(co) -> list[Chunk]:
    """Every executable section split at function symbols, in address order."""
    out: list[Chunk] = []
    funcs = co.functions()
    # objdump restarts decoding at every symbol in the section, not only at functions
    others = [s for s in co.symbols() if s.kind not in ("kernel", "function", "lds", "undefined", "resource")]
    for sec in co.code_sections():
        data = bytes(sec.data)
        lo, hi = sec.address, sec.address + sec.size
        names: dict[int, tuple[str, int]] = {}
        for s in funcs:
            if lo <= s.address < hi:
                names.setdefault(s.address, (s.name, s.size))
        for s in others:
            if s.section == sec.name and lo <= s.address < hi:
                names.setdefault(s.address, (s.name, s.size))
        starts = sorted(names)
        bounds = ([lo] if not starts or starts[0] != lo else []) + starts + [hi]
        for a, b in zip(bounds, bounds[1:], strict=False):
            if b > a:
                name, size = names.get(a, (None, 0))
                out.append(Chunk(sec.name, name, a, b, data[a - lo : b - lo], size))
    out.sort(key=lambda c: c.start)
    return out


def _demangled(name: str) -> str | None:
    """`ns::f` for a mangled `name` (matching --function by source name); None if unavailable."""
    try:
        from amddbg.dwarf.demangle import demangle
    except ImportError:
        return None
    try:
        return demangle(name).split("(")[0]
    except Exception:  # noqa: BLE001 - demangling is a convenience, never an error here
        return None


def select(co, all_chunks: list[Chunk], args) -> tuple[list[Chunk], tuple[int, int] | None]:
    """The chunks the options ask for, and an optional address window inside them."""
    if args.kernel or args.function:
        want = args.kernel or args.function
        hits = [c for c in all_chunks if c.name == want]
        if not hits and args.kernel:
            k = co.kernel(want)
            if k is not None and k.entry is not None:
                hits = [c for c in all_chunks if c.start == k.entry.address]
        if not hits:
            hits = [c for c in all_chunks if c.name and _demangled(c.name) == want]
        if args.kernel:
            kernels = {s.name for s in co.functions() if s.kind == "kernel"}
            hits = [c for c in hits if c.name in kernels] or ([] if hits else hits)
        if not hits:
            kind = "kernel" if args.kernel else "function"
            names = sorted({c.name for c in all_chunks if c.name})
            listed = ", ".join(names[:8]) + (" ..." if len(names) > 8 else "")
            raise UsageError(f"no {kind} named {want!r} in {args.file} (have: {listed})")
        hit = hits[0]
        return [hit], ((hit.start, hit.start + hit.symbol_size) if hit.symbol_size else None)
    if args.address:
        a_text, _, b_text = args.address.partition(":")
        a = _parse_int(a_text)
        if b_text:
            b = _parse_int(b_text)
            if b <= a:
                raise UsageError(f"empty address range {args.address}")
            hits = [c for c in all_chunks if c.start < b and a < c.end]
            if not hits:
                raise UsageError(f"no code in [{a:#x}, {b:#x})")
            return hits, (a, b)
        hits = [c for c in all_chunks if c.start <= a < c.end]
        if not hits:
            raise UsageError(f"address {a:#x} is not in an executable section")
        return hits, None
    return all_chunks, None


def instructions(decoder, chunk: Chunk, window: tuple[int, int] | None = None) -> Iterator:
    for ins in decoder.decode_all(chunk.data, chunk.start):
        if window is None or window[0] <= ins.address < window[1]:
            yield ins


def _write_json(out, decoder, picked: list[Chunk], window: tuple[int, int] | None) -> None:
    """JSON Lines; the decoder's text-only fast path when it has one (no Instruction records)."""
    escaped: dict[str, str] = {}
    fast = getattr(decoder, "iter_text", None)
    buf: list[str] = []
    for chunk in picked:
        data, start = chunk.data, chunk.start
        if fast is not None:
            rows = ((a, data[a - start : a - start + n], t) for a, n, t in fast(data, start))
        else:
            rows = ((i.address, i.raw, i.text) for i in decoder.decode_all(data, start))
        for addr, raw, text in rows:
            if window is not None and not window[0] <= addr < window[1]:
                continue
            esc = escaped.get(text)
            if esc is None:
                esc = escaped[text] = json.dumps(text)
            buf.append(f'{{"address": {addr}, "bytes": "{raw.hex()}", "text": {esc}}}\n')
            if len(buf) >= 4096:
                out.write("".join(buf))
                buf.clear()
    out.write("".join(buf))


def run(args: argparse.Namespace) -> int:
    from amddbg.isa import decoder_for

    co = load(args.file)
    decoder = decoder_for(co.processor, wave64=getattr(co, "wavefront_size", None) == 64)
    all_chunks = chunks(co)
    picked, window = select(co, all_chunks, args)
    source: dict[int, list[str]] = {}
    if args.source:
        import amddbg.dwarf as dwarf

        fn = getattr(dwarf, "lines_for_disasm", None)
        if fn is None:
            raise NotSupported("disasm --source (DWARF line tables)")
        source = fn(co) or {}
    out = sys.stdout
    if args.json:
        _write_json(out, decoder, picked, window)
        return 0
    starts = [c.start for c in all_chunks]

    def label(target: int) -> str:
        i = bisect.bisect_right(starts, target) - 1
        if i < 0 or target >= all_chunks[i].end or all_chunks[i].name is None:
            return ""
        c = all_chunks[i]
        off = target - c.start
        return f"<{safe(c.name)}+{off:#x}>" if off else f"<{safe(c.name)}>"

    out.write(f"{safe(args.file)}:\tfile format elf64-amdgpu ({co.processor})\n")
    section = None
    for chunk in picked:
        if chunk.section != section:
            section = chunk.section
            out.write(f"\nDisassembly of section {safe(section)}:\n")
        if chunk.name is not None:
            out.write(f"\n{chunk.start:016x} <{safe(chunk.name)}>:\n")
        else:
            out.write("\n")
        lines = []
        for ins in instructions(decoder, chunk, window):
            for src in source.get(ins.address, ()):
                lines.append(f"                {safe(src)}\n")
            text = ins.text
            if ins.branch_target is not None:
                lab = label(ins.branch_target)
                text = f"{text:<48s} // {lab or hex(ins.branch_target)}"
            elif ins.unknown_reason:
                text = f"{text:<48s} // {ins.unknown_reason}"
            lines.append(f"  {ins.address:8x}:  {ins.raw.hex():<16s}  {text}\n")
        out.write("".join(lines))
    return 0
