"""Replaying gfx1250 -O0 code from a core, and explain without a memory-model table for the processor.

Why: clang-22's gfx1250 -O0 code keeps pointers in the private stack and reloads them through *flat* loads
(globally accessible scratch: the address names the wave by its dispatch position, emu/memory.py). A replay from a
core rebuilds only some waves, so it numbered them afresh and the reload named "no such wave": the replay stopped
and explain reported a `no_writer` spin on a made-up address (0x100000000, "value 65794 in the core") for the
hoist_restrict hang: a wrong answer. The replay now keeps each wave's dispatch position (replay/fromcore.py), and
with the GFX125x rows in replay/lift.py the hang is the stale line it is (`not_visible`, the poll's line and the
write's). Where a processor has no code-sequence table, explain says `unknown` naming it, never "slow, not stuck".
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CH = Path(__file__).resolve().parents[2] / "corefiles" / "causehangs"
SRC = (CH / "causehangs.hip").read_text().splitlines()


def _line(text: str, after: str) -> int:
    start = next(n for n, s in enumerate(SRC) if after in s)
    return next(n + 1 for n in range(start, len(SRC)) if text in SRC[n])


@pytest.fixture(scope="module")
def core(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gfx1250") / "hoist.gpu"
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(CH / "causehangs-llvm22-gfx1250-w32-O0.co"),
                        "--kernel", "hoist_restrict", "--grid", "128", "--block", "64", "--arg", "buf:i32:1",
                        "--arg", "buf:i32:64:iota", "--arg", "buf:i32:128", "--core", str(out), "--json",
                        "--max-instructions", "300000"], capture_output=True, text=True, timeout=600)
    assert json.loads(r.stdout)["status"] == "hang", r.stderr
    return out


def test_gfx1250_O0_stack_reloads_replay_and_the_stale_line_is_found(core: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "amddbg", "explain", str(core), "--json"], capture_output=True,
                       text=True, timeout=600)
    doc = json.loads(r.stdout)
    assert r.returncode == 3 and doc["verdict"] == "hang", doc
    text = json.dumps(doc)
    assert "no_writer" not in text and "0x100000000" not in text
    f = next(f for f in doc["findings"] if f["kind"] == "spin_forever")
    assert f["cause"] == "not_visible", f
    lines = {(loc["role"], loc["line"]) for loc in f["locations"]}
    assert lines == {("polling load", _line("while (*flag", "void hoist_restrict(")),
                     ("write that never becomes visible", _line("*flag = 1", "void hoist_restrict("))}


def test_without_a_code_sequence_table_explain_says_unknown_naming_it(core: Path, monkeypatch) -> None:
    """The fallback for a processor replay/lift.py has no table for (gfx906, gfx908, ...), shown on this core by
    taking gfx1250's away: the spin ends once the write is visible, so only the poll's scope could tell."""
    from amddbg.errors import NotSupported
    from amddbg.replay import lift
    from amddbg.replay.analysis import explain_with_replay
    from amddbg.session.program import open as open_core

    def no_table(processor: str) -> str:
        raise NotSupported(f"memory-model lifting for {processor}")

    monkeypatch.setattr(lift, "generation", no_table)
    exp = explain_with_replay(open_core([str(core)]))
    assert exp.verdict == "unknown"
    assert "memory-model code sequences of gfx1250 are not implemented" in exp.replay["method"]
    assert not any(f.cause in ("slow_not_stuck", "no_writer") for f in exp.findings)
