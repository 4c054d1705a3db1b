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


def run_script(dbg, path: str, argv: list[str] | None = None) -> None:
    ns = namespace(dbg)
    ns["__name__"] = "__main__"
    ns["__file__"] = path
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror}") from None
    old_argv = sys.argv
    sys.argv = [path, *(argv or [])]
    try:
        exec(compile(source, path, "exec"), ns)  # noqa: S102 - the user's own script
    finally:
        sys.argv = old_argv
