"""Colour only on a terminal, never with NO_COLOR or TERM=dumb, and never in a pipe."""

from __future__ import annotations

import io

from amddbg.repl.shell import colour_enabled, colourize


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_colour_rules(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert colour_enabled(Tty()) and not colour_enabled(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not colour_enabled(Tty())
    monkeypatch.delenv("NO_COLOR")
    monkeypatch.setenv("TERM", "dumb")
    assert not colour_enabled(Tty())


def test_frame_lines_styled_like_gdb():
    line = "#0  0x00007f0010002038 in third_level (x=7) at /src/probe.hip:33"
    out = colourize(line)
    assert "\x1b[33mthird_level\x1b[0m" in out and "\x1b[34m0x00007f0010002038\x1b[0m" in out
    assert out.replace("\x1b[34m", "").replace("\x1b[33m", "").replace("\x1b[32m", "").replace("\x1b[0m", "") == line
    assert colourize("$1 = 7") == "$1 = 7"
