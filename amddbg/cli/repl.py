"""`amddbg [-batch] [-ex CMD]... [-x FILE] [-q] [--json] [--python SCRIPT] FILE...`: the debugger.

gdb's command line, so that scripts carry over: ``-batch`` runs the ``-ex``/``-x`` commands in order
and exits; a failing command prints ``amddbg: error: ...`` and later commands still run; the exit code is
1 if any command failed. Without ``-batch`` the commands run first and then the prompt opens (on a tty),
or commands are read from a piped stdin. On a core, a one-screen summary comes first (not with ``-q``
or ``-batch``).
"""

from __future__ import annotations

import argparse
import sys

from amddbg.errors import AmddbgError
from amddbg.termwidth import output_width, wrap_at_words
from amddbg.textsafe import safe


def add_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("files", nargs="*", metavar="FILE", help="core file(s) (split, host + GPU, unified) or code objects")
    p.add_argument("-batch", "--batch", action="store_true", help="run the -ex/-x commands and exit")
    p.add_argument("-ex", "--eval-command", action="append", dest="commands", default=[], metavar="CMD",
                   type=lambda s: ("ex", s), help="run CMD (repeatable, in order with -x)")
    p.add_argument("-x", "--command", action="append", dest="commands", metavar="FILE",
                   type=lambda s: ("x", s), help="run the commands in FILE")
    p.add_argument("-q", "-quiet", "--quiet", "-silent", action="store_true", help="no summary on start")
    p.add_argument("-nx", "--nx", action="store_true", help="accepted for gdb compatibility (no init files)")
    p.add_argument("--json", action="store_true",
                   help="JSON documents for info threads|waves|lanes|dispatches|queues|agents, bt, print, x")
    p.add_argument("--python", metavar="SCRIPT", help="run a Python script with `prog` bound to the Program")
    p.add_argument("--sysroot", metavar="DIR", help="prefix for file:// code object paths")
    p.add_argument("--solib-search-path", metavar="PATH", help="directories searched for file:// code objects")
    p.add_argument("--plugin", action="append", default=[], metavar="FILE.py", help="load a plugin file")
    p.add_argument("--no-plugins", action="store_true", help="load no plugins")


def run(args: argparse.Namespace) -> int:
    if not args.files:
        raise AmddbgError("no core or code object given (usage: amddbg [-batch] [-ex CMD] FILE...)")
    import amddbg
    from amddbg.plugins import load_plugins
    from amddbg.repl.commands import Debugger
    from amddbg.repl.runline import FAILED, QUIT, run_line

    program = amddbg.open(args.files, sysroot=args.sysroot, solib_search_path=args.solib_search_path)
    plugins = load_plugins(files=args.plugin, enabled=not args.no_plugins)
    for w in program.warnings:
        print(f"amddbg: warning: {safe(w)}", file=sys.stderr)

    def out(line: str) -> None:
        sys.stdout.write(line + "\n")

    dbg = Debugger(program, out=out, json_mode=args.json, plugins=plugins)
    dbg.width = lambda: output_width(sys.stdout)  # read per command: the terminal may have been resized
    if args.python:
        from amddbg.repl.python import ScriptFailed, run_script

        try:
            run_script(dbg, args.python)
        except ScriptFailed:
            return 1
        return 0
    tty = sys.stdin.isatty() and sys.stdout.isatty()
    if not args.batch and not args.quiet and not args.json:
        from amddbg.repl.summary import has_live_waves, summary_lines

        width = output_width(sys.stdout)  # $COLUMNS, else a terminal's width, else 0: whole lines into a pipe
        # At the prompt the explanation comes from a worker process and is printed when ready (a debugger never
        # freezes at start); a pipe or script gets it in place, so its output is in a fixed order.
        background = tty and not args.batch and has_live_waves(program)
        for line in wrap_at_words(summary_lines(program, explain=not background), width):
            out(line)
        if background:
            from amddbg.repl.background import WORKING, PendingExplanation

            dbg.pending_summary = PendingExplanation(list(args.files), sysroot=args.sysroot,
                                                     solib_search_path=args.solib_search_path)
            for line in wrap_at_words([WORKING], width):
                out(line)
    failed = False
    for kind, value in args.commands:
        lines = [value] if kind == "ex" else _read_command_file(value)
        for line in lines:
            status = run_line(dbg, line)
            if status == QUIT:
                return 1 if failed else 0
            failed |= status == FAILED
    if args.batch:
        return 1 if failed else 0
    if tty:
        from amddbg.repl.shell import interactive

        try:
            return interactive(dbg)
        finally:
            if dbg.pending_summary is not None:
                dbg.pending_summary.cancel()
    if not sys.stdin.isatty():
        from amddbg.repl.shell import plain_loop

        rc = plain_loop(dbg, sys.stdin)
        return 1 if failed or rc else 0
    return 1 if failed else 0


def _read_command_file(path: str) -> list[str]:
    from amddbg.textsafe import check_regular

    check_regular(path)
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [line.rstrip("\n") for line in f]
    except OSError as exc:
        raise AmddbgError(f"{path}: {exc.strerror}") from None


__all__ = ["add_parser", "run"]
