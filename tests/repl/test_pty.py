"""The real interactive REPL on a pseudo-terminal (pexpect): summary then prompt, completion, history across
two sessions, Ctrl-C during a long command, the pager prompt, commands checked on the screen."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

pexpect = pytest.importorskip("pexpect", reason="pexpect is in the test extra: pip install '.[test]'")

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "corefiles" / "cores" / "gfx90a-divergent-barrier.gpu"
PROMPT = r"\(amddbg\)"


def spawn(tmp_path, *args):
    env = dict(os.environ, NO_COLOR="1", XDG_STATE_HOME=str(tmp_path / "state"), TERM="xterm",
               PROMPT_TOOLKIT_NO_CPR="1", AMDDBG_NO_CACHE="1", COLUMNS="120", LINES="40")
    child = pexpect.spawn(sys.executable, ["-m", "amddbg", *args], env=env, cwd=str(ROOT), encoding="utf-8",
                          timeout=60, dimensions=(40, 120))
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
    c.expect(PROMPT)
    c.send("info thr\t")
    c.expect("info threads")
    c.sendline("")
    c.expect(r"Target Id")
    c.expect(PROMPT)
    c.send("print $_lan\t")
    c.expect(r"\$_lane")
    c.sendline("")
    c.expect(r"\$1 = 0")
    c.expect(PROMPT)
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
    c.sendline("python import time; time.sleep(30)")
    import time

    time.sleep(1.0)
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
