"""The real interactive REPL on a pseudo-terminal (pexpect): summary then prompt, completion, history across
two sessions, Ctrl-C during a long command, the pager prompt, commands checked on the screen.

prompt_toolkit redraws only what changed: after a Tab the bytes on the wire are the completion's tail ("eads"),
not the word, and when keys arrive in one read or in two is up to the machine's load. So what a person sees is
checked on a rendered screen (pyte, a VT100 emulator, fed everything the child writes), never by a pattern over
the byte stream. Every wait is for something to appear, with a generous timeout: load changes how long, not what.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect", reason="pexpect is in the test extra: pip install '.[test]'")
pyte = pytest.importorskip("pyte", reason="pyte is in the test extra: pip install '.[test]'")

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corefiles" / "cores" / "gfx90a-divergent-barrier.gpu"
PROMPT = r"\(amddbg\)"
ROWS, COLS = 40, 120
WAIT = 120  # seconds: a loaded 2-core CI machine may be slow to draw, never wrong


class Screen:
    """What the terminal shows: a pyte screen fed every byte the child writes (pexpect's logfile_read)."""

    def __init__(self, child) -> None:
        self.child = child
        self.screen = pyte.HistoryScreen(COLS, ROWS, history=2000)
        self.stream = pyte.Stream(self.screen)
        child.logfile_read = self

    # pexpect's logfile interface
    def write(self, data: str) -> None:
        self.stream.feed(data)

    def flush(self) -> None:
        pass

    def cursor_line(self) -> str:
        return self.screen.display[self.screen.cursor.y].rstrip()

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait(self, check, what: str, timeout: float = WAIT) -> None:
        """Read the child's output until `check()` holds for the screen, or fail showing the screen."""
        deadline = time.monotonic() + timeout
        while not check():
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {what}; it shows:\n{self.text()}")
            try:
                self.child.read_nonblocking(65536, timeout=0.2)
            except pexpect.TIMEOUT:
                pass

    def wait_cursor_line(self, pattern: str) -> None:
        rx = re.compile(pattern)
        self.wait(lambda: rx.fullmatch(self.cursor_line()) is not None, f"a cursor line matching {pattern!r}")

    def wait_text(self, pattern: str) -> None:
        rx = re.compile(pattern)
        self.wait(lambda: rx.search(self.text()) is not None, f"{pattern!r}")

    def wait_prompt(self) -> None:
        """An empty prompt on the cursor line: the REPL is ready for the next command."""
        self.wait_cursor_line(PROMPT)


def spawn(tmp_path, *args):
    env = dict(os.environ, NO_COLOR="1", XDG_STATE_HOME=str(tmp_path / "state"), TERM="xterm",
               PROMPT_TOOLKIT_NO_CPR="1", AMDDBG_NO_CACHE="1", COLUMNS=str(COLS), LINES=str(ROWS))
    child = pexpect.spawn(sys.executable, ["-m", "amddbg", *args], env=env, cwd=str(ROOT), encoding="utf-8",
                          timeout=WAIT, dimensions=(ROWS, COLS))
    return child


def test_summary_prompt_and_commands(tmp_path):
    c = spawn(tmp_path, str(DEMO))
    c.expect("Waves: 4")
    c.expect("at barrier")
    c.expect(PROMPT)
    c.sendline("info threads")
    c.expect(r"\* 1    AMDGPU Wave 1:1:1:1 \(0,0,0\)/0")
    c.expect(PROMPT)
    c.sendline("print -lane all $v0 < 32")
    c.expect(r"\$1 = \{lanes 0-31: 1, 32-63: 0\}")
    c.expect(PROMPT)
    c.sendline("nosuchcommand")
    c.expect('amddbg: error: Undefined command: "nosuchcommand"')
    c.expect(PROMPT)  # the session goes on
    c.sendline("quit")
    c.expect(pexpect.EOF)


def test_completion(tmp_path):
    c = spawn(tmp_path, str(DEMO))
    screen = Screen(c)
    screen.wait_prompt()
    # The word first, then Tab in a later read: prompt_toolkit then writes only the completion's tail, which a
    # byte-stream pattern for "info threads" never sees. The screen shows the whole line either way.
    c.send("info thr")
    screen.wait_cursor_line(PROMPT + r" info thr")
    c.send("\t")
    screen.wait_cursor_line(PROMPT + r" info threads")
    c.send("\r")
    screen.wait_text(r"Target Id")
    screen.wait_prompt()
    c.send("print $_lan")
    screen.wait_cursor_line(PROMPT + r" print \$_lan")
    c.send("\t")
    screen.wait_cursor_line(PROMPT + r" print \$_lane")
    c.send("\r")
    screen.wait_text(r"\$1 = 0")
    screen.wait_prompt()
    c.sendline("quit")
    c.expect(pexpect.EOF)


def test_completion_typed_at_once(tmp_path):
    """The same keys in one write (a fast machine): the screen shows the completed word too."""
    c = spawn(tmp_path, str(DEMO))
    screen = Screen(c)
    screen.wait_prompt()
    c.send("info thr\t")
    screen.wait_cursor_line(PROMPT + r" info threads")
    c.send("\r")
    screen.wait_text(r"Target Id")
    screen.wait_prompt()
    c.sendline("quit")
    c.expect(pexpect.EOF)


def test_history_across_sessions(tmp_path):
    c = spawn(tmp_path, str(DEMO))
    c.expect(PROMPT)
    c.sendline("print 6 * 7")
    c.expect(r"\$1 = 42")
    c.expect(PROMPT)
    c.sendline("quit")
    c.expect(pexpect.EOF)
    hist = tmp_path / "state" / "amddbg" / "history"
    assert "print 6 * 7" in hist.read_text()
    c = spawn(tmp_path, str(DEMO))
    c.expect(PROMPT)
    c.send("\x1b[A")  # up arrow twice: past "quit" to the previous session's print
    c.send("\x1b[A")
    c.sendline("")
    c.expect(r"\$1 = 42")
    c.expect(PROMPT)
    c.sendline("quit")
    c.expect(pexpect.EOF)


def test_ctrl_c_cancels_the_command_not_the_session(tmp_path):
    c = spawn(tmp_path, str(DEMO))
    c.expect(PROMPT)
    c.sendline("python import time; print('sleep' + 'ing'); time.sleep(60)")
    c.expect("sleeping")  # the command runs: Ctrl-C now reaches it, not the prompt
    c.sendintr()
    c.expect("Quit")
    c.expect(PROMPT)
    c.sendline("print 1 + 1")
    c.expect(r"\$1 = 2")
    c.expect(PROMPT)
    c.sendline("quit")
    c.expect(pexpect.EOF)


def test_pager_prompt(tmp_path):
    c = spawn(tmp_path, str(DEMO))
    c.expect(PROMPT)
    c.sendline("set height 8")
    c.expect(PROMPT)
    c.sendline("help")
    c.expect("--Type <RET> for more, q to quit, c to continue without paging--")
    c.sendline("q")
    c.expect(PROMPT)
    c.sendline("set pagination off")
    c.expect(PROMPT)
    c.sendline("help")
    c.expect('Type "help" followed by a command name')
    c.expect(PROMPT)
    c.sendline("quit")
    c.expect(pexpect.EOF)


def _spin_core(tmp_path, waves: int) -> Path:
    """A spin-wait core of `waves` one-wave workgroups, as bench/explain_scale.py builds them."""
    import subprocess

    core = tmp_path / f"spin-{waves}.gpu"
    subprocess.run([sys.executable, "-m", "amddbg", "run", str(ROOT / "corefiles/scenarios/scenarios-gfx90a.co"),
                    "--kernel", "spin_no_writer", "--grid", str(waves * 64), "--block", "64", "--arg", "buf:i32:1",
                    "--arg", f"buf:i32:{waves * 64}", "--max-instructions", str(max(20 * waves, 300_000)),
                    "--core", str(core)], check=True, capture_output=True, cwd=str(ROOT), timeout=WAIT * 20)
    return core


def _explain_line(text: str) -> str:
    """The summary's `Explain: hang: ...` line, unwrapped (the terminal shows it folded at words)."""
    m = re.search(r"Explain: hang: .*?\(`explain` for details\)", text, re.S)
    assert m, text
    return " ".join(m.group(0).split())


@pytest.mark.parametrize("waves", [1024, pytest.param(10_000, marks=pytest.mark.slow)])
def test_prompt_comes_before_the_summary_explanation(tmp_path, waves):
    """Issue 20: a debugger never freezes at start. The summary of a large spin-wait core (its explanation once took
    386 s before the prompt) comes with the prompt at once; the summary's explanation, computed by a worker process,
    is printed above the prompt when ready, while the user types, and the line being typed survives it. A pipe gets
    the same line in place, and `-batch` explains give the same JSON twice."""
    import json
    import subprocess

    core = _spin_core(tmp_path, waves)
    c = spawn(tmp_path, str(core))
    screen = Screen(c)
    t0 = time.monotonic()
    screen.wait_text(rf"Waves: {waves}")
    screen.wait_text(r"Explain: working out why the waves cannot move")
    screen.wait_prompt()
    shown = time.monotonic() - t0
    assert "Explain: hang" not in screen.text()  # the prompt came first
    c.send("info thr")  # typed while the worker explains
    screen.wait_cursor_line(PROMPT + r" info thr")
    screen.wait_text(r"Explain: hang: .*")
    screen.wait(lambda: "(`explain` for details)" in screen.text(), "the whole explanation line")
    screen.wait_cursor_line(PROMPT + r" info thr")  # redrawn below it with what was typed
    shown_line = _explain_line(screen.text())
    assert f"{waves} waves in {waves} workgroups" in shown_line and "scenarios.hip:32" in shown_line
    c.send("eads 1\r")
    screen.wait_text(r"\* 1 +AMDGPU Wave 1:1:1:1 \(0,0,0\)/0")
    screen.wait_prompt()
    c.sendline("quit")
    c.expect(pexpect.EOF)
    print(f"prompt after {shown:.2f} s")  # (measured; the waits above are generous on purpose)

    env = dict(os.environ, NO_COLOR="1", AMDDBG_NO_CACHE="1")
    piped = subprocess.run([sys.executable, "-m", "amddbg", str(core)], input="info threads 1\n", text=True,
                           capture_output=True, env=env, cwd=str(ROOT), timeout=WAIT * 5)
    assert piped.returncode == 0, piped.stderr
    assert _explain_line(piped.stdout) == shown_line  # the same line, in place, before the commands' output
    assert piped.stdout.index("Explain: hang") < piped.stdout.index("AMDGPU Wave 1:1:1:1")

    docs = []
    for _ in range(2):
        b = subprocess.run([sys.executable, "-m", "amddbg", "-batch", "--json", "-ex", "explain", str(core)],
                           text=True, capture_output=True, env=env, cwd=str(ROOT), timeout=WAIT * 5)
        assert b.returncode == 0, b.stderr
        doc = json.loads(b.stdout)
        doc["replay"].pop("seconds", None)
        docs.append(doc)
    assert docs[0] == docs[1] and docs[0]["verdict"] == "hang"
    assert "by symmetry" in docs[0]["replay"]["method"]


def test_explain_at_the_prompt_replaces_the_pending_summary_line(tmp_path):
    """`explain` typed before the summary's explanation is ready answers in full; the shorter summary line, which
    would only repeat it, is dropped (its worker is stopped)."""
    core = _spin_core(tmp_path, 1024)
    c = spawn(tmp_path, str(core))
    screen = Screen(c)
    screen.wait_text(r"Explain: working out why the waves cannot move")
    screen.wait_prompt()
    c.send("explain\r")
    screen.wait_text(r"verdict: hang")
    screen.wait_text(r"by symmetry: replayed")
    screen.wait_prompt()
    c.send("print 6 * 7\r")
    screen.wait_text(r"\$1 = 42")
    screen.wait_prompt()
    assert "(`explain` for details)" not in screen.text()
    c.sendline("quit")
    c.expect(pexpect.EOF)
