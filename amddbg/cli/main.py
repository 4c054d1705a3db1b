"""`amddbg` entry point: argument parsing, subcommand dispatch and the one-line error contract.

argparse (standard library) is used rather than click/typer: it needs no dependency, supports
sub-parsers with per-subcommand --help, and its exit code 2 on usage errors matches our contract.
"""

from __future__ import annotations

import argparse
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


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="amddbg",
        description="Postmortem debugger for AMD GPUs. `amddbg CORE` opens the interactive debugger.",
    )
    parser.add_argument("--version", action="version", version=f"amddbg {__version__}")
    parser.add_argument("--debug", action="store_true", help="show Python tracebacks for errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (_, help_text) in SUBCOMMANDS.items():
        module = _load(name) if (only is None or only == name) else None
        if module is not None:
            module.add_parser(sub.add_parser(name, help=help_text, description=help_text,
                                             allow_abbrev=name != "repl"))
        else:
            p = sub.add_parser(name, help=help_text + " (not available yet)", description=help_text)
            p.add_argument("rest", nargs=argparse.REMAINDER)
    return parser


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
    wanted = next((a for a in argv if a in SUBCOMMANDS), None)
    _last_command = wanted
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
        if exc.errno not in _OUTPUT_ERRNOS:
            raise
        return _output_failed(exc)
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
