"""The start-up summary's explanation, computed in a worker process so that the prompt never waits for it.

A debugger must never freeze at start: on a 10,000-wave core the explanation takes seconds to tens of seconds (its
static analysis and replays grow with the waves), and the user may only want `bt`. So the interactive REPL prints
the summary without it, says it is on its way, and shows the prompt at once; a worker process (`python -m
amddbg.repl.background FILE...`) opens the same files and computes the same line the summary of a pipe or script
prints in place (`amddbg.repl.summary.explain_lines`: replays bounded in wave-instructions, so the line depends only
on the core, never on the load or on when it arrives). The shell prints it above the prompt when it is ready
(prompt_toolkit's `run_in_terminal`, which erases and redraws the prompt and what is typed), or before the next
prompt when a command was running. `explain` typed before then gives the full answer and drops the pending line.

Why a process and not a thread: the explanation is pure Python, so a thread would hold the GIL and make typing
lag, and it would read the session's Program while the user's commands do (its caches are not made for that).
The worker is in its own session (Ctrl-C at the prompt does not reach it), runs at a lower priority, and is
killed when the REPL leaves. Its answer is JSON on its stdout; nothing it prints is run or unpickled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

WORKING = "Explain: working out why the waves cannot move; printed here when ready (`explain`: the full answer now)"
NOTHING_FOUND = "Explain: the summary's short replay found nothing to report (`explain` replays with the full budget)"
FAILED = "Explain: the summary's explanation could not be computed (type `explain`)"


class PendingExplanation:
    """The worker process for one core and the line(s) it gives; `take()` hands them out once."""

    def __init__(self, files: list[str], *, sysroot: str | None = None, solib_search_path: str | None = None) -> None:
        cmd = [sys.executable, "-m", "amddbg.repl.background"]
        if sysroot:
            cmd += ["--sysroot", sysroot]
        if solib_search_path:
            cmd += ["--solib-search-path", solib_search_path]
        cmd += ["--", *files]
        self._lock = threading.Lock()
        self._lines: list[str] | None = None
        self._taken = False
        self._proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.DEVNULL, start_new_session=True)
        self._reader = threading.Thread(target=self._read, name="amddbg-summary-explain", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        out, _ = self._proc.communicate()
        try:
            doc = json.loads(out.decode("utf-8", "replace"))
            lines = [str(x) for x in doc["lines"]] or [NOTHING_FOUND]
        except (ValueError, KeyError, TypeError):
            lines = [] if self._proc.returncode in (-9, -15) else [FAILED]  # killed by cancel(): nothing to say
        with self._lock:
            self._lines = lines

    @property
    def ready(self) -> bool:
        """The worker has answered and the answer has not been handed out."""
        with self._lock:
            return self._lines is not None and not self._taken

    @property
    def finished(self) -> bool:
        """Nothing more will come: the answer was taken or the work was cancelled."""
        with self._lock:
            return self._taken

    def take(self) -> list[str]:
        """The answer's lines, once (later calls, and calls before it is ready, give [])."""
        with self._lock:
            if self._lines is None or self._taken:
                return []
            self._taken = True
            return list(self._lines)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the worker answered (tests and scripts); True when it did."""
        self._reader.join(timeout)
        return not self._reader.is_alive()

    def cancel(self) -> None:
        """Stop the worker (its own process, by pid) and drop its answer: `explain` gave the full one, or the REPL
        is leaving."""
        with self._lock:
            self._taken = True
        if self._proc.poll() is None:
            try:
                self._proc.kill()
            except OSError:
                pass


def _main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m amddbg.repl.background",
                                 description="print the REPL summary's explanation of FILE... as JSON")
    ap.add_argument("--sysroot")
    ap.add_argument("--solib-search-path")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    try:
        os.nice(10)  # the user's own commands come first
    except OSError:
        pass
    import amddbg
    from amddbg.errors import AmddbgError
    from amddbg.repl.summary import explain_lines

    try:
        program = amddbg.open(args.files, sysroot=args.sysroot, solib_search_path=args.solib_search_path)
        lines = explain_lines(program)
    except AmddbgError:
        lines = []
    sys.stdout.write(json.dumps({"lines": lines}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
