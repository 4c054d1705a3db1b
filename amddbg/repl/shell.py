"""The interactive shell: prompt_toolkit prompt, completion, persistent history, pager, Ctrl-C.

Thin by design: a line goes to `Debugger.execute`; its output lines are collected and paged when the
terminal is a tty and `pagination` is on (gdb's ``--Type <RET> for more, q to quit, c to continue
without paging--``). Ctrl-C while a command runs cancels that command, not the session; Ctrl-C at the
prompt clears the line; Ctrl-D (or `quit`) leaves.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

from amddbg.errors import AmddbgError
from amddbg.repl.commands import INFO_SUBCOMMANDS, SETTING_KINDS, Debugger
from amddbg.repl.runline import FAILED, QUIT, run_line

PROMPT = "(amddbg) "


def history_path() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "amddbg" / "history"


_FRAME = re.compile(r"^(#\d+ +)(0x[0-9a-f]+)?( in )?(\S+)( \(.*\))( at )(\S+)(:\d+)$")


def colour_enabled(stream) -> bool:
    """gdb-like styling only on a terminal, never with NO_COLOR or TERM=dumb."""
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM", "") != "dumb"


_LANE_GRID = re.compile(r"^(  lanes +\d+-\d+ +)([#. ]+)$")
_LANE_ROW = re.compile(r"^( +\d+  )(active  |inactive)( .*)$")


def colourize(line: str) -> str:
    """Frame lines styled as gdb does: address blue, function yellow, file green (ANSI SGR); the `lanes` grid
    and rows with active lanes green and inactive ones dim."""
    g = _LANE_GRID.match(line)
    if g:
        marks = "".join("\x1b[32m#\x1b[0m" if c == "#" else "\x1b[2m.\x1b[0m" if c == "." else c for c in g.group(2))
        return g.group(1) + marks
    r = _LANE_ROW.match(line)
    if r:
        style = "\x1b[32m" if r.group(2).startswith("active") else "\x1b[2m"
        return f"{r.group(1)}{style}{r.group(2)}\x1b[0m{r.group(3)}"
    m = _FRAME.match(line)
    if not m:
        return line
    g = m.groups()
    addr = f"\x1b[34m{g[1]}\x1b[0m" if g[1] else ""
    return (f"{g[0]}{addr}{g[2] or ''}\x1b[33m{g[3]}\x1b[0m{g[4]}{g[5]}\x1b[32m{g[6]}\x1b[0m{g[7]}")


class Pager:
    """Collects a command's lines; pages them on a tty (prompt after each screenful)."""

    def __init__(self, dbg: Debugger, stream=None) -> None:
        self.dbg = dbg
        self.stream = stream or sys.stdout
        self.lines_on_screen = 0
        self.continuous = False
        self.stopped = False
        self.colour = colour_enabled(self.stream)

    def reset(self) -> None:
        self.lines_on_screen = 0
        self.continuous = False
        self.stopped = False

    def height(self) -> int:
        h = int(self.dbg.settings.get("height") or 0)
        return h or shutil.get_terminal_size((80, 24)).lines

    def write(self, line: str) -> None:
        if self.stopped:
            raise _PagerQuit()
        self.stream.write((colourize(line) if self.colour else line) + "\n")
        self.stream.flush()
        if not self.dbg.settings.get("pagination") or self.continuous or not self.stream.isatty():
            return
        self.lines_on_screen += 1
        if self.lines_on_screen >= self.height() - 1:
            self.stream.write("--Type <RET> for more, q to quit, c to continue without paging--")
            self.stream.flush()
            answer = sys.stdin.readline().strip().lower()
            self.lines_on_screen = 0
            if answer.startswith("q"):
                self.stopped = True
                raise _PagerQuit()
            if answer.startswith("c"):
                self.continuous = True


class _PagerQuit(Exception):  # noqa: N818
    pass


class DebuggerCompleter:
    """Completes command names, info sub-commands, settings, thread numbers, registers, variables,
    symbols and file names, depending on the command being typed."""

    def __init__(self, dbg: Debugger) -> None:
        self.dbg = dbg

    def words_for(self, text: str) -> list[str]:
        parts = text.split(" ")
        if len(parts) == 1:
            names = set(self.dbg.commands)
            for c in self.dbg.commands.values():
                names.update(c.aliases)
            return sorted(n for n in names if n.startswith(parts[0]))
        try:
            cmd = self.dbg.resolve(parts[0].split("/")[0])
        except AmddbgError:
            return []
        last = parts[-1]
        if cmd.name == "info" and len(parts) == 2:
            return sorted(n for n in INFO_SUBCOMMANDS if n.startswith(last))
        if cmd.name in ("set", "show") and len(parts) == 2:
            return sorted({k.split()[0] for k in SETTING_KINDS if k.startswith(last)})
        if cmd.name in ("help",):
            return sorted(n for n in self.dbg.commands if n.startswith(last))
        if cmd.name in ("thread", "wave"):
            opts = ["apply"] + [str(t.number) for t in self.dbg.program.threads]
            return [o for o in opts if o.startswith(last)]
        if cmd.name == "info" and parts[1].startswith("reg"):
            return self._registers(last)
        if cmd.name == "list" and not last.startswith("$"):  # the debug information's files, then functions
            from amddbg.session.sources import source_files

            names = sorted({os.path.basename(f) for f in source_files(self.dbg.program)})
            hits = [n + ":" for n in names if n.startswith(last)]
            return hits + [s for s in self._symbols(last) if s not in hits]
        if cmd.complete in ("expression", "command") or cmd.name in ("info", "list", "disassemble"):
            if last.startswith("$"):
                return ["$" + r for r in self._registers(last[1:])]
            if "/" in last or last.startswith("."):
                return _files(last)
            return self._symbols(last)
        return _files(last) if cmd.complete == "file" else []

    def _registers(self, prefix: str) -> list[str]:
        t = self.dbg.program.focus.thread
        if t is None or not t.is_wave:
            return []
        try:
            names = t.registers.names()
        except AmddbgError:
            return []
        extra = ["_lane", "_wave_id", "_dispatch_pos", "_thread_workgroup_pos", "_lane_workgroup_pos"]
        return [n for n in names + extra if n.startswith(prefix)][:400]

    def _symbols(self, prefix: str) -> list[str]:
        out = set()
        f = self.dbg.program.current_frame
        if f is not None:
            try:
                for v in f.locals() + f.arguments():
                    if v.name and v.name.startswith(prefix):
                        out.add(v.name)
            except AmddbgError:
                pass
        from amddbg.dwarf.demangle import plain_name

        for lco in self.dbg.program.code_objects:
            try:
                syms = lco._functions
            except AmddbgError:
                continue
            for s in syms:
                from amddbg.dwarf.demangle import demangle

                for n in (s.name, plain_name(demangle(s.name) or s.name)):
                    if n.startswith(prefix):
                        out.add(n)
        return sorted(out)[:400]

    def as_prompt_toolkit(self):
        from prompt_toolkit.completion import Completer, Completion

        outer = self

        class _C(Completer):
            def get_completions(self, document, complete_event):
                text = document.text_before_cursor
                last = text.split(" ")[-1]
                for w in outer.words_for(text):
                    yield Completion(w, start_position=-len(last))

        return _C()


def _files(prefix: str) -> list[str]:
    d, base = os.path.split(prefix)
    try:
        names = os.listdir(d or ".")
    except OSError:
        return []
    out = []
    for n in sorted(names):
        if n.startswith(base):
            p = os.path.join(d, n) if d else n
            out.append(p + ("/" if os.path.isdir(p) else ""))
    return out[:200]


def run_command(dbg: Debugger, line: str, pager: Pager) -> bool:
    """Run one line; False when the session should end. Errors print as one line."""
    pager.reset()
    try:
        return run_line(dbg, line, passthrough=(_PagerQuit,)) != QUIT
    except _PagerQuit:
        sys.stdout.write("\n")
    return True


def interactive(dbg: Debugger) -> int:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    pager = Pager(dbg)
    dbg.out = pager.write
    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        history = FileHistory(str(path))
    except OSError:
        history = InMemoryHistory()
    session = PromptSession(history=history, completer=DebuggerCompleter(dbg).as_prompt_toolkit(),
                            complete_while_typing=False)
    pending = dbg.pending_summary
    if pending is not None:
        _watch_pending(dbg, pending)
    while True:
        if pending is not None and pending.ready:
            _print_pending(dbg, pending)  # it came while a command ran: before the next prompt
        try:
            line = session.prompt(PROMPT)
        except KeyboardInterrupt:
            continue
        except EOFError:
            print("quit")
            return 0
        if not run_command(dbg, line, pager):
            return 0


def _print_pending(dbg: Debugger, pending) -> None:
    from amddbg.termwidth import output_width, wrap_at_words

    for line in wrap_at_words(pending.take(), output_width(sys.stdout)):
        sys.stdout.write(line + "\n")
    sys.stdout.flush()


def _watch_pending(dbg: Debugger, pending) -> None:
    """Print the summary's explanation above the prompt once the worker has it: a thread waits for it and hands the
    printing to the running prompt's event loop (`run_in_terminal` erases the prompt, prints, and redraws the prompt
    with what was typed), as prompt_toolkit's own patch_stdout does; this works for the full and the dumb-terminal
    prompt alike. A line that comes while a command runs is printed by the shell before the next prompt (`take()`
    hands it out once, whoever asks first)."""
    import threading
    import time

    from prompt_toolkit.application import run_in_terminal
    from prompt_toolkit.application.current import get_app_session

    app_session = get_app_session()  # shared with the thread: its `app` is the prompt running now, if any

    def show() -> None:
        run_in_terminal(lambda: _print_pending(dbg, pending), in_executor=False)

    def watch() -> None:
        asked = None
        while not pending.finished:
            app = app_session.app
            if pending.ready and app is not None and app.is_running and app is not asked:
                asked = app  # once per prompt: a prompt that ends first leaves it to the shell's loop
                try:
                    app.loop.call_soon_threadsafe(show)
                except (AttributeError, RuntimeError):  # the prompt's loop just closed
                    pass
            time.sleep(0.1)

    threading.Thread(target=watch, name="amddbg-summary-show", daemon=True).start()


def plain_loop(dbg: Debugger, stream) -> int:
    """Commands from a pipe: no prompt, no pager; errors are one line and the loop goes on."""
    pager = Pager(dbg, sys.stdout)
    dbg.out = pager.write
    dbg.settings.values["pagination"] = False
    failed = False
    for line in stream:
        status = run_line(dbg, line)
        if status == QUIT:
            break
        failed |= status == FAILED
    return 1 if failed else 0
