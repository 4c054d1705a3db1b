"""Run one command line and report its failure as one line on stderr: the batch loop, `-x` files, a
piped stdin and the interactive prompt all go through `run_line`, so they fail the same way.

Why one place: gdb's batch mode prints an error and goes on with the next command, whatever the error.
Before, only the prompt caught Python-level failures (a 200-deep expression, `thread apply 1-999999999`,
a float that overflows) and the batch loop let them end the whole run as an "internal error".
"""

from __future__ import annotations

import sys

from amddbg.errors import AmddbgError
from amddbg.textsafe import safe

OK, FAILED, QUIT = "ok", "failed", "quit"


def error(message: str) -> None:
    """`amddbg: error: MESSAGE` on stderr, after whatever stdout holds so far."""
    try:
        sys.stdout.flush()
    except OSError:
        pass
    print(f"amddbg: error: {safe(message)}", file=sys.stderr)


def run_line(dbg, line: str, *, passthrough: tuple[type[BaseException], ...] = ()) -> str:
    """Execute `line` on `dbg`; OK, FAILED (the error is printed) or QUIT. Exceptions in
    `passthrough` (the pager's own stop signal) are re-raised for the caller."""
    from amddbg.repl.commands import Quit

    try:
        dbg.execute(line)
    except Quit:
        return QUIT
    except passthrough:
        raise
    except BrokenPipeError:  # output piped into `head` and closed: main() ends quietly
        raise
    except AmddbgError as exc:
        error(exc.user_message())
    except KeyboardInterrupt:
        print("Quit", file=sys.stderr)
    except RecursionError:
        error("expression or command nested too deeply")
    except MemoryError:
        error("out of memory running this command (the command asked for more than this process may use)")
    except OverflowError as exc:
        error(f"numeric overflow: {exc}")
    except Exception as exc:  # noqa: BLE001 - a bug in one command must not end the session
        error(f"internal error ({type(exc).__name__}: {exc}); rerun with --debug")
    else:
        return OK
    return FAILED
