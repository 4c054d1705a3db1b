"""The `python` command and `--python SCRIPT`: Python with `prog` bound to the `Program` (drgn-style).

A core never runs code: only the user's own statements and scripts run here.
"""

from __future__ import annotations

import code
import sys

from amddbg.errors import UsageError


def namespace(dbg) -> dict:
    import amddbg

    return {"prog": dbg.program, "amddbg": amddbg, "dbg": dbg}


def run_python(dbg, args: str) -> None:
    ns = namespace(dbg)
    if args.strip():
        try:
            exec(compile(args, "<python>", "exec"), ns)  # noqa: S102 - the user's own statement
        except SystemExit:
            pass
        except Exception as exc:  # noqa: BLE001 - report the user's error as one line
            raise UsageError(f"Error while executing Python code: {type(exc).__name__}: {exc}") from None
        return
    if not sys.stdin.isatty():
        source = sys.stdin.read()
        run_python(dbg, source)
        return
    banner = "Python with `prog` (amddbg.Program) bound; Ctrl-D returns to amddbg."
    try:
        code.interact(banner=banner, local=ns, exitmsg="")
    except SystemExit:
        pass


class ScriptFailed(Exception):  # noqa: N818 - carries the exit status of a failed user script
    """The user's script raised: its traceback has been printed (as gdb's `source` prints it)."""


def run_script(dbg, path: str, argv: list[str] | None = None) -> None:
    """Run the user's script with `prog` bound. A FIFO or device is refused before opening (reading it
    would block). An exception in the script prints the script's own traceback (frames of amddbg's
    runner removed) on stderr and raises `ScriptFailed`, so the command line exits 1, as gdb does."""
    from amddbg.textsafe import check_regular

    check_regular(path, what="Python script")
    ns = namespace(dbg)
    ns["__name__"] = "__main__"
    ns["__file__"] = path
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: {getattr(exc, 'strerror', None) or exc}") from None
    old_argv = sys.argv
    sys.argv = [path, *(argv or [])]
    try:
        code_obj = compile(source, path, "exec")
        exec(code_obj, ns)  # noqa: S102 - the user's own script
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise ScriptFailed() from None
    except Exception as exc:  # noqa: BLE001 - the user's error, shown as Python shows it
        import traceback

        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != path:  # drop amddbg's own frames
            tb = tb.tb_next
        sys.stdout.flush()
        traceback.print_exception(type(exc), exc, tb, file=sys.stderr)
        raise ScriptFailed() from None
    finally:
        sys.argv = old_argv
