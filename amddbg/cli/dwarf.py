"""`amddbg dwarf`: decode DWARF expressions and dump call frame information.

    amddbg dwarf expr HEX [--encoding llvm-user|amd-draft] [--producer STR] [--augmentation STR]
    amddbg dwarf cfi FILE [--pc ADDR] [--no-rows]

A thin layer over `amddbg.dwarf.expr` and `amddbg.dwarf.cfi`; `cfi` prints llvm-dwarfdump-22's layout.
"""

from __future__ import annotations

import argparse
import sys

from amddbg.errors import UsageError


def add_parser(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="dwarf_command", metavar="WHAT")
    e = sub.add_parser("expr", help="decode and pretty-print a DWARF expression given in hex")
    e.add_argument("hex", nargs="+", help="expression bytes in hex (spaces, commas and 0x allowed)")
    e.add_argument("--encoding", choices=["llvm-user", "amd-draft"], default=None,
                   help="vendor-op encoding (default: chosen from --producer/--augmentation, else llvm-user)")
    e.add_argument("--producer", default=None,
                   help="DW_AT_producer of the CU (selects encoding and xderef map)")
    e.add_argument("--augmentation", default=None, help="DW_AT_LLVM_augmentation / CIE augmentation")
    e.add_argument("--style", choices=["llvm", "amddbg"], default="llvm",
                   help="llvm: llvm-dwarfdump-22 text; amddbg: assembler register names")
    e.add_argument("--address-size", type=int, default=8)
    e.add_argument("--one-line", action="store_true", help="print the whole expression on one line")
    c = sub.add_parser("cfi", help="dump CIEs, FDEs and rows of .debug_frame/.eh_frame")
    c.add_argument("file")
    c.add_argument("--pc", type=lambda s: int(s, 0), default=None, help="only the row covering this address")
    c.add_argument("--no-rows", action="store_true", help="do not print the computed rows")


def _parse_hex(parts: list[str]) -> bytes:
    text = " ".join(parts).replace(",", " ")
    tokens = []
    for tok in text.split():
        tok = tok[2:] if tok.lower().startswith("0x") else tok
        if len(tok) % 2:
            tok = "0" + tok if len(tok) == 1 else tok
        tokens.append(tok)
    try:
        return bytes.fromhex("".join(tokens))
    except ValueError:
        raise UsageError(f"not a hex byte string: {text!r}") from None


def run(args: argparse.Namespace) -> int:
    if args.dwarf_command == "expr":
        return _run_expr(args)
    if args.dwarf_command == "cfi":
        return _run_cfi(args)
    raise UsageError("usage: amddbg dwarf {expr,cfi} ... (see --help)")


def _run_expr(args: argparse.Namespace) -> int:
    from amddbg.dwarf.expr import Encoding, decode, encoding_for, format_op, format_ops

    data = _parse_hex(args.hex)
    enc = Encoding(args.encoding) if args.encoding else encoding_for(args.producer, args.augmentation)
    ops = decode(data, encoding=enc, address_size=args.address_size)
    out = sys.stdout
    if args.one_line:
        print(format_ops(ops, style=args.style, encoding=enc), file=out)
        return 0
    # Format everything before printing: a bad nested expression is one error line, not half a listing.
    lines = [f"{op.offset:#06x}  {data[op.offset:op.end].hex(' '):<24} {format_op(op, style=args.style, encoding=enc)}"
             for op in ops]
    print(f"# encoding: {enc}, {len(data)} bytes, {len(ops)} operations", file=out)
    for line in lines:
        print(line, file=out)
    return 0


def _run_cfi(args: argparse.Namespace) -> int:
    from amddbg.dwarf.cfi import frame_sections, row_for
    from amddbg.dwarf.cfi.dump import _encoding_of, dump_section, format_row

    sections = frame_sections(args.file)
    out = sys.stdout
    if args.pc is not None:
        for sec in sections:
            fde = sec.fde_for(args.pc)
            if fde is not None:
                row = row_for(sec, fde, args.pc)
                print(f"{sec.name} FDE at {fde.offset:#x} (pc={fde.low_pc:#x}...{fde.high_pc:#x})", file=out)
                print(format_row(row, row.cfa, row.rules, _encoding_of(fde.cie)), file=out)
                return 0
        # A query answered ("nothing covers it") is a success, like addr2line printing "??".
        print(f"no FDE covers {args.pc:#x}", file=out)
        return 0
    if not sections:
        print(f"{args.file}: no .debug_frame or .eh_frame", file=out)
        return 0
    for sec in sections:
        print(f"{sec.name} contents:", file=out)
        print("", file=out)
        for line in dump_section(sec, rows=not args.no_rows):
            print(line, file=out)
    return 0
