"""`amddbg divergence CODEOBJ --kernel NAME --grid ... --block ... [--arg SPEC]... [--svg FILE] [--html FILE]
[--json]`: run the dispatch in the emulator and fold each wave's EXEC onto source lines (amddbg.teach)."""

from __future__ import annotations

import argparse
import json
import sys

from amddbg.errors import AmddbgError


def add_parser(p: argparse.ArgumentParser, *, codeobj: bool = True) -> None:
    """The launch options (amddbg.emu.args) and the pictures; no --core/--layout: divergence writes no core."""
    from amddbg.emu.args import add_launch_arguments
    from amddbg.teach.divergence import add_picture_arguments

    add_launch_arguments(p, codeobj=codeobj)
    add_picture_arguments(p)


def report_for(args):
    from amddbg.emu.args import parse_arg, parse_dims
    from amddbg.emu.launch import launch_options
    from amddbg.emu.machine import Machine
    from amddbg.teach.divergence import record
    from amddbg.textsafe import check_regular

    check_regular(args.codeobj)
    m = Machine(args.codeobj, seed=args.seed)
    m.dispatch(args.kernel, parse_dims(args.grid, "grid"), parse_dims(args.block, "block"),
               [parse_arg(a) for a in args.arg], **launch_options(args))
    return record(m, max_instructions=args.max_instructions or 2_000_000)


def _write(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as exc:
        raise AmddbgError(f"{path}: cannot write: {exc.strerror}") from None


def run(args: argparse.Namespace) -> int:
    from amddbg.teach.timeline import html_page, rich_view, svg

    rep = report_for(args)
    if args.svg:
        _write(args.svg, svg(rep))
    if args.html:
        _write(args.html, html_page(rep))
    if args.json:
        json.dump(rep.to_json(), sys.stdout)
        sys.stdout.write("\n")
        return 0
    from amddbg.textsafe import console as safe_console

    console = safe_console(width=None if sys.stdout.isatty() else 200)
    console.print(f"{rep.status}: {rep.reason}", markup=False)
    table, timeline = rich_view(rep)
    console.print(table)
    console.print(timeline)
    from amddbg.teach.timeline import EFFICIENCY_RULE, event_lines

    for line in event_lines(rep):
        console.print(line, markup=False)
    console.print(f"({EFFICIENCY_RULE})", markup=False)
    return 0
