"""explain text folded at words to the user's width (issue 23 section 2), through the command line and the REPL:
$COLUMNS when set, else the terminal's width on a terminal, else whole lines (a pipe or a file keeps one finding
per line for grep). The folded text is the whole text: joining each line's continuations gives it back."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "corefiles" / "scenarios"
CORES = [SCEN / "barrier-deadlock-gfx90a.gpu", SCEN / "memory-fault-gfx1100.gpu", SCEN / "spin-cycle-gfx942.gpu"]
SECONDS = re.compile(r"; [0-9.]+ s\)$")


def amddbg(*args, columns: int | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env=env, stdin=subprocess.DEVNULL)


def unfold(lines: list[str]) -> list[str]:
    """Join each continuation (indented two more than the line it continues) to its line. In explain's text no line
    of its own is indented exactly two more than the line before it: findings at 0, locations at 4, call sites 8."""
    out: list[tuple[str, int]] = []  # (text, indent of its first line)
    for ln in lines:
        indent = len(ln) - len(ln.lstrip(" "))
        if out and indent == out[-1][1] + 2:
            out[-1] = (out[-1][0] + " " + ln.strip(), out[-1][1])
        else:
            out.append((ln, indent))
    return [SECONDS.sub("; T s)", t) for t, _ in out]


def check_folded(folded: str, whole: str, width: int) -> None:
    lines = folded.splitlines()
    assert len(lines) > len(whole.splitlines())  # something was folded
    for ln in lines:
        assert len(ln) <= width or " " not in ln.strip(), ln  # only a single word longer than the width
    assert unfold(lines) == [SECONDS.sub("; T s)", ln) for ln in whole.splitlines()]


@pytest.mark.parametrize("core", CORES, ids=[c.stem for c in CORES])
def test_explain_folds_to_columns_and_keeps_every_word(core):
    whole = amddbg("explain", core)
    assert any(len(ln) > 100 for ln in whole.stdout.splitlines())  # a pipe gets whole lines
    for width in (60, 100):
        r = amddbg("explain", core, columns=width)
        assert r.returncode == whole.returncode and r.stderr == whole.stderr
        check_folded(r.stdout, whole.stdout, width)
    doc = json.loads(amddbg("explain", "--json", core, columns=60).stdout)  # JSON is never folded
    assert doc["verdict"] == whole.stdout.split()[1]


def test_repl_explain_folds_to_columns():
    core = CORES[0]
    whole = amddbg("-batch", "-ex", "explain", core)
    folded = amddbg("-batch", "-ex", "explain", core, columns=72)
    assert folded.returncode == whole.returncode == 0
    check_folded(folded.stdout, whole.stdout, 72)


def test_explain_folds_to_the_terminal():
    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    child = pexpect.spawn(sys.executable, ["-m", "amddbg", "explain", str(CORES[0])], dimensions=(40, 64),
                          env={**env, "TERM": "dumb"}, encoding="utf-8", timeout=300)
    child.expect(pexpect.EOF)
    lines = [ln.rstrip("\r") for ln in child.before.split("\n") if ln.strip()]
    assert lines[0] == "verdict: hang" and all(len(ln) <= 64 for ln in lines), lines
    text = " ".join(ln.strip() for ln in lines)
    assert "the barrier sits inside the divergent branch at scenarios.hip:17" in text  # no word was cut
