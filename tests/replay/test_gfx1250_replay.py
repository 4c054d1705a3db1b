"""Replaying gfx1250 -O0 code from a core, and what explain says when it cannot lift a GFX12.5 code sequence.

Why: clang-22's gfx1250 -O0 code keeps pointers in the private stack and reloads them through *flat* loads
(globally accessible scratch: the address names the wave by its dispatch position, emu/memory.py). A replay from a
core rebuilds only some waves, so it numbered them afresh and the reload named "no such wave": the replay stopped
and explain reported a `no_writer` spin on a made-up address (0x100000000, "value 65794 in the core") for the
hoist_restrict hang: a wrong answer. The replay now keeps each wave's dispatch position (replay/fromcore.py). The
spin is a visibility question, and replay/lift.py has no GFX125x memory-model table: explain says `unknown` and
names that, never "slow, not stuck".
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

CH = Path(__file__).resolve().parents[2] / "corefiles" / "causehangs"


def test_gfx1250_O0_stack_reloads_replay_and_explain_names_the_missing_table(tmp_path) -> None:
    core = tmp_path / "hoist.gpu"
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(CH / "causehangs-llvm22-gfx1250-w32-O0.co"),
                        "--kernel", "hoist_restrict", "--grid", "128", "--block", "64", "--arg", "buf:i32:1",
                        "--arg", "buf:i32:64:iota", "--arg", "buf:i32:128", "--core", str(core), "--json",
                        "--max-instructions", "300000"], capture_output=True, text=True, timeout=600)
    assert json.loads(r.stdout)["status"] == "hang", r.stderr
    r = subprocess.run([sys.executable, "-m", "amddbg", "explain", str(core), "--json"], capture_output=True,
                       text=True, timeout=600)
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["verdict"] == "unknown", doc
    text = json.dumps(doc)
    assert "no_writer" not in text and "0x100000000" not in text
    assert "memory-model code sequences of gfx1250 are not implemented" in text
    assert "every wave ends" in text  # the replay ran past the flat stack reloads to the end
