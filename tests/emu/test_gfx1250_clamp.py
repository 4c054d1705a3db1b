"""Clamp on gfx1250 integer operations (corefiles/emu-edges/clamp64.gfx1250.s, llvm-mc-22), through `amddbg run`.

Why: llvm-mc-22 accepts clamp on v_add_nc_u64, v_sub_nc_u64, v_mad_nc_u64_u32, v_mad_nc_i64_i32, v_add_{min,max}_*
and v_pk_add_{min,max}_*, but the GFX12.5 ISA is not public and LLVM 22 never emits these forms (its
`llvm.uadd.sat.i64` is v_min_u64 + v_add_nc_u64; its saturating add-then-min is v_add_min_* without clamp: llc-22
-mcpu=gfx1250), so what the bit does is unknown. Each form must stop the wave naming the instruction and clamp,
never run as if the bit were clear (the clamp-free v_add_nc_u64 beside them must still run: the stop is the bit's).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

CO = Path(__file__).resolve().parents[2] / "corefiles" / "emu-edges" / "clamp64-gfx1250.co"
FORMS = ["v_add_nc_u64_e64", "v_sub_nc_u64_e64", "v_mad_nc_u64_u32", "v_mad_nc_i64_i32", "v_add_max_i32",
         "v_pk_add_min_u16"]
HI = [0x1000 + 7 * ln for ln in range(32)]


def _run(form: int) -> dict:
    flat = [form] * 32 + HI
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(CO), "--kernel", "clamp64", "--grid", "32",
                        "--block", "32", "--arg", f"buf:u32:{len(flat)}:values={','.join(map(str, flat))}",
                        "--arg", "buf:u32:64", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("form", range(len(FORMS)), ids=FORMS)
def test_clamp_on_a_gfx1250_integer_op_stops_naming_it(form: int) -> None:
    doc = _run(form)
    assert doc["status"] == "unsupported", doc
    reason = doc["reason"]
    assert reason.startswith(f"unsupported instruction {FORMS[form]} ") and " clamp (clamp on " in reason, reason
    assert set(doc["buffers"][1]["values"]) == {0}


def test_the_same_op_without_clamp_runs() -> None:
    doc = _run(6)
    assert doc["status"] == "completed", doc["reason"]
    want = [((h << 32 | 6) + (1 << 64) - 1) & ((1 << 64) - 1) for h in HI]
    out = doc["buffers"][1]["values"]
    assert out[:32] == [w & 0xFFFFFFFF for w in want] and out[32:] == [w >> 32 for w in want]
