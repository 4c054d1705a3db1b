"""`amddbg divergence CODEOBJ --kernel NAME --grid ... --block ... [--arg SPEC]... [--svg FILE] [--html FILE]
[--json]`: run the dispatch in the emulator and fold each wave's EXEC onto source lines (amddbg.teach)."""

from __future__ import annotations

import argparse
import json
import sys

from amddbg.errors import AmddbgError


def add_parser(p: argparse.ArgumentParser) -> None:
    from amddbg.cli import run as run_cli

    run_cli.add_parser(p)
    for a in list(p._actions):
        if a.dest in ("core", "layout"):
            p._remove_action(a)
            for s in a.option_strings:
                p._option_string_actions.pop(s, None)
    p.add_argument("--svg", metavar="FILE", help="write the timeline as SVG (for slides)")
    p.add_argument("--html", metavar="FILE", help="write one self-contained HTML page")


def report_for(args):
    from amddbg.cli.run import _dims
    from amddbg.emu.args import parse_arg
    from amddbg.emu.machine import Machine
    from amddbg.teach.divergence import record
    from amddbg.textsafe import check_regular

    check_regular(args.codeobj)
    m = Machine(args.codeobj, seed=args.seed)
    m.dispatch(args.kernel, _dims(args.grid, "grid"), _dims(args.block, "block"), [parse_arg(a) for a in args.arg])
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
    for d in rep.divergences[:8]:
        console.print(f"diverged at line {d['line']} (wave {d['wave']}): lanes {d['before']} -> {d['after']}",
                      markup=False)
    for d in rep.reconvergences[:8]:
        console.print(f"reconverged at line {d['line']} (wave {d['wave']}): lanes {d['before']} -> {d['after']}",
                      markup=False)
    return 0
