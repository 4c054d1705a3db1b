"""docs/tutorial.md cannot rot: every `$ amddbg ...` command in its console blocks is run and its output
compared with the text that follows it (trailing spaces, the run's timing and the explainer's seconds are the only
normalisation: the replayed instruction counts are deterministic and compared as they are)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TIMING = re.compile(r"\d+ wave-instructions in [\d.]+ s \([\d,]+/s\)")
# explain's last line is folded at words to COLUMNS (amddbg.termwidth): the seconds may end a line and "s)" begin the
# next, so the measured seconds are matched across a fold
REPLAYED = re.compile(r"(budget\s+\d+\s+per\s+replay;)\s+[\d.]+\s+s\)")


def blocks() -> list[tuple[str, str]]:
    text = (ROOT / "docs" / "tutorial.md").read_text()
    out = []
    for body in re.findall(r"```console\n(.*?)```", text, re.S):
        lines = body.rstrip("\n").split("\n")
        assert lines[0].startswith("$ amddbg ")
        out.append((lines[0][2:], "\n".join(lines[1:])))
    return out


def normalise(text: str) -> str:
    lines = text.rstrip("\n").split("\n")
    return REPLAYED.sub(r"\1 T s)", "\n".join(TIMING.sub("N wave-instructions in T s (R/s)", ln).rstrip()
                                                for ln in lines))


@pytest.mark.parametrize("command,expected", blocks(), ids=[c[:60] for c, _ in blocks()])
def test_tutorial_command(command, expected):
    argv = shlex.split(command)
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    r = subprocess.run([sys.executable, "-m", "amddbg", *argv[1:]], capture_output=True, text=True, cwd=ROOT, env=env,
                       stdin=subprocess.DEVNULL, timeout=300)
    assert normalise(r.stdout) == normalise(expected), r.stderr


def test_tutorial_covers_the_walk():
    cmds = [c for c, _ in blocks()]
    assert any(c.startswith("amddbg divergence") for c in cmds)
    assert any(c.startswith("amddbg explain") for c in cmds) and any("info barriers" in c for c in cmds)
