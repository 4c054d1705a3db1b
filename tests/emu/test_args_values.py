"""`--arg buf:TYPE:N:values=...` keeps every integer exactly (found by the gfx1250 oracle test through `amddbg run`:
u64 values past 2**63 went through float64 and lost their low bits, so a kernel silently read other inputs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EDGE = Path(__file__).resolve().parents[2] / "corefiles" / "emu-edges" / "int64-gfx1250.co"


@pytest.mark.parametrize("spec,want", [
    ("u64:4:values=18446744073709551615,13858313989634673117,0x8000000000000001,1",
     [2**64 - 1, 13858313989634673117, 2**63 + 1, 1]),
    ("i64:3:values=-1,-9223372036854775807,9007199254740993", [-1, -(2**63) + 1, 2**53 + 1]),
    ("u32:3:values=4294967295,0x80000001,-1", [2**32 - 1, 2**31 + 1, 2**32 - 1]),
])
def test_values_are_exact(spec, want):
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(EDGE), "--kernel", "int64", "--grid", "32",
                        "--block", "32", "--arg", f"buf:{spec}", "--arg", "buf:u32:544", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)["buffers"][0]["values"]
    assert got[:len(want)] == want
