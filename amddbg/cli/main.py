"""`amddbg` entry point: argument parsing, subcommand dispatch and the one-line error contract.

argparse (standard library) is used rather than click/typer: it needs no dependency, supports
sub-parsers with per-subcommand --help, and its exit code 2 on usage errors matches our contract.

Start-up time matters (`amddbg addr2line` is driven like llvm-addr2line, one process per batch): this
module imports nothing heavy at load. `amddbg --version` answers before argparse is imported, and a
command line that names its subcommand builds only that subcommand's parser and imports only its
module (`build_parser(only=...)`); `amddbg --help` and unusual command lines build them all.
"""

from __future__ import annotations

import importlib
import os
import sys

from amddbg import __version__
from amddbg.errors import AmddbgError

# name -> (module under amddbg.cli, one-line help). Order is the order shown in --help.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "info": ("info", "describe a code object, bundle, host binary or core"),
    "disasm": ("disasm", "disassemble AMDGPU code (LLVM syntax)"),
    "addr2line": ("addr2line", "map addresses to source lines like llvm-addr2line"),
    "dwarf": ("dwarf", "DWARF utilities (decode expressions, dump CFI)"),
    "litmus": ("litmus", "decide litmus tests with the memory and barrier models"),
    "run": ("run", "run a kernel in the wave emulator and write a core"),
    "explain": ("explain", "explain why a core's waves hang"),
    "coremerge": ("coremerge", "merge a host core and a GPU core into a unified core"),
    "triage": ("triage", "scripted triage of many cores with plugins"),
    "divergence": ("divergence", "run a kernel and show its lane divergence per source line"),
    "repl": ("repl", "interactive debugger on a core or code object"),
}


def _load(name: str):
    module, _ = SUBCOMMANDS[name]
    try:
        return importlib.import_module(f"amddbg.cli.{module}")
    except ModuleNotFoundError as exc:
        if exc.name == f"amddbg.cli.{module}":
            return None
        raise


def build_parser(only: str | None = None) -> argparse.ArgumentParser:  # noqa: F821 - imported inside (start-up time)
    """The command-line parser. With ``only``, just that subcommand gets a parser (its module imported):
    the others would cost an ``ArgumentParser`` each and change nothing when the command line names
    ``only`` as its subcommand (see `_wanted`); the top-level ``--help`` needs them all (``only=None``)."""
    import argparse

    formatter = _help_formatter(argparse)
    parser = argparse.ArgumentParser(
        prog="amddbg",
        description="Postmortem debugger for AMD GPUs. `amddbg CORE` opens the interactive debugger.",
        formatter_class=formatter,
    )
    parser.add_argument("--version", action="version", version=f"amddbg {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in SUBCOMMANDS.items():
        if only is not None and name != only:
            continue
        module = _load(name)
        if module is not None:
            module.add_parser(sub.add_parser(name, help=help_text, description=help_text,
                                             allow_abbrev=name != "repl", formatter_class=formatter))
        else:
            p = sub.add_parser(name, help=help_text + " (not available yet)", description=help_text,
                               formatter_class=formatter)
            p.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns``, without importing shutil: $COLUMNS if a positive
    number, else the width of the terminal on stdout, else 80."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


def _help_formatter(argparse):
    """argparse's HelpFormatter, sized as argparse sizes it, but without the ``import shutil`` its
    constructor does (shutil pulls in bz2, lzma and fnmatch: ~2 ms, and argparse makes a formatter for
    every ``add_argument``, so every command paid it)."""

    class HelpFormatter(argparse.HelpFormatter):
        def __init__(self, prog, indent_increment=2, max_help_position=24, width=None):
            if width is None:
                width = _terminal_columns() - 2
            super().__init__(prog, indent_increment, max_help_position, width)

    return HelpFormatter


def _wanted(argv: list[str]) -> str | None:
    """The subcommand a (normalised) command line names, when its parser alone decides the outcome.

    That is when every word before it is ``--debug``: then argparse's first positional, the
    subcommand, is this word, and no top-level option (``-h``, an abbreviation, an unknown one whose
    error prints the top-level usage) is involved. None otherwise: the full parser is built.
    """
    for a in argv:
        if a in SUBCOMMANDS:
            return a
        if a != "--debug":
            return None
    return None


def _version_only(argv: list[str]) -> bool:
    """`amddbg [--debug...] --version ...`: argparse would act on --version before anything after it."""
    for a in argv:
        if a != "--debug":
            return a == "--version"
    return False


def _normalise_argv(argv: list[str]) -> list[str]:
    """`amddbg FILE...` (no subcommand) opens the REPL on the files."""
    i = 0
    while i < len(argv) and argv[i] in ("--debug",):
        i += 1
    if i < len(argv) and not argv[i].startswith("-") and argv[i] not in SUBCOMMANDS:
        return argv[:i] + ["repl"] + argv[i:]
    if i < len(argv) and argv[i] in GDB_FLAGS:  # `amddbg -batch -ex bt core`: gdb's command line
        return argv[:i] + ["repl"] + argv[i:]
    return argv


# Options of gdb's command line that open the debugger (see amddbg/cli/repl.py).
GDB_FLAGS = frozenset({"-batch", "--batch", "-ex", "--eval-command", "-x", "--command", "-q", "-quiet", "--quiet",
                       "-silent", "-nx", "--nx", "--python", "--plugin", "--no-plugins", "--json", "--sysroot",
                       "--solib-search-path"})


# Commands that only read their inputs and write to stdout/stderr: when run as a program, they may leave
# without tearing down the interpreter (freeing a large index object by object costs tens of
# milliseconds, a tenth of a cold addr2line). Commands that write files never take this path.
READ_ONLY_COMMANDS = frozenset({"info", "disasm", "addr2line", "dwarf", "litmus"})
_last_command: str | None = None


def entry() -> None:
    """Console-script entry point: `main()`, then a fast exit for read-only commands."""
    rc = main()
    if _last_command in READ_ONLY_COMMANDS:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BrokenPipeError:
            pass
        except OSError as exc:  # output to a full disk: say so (rc 2), never a silent truncation
            rc = _output_failed(exc)
        os._exit(rc)
    raise SystemExit(rc)


# Writing the output failed for want of space: a user-level error, not an internal one.
_OUTPUT_ERRNOS = frozenset({28, 122, 27})  # ENOSPC, EDQUOT, EFBIG


def _output_failed(exc: OSError) -> int:
    """One line for an output that could not be written (full disk, quota); returns exit status 2."""
    try:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - no second failing flush at exit
    except OSError:
        pass
    try:
        print(f"amddbg: error: cannot write the output: {exc.strerror or exc}", file=sys.stderr)
    except OSError:
        pass
    return 2


def _safe(value: object) -> str:
    from amddbg.textsafe import safe

    return safe(value)


def main(argv: list[str] | None = None) -> int:
    global _last_command
    argv = _normalise_argv(list(sys.argv[1:] if argv is None else argv))
    if _version_only(argv):  # what argparse's version action does, without importing argparse
        try:
            sys.stdout.write(f"amddbg {__version__}\n")
        except (AttributeError, OSError):  # closed stdout: argparse ignores it too
            pass
        raise SystemExit(0)
    wanted = _wanted(argv)
    _last_command = next((a for a in argv if a in SUBCOMMANDS), None)
    debug = "--debug" in argv or os.environ.get("AMDDBG_DEBUG") == "1"
    try:
        parser = build_parser(only=wanted)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        module = _load(args.command)
        if module is None:
            raise AmddbgError(f"the '{args.command}' command is not implemented yet")
        return int(module.run(args) or 0)
    except AmddbgError as exc:
        if debug:
            import traceback

            traceback.print_exc()
        from amddbg.textsafe import safe  # names from inputs must not reach the terminal raw

        print(f"amddbg: error: {safe(exc.user_message())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # Output piped into `head` and closed early: not an error worth reporting.
        try:
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the interpreter's flush at exit
        except OSError:
            pass
        return 0
    except OSError as exc:
        if exc.errno in _OUTPUT_ERRNOS:
            return _output_failed(exc)
        if debug:
            import traceback

            traceback.print_exc()
        # a file the command was told to read or write (`--core /proc/x.gpu`, a vanished input): the file and
        # the system's reason, as every other bad input is reported
        where = f"{_safe(exc.filename)}: " if exc.filename else ""
        print(f"amddbg: error: {where}{exc.strerror or _safe(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug in amddbg: still one line unless --debug
        if debug:
            import traceback

            traceback.print_exc()
        print(
            f"amddbg: error: internal error ({type(exc).__name__}: {_safe(exc)}); rerun with --debug for details",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":  # pragma: no cover
    entry()
