"""A plain (non-atomic) poll of a flag another workgroup publishes through a -O0 helper (corefiles/freshhangs
xwg_slot_2d: `r = slot->ready` in the consumer's loop; the producer calls publish(), which stores the payload and
then the flag): `amddbg explain` says the load is plain -- a plain load has no scope -- and which atomic loads
compile to the same bytes (never a scope narrower than the user may have written, issue 20 section 3), gives the
fix (an atomic load with acquire at agent scope), and names the flag store inside the helper as the write that
never becomes visible (not the payload store, not the consumer function's own `out[t] = acc`). Through the CLI:
`amddbg run --core`, then `amddbg explain --json` and the text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FH = ROOT / "corefiles" / "freshhangs"
SRC = (FH / "freshhangs.hip").read_text().splitlines()


def _line(text: str) -> int:
    return next(n for n, s in enumerate(SRC, 1) if text in s)


POLL, FLAG_STORE, PAYLOAD = _line("r = slot->ready;"), _line("@helper:publish"), _line("s->data = v;")
# (object, the plain-load row and the atomic loads with the same bytes, as the lifter's rows name them)
CASES = [
    ("llvm22-gfx90a-w64-O0", "an atomic load at workgroup scope or narrower (both compile to the same code: GFX90A "
                             "load generic)"),
    ("llvm19-gfx1100-w32-O0", "an atomic load at wavefront scope (both compile to the same code: GFX10-GFX11 load "
                              "generic)"),
]


def _amddbg(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env={**os.environ, "COLUMNS": "250"})


@pytest.mark.parametrize("obj,rows", CASES, ids=[c[0] for c in CASES])
def test_plain_poll_says_plain_and_names_the_helpers_flag_store(tmp_path, obj, rows):
    core = tmp_path / "xwg.gpu"
    r = _amddbg("run", FH / f"freshhangs-{obj}.co", "--kernel", "xwg_slot_2d", "--grid", "64,2", "--block", "64,1",
                "--arg", "buf:i32:2", "--arg", "buf:i32:64:iota", "--arg", "buf:i32:128", "--core", core,
                "--max-instructions", "3000000")
    assert core.exists(), r.stdout + r.stderr
    r = _amddbg("explain", "--json", core)
    assert r.returncode == 3, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    nv = [f for f in doc["findings"] if f["cause"] == "not_visible"]
    assert len(nv) == 1, [(f["kind"], f["cause"]) for f in doc["findings"]]
    f = nv[0]
    assert [(loc["role"], loc["function"], loc["line"]) for loc in f["locations"]] == [
        ("polling load", "xwg_slot_2d", POLL), ("write that never becomes visible", "publish", FLAG_STORE)]
    assert PAYLOAD not in {loc["line"] for loc in f["locations"]}
    d = f["details"]
    assert d["plain_load"] is True and d["needed_scope"] == "agent" and d["fix_verified"] is True
    assert f"the load is a plain (non-atomic) load or {rows}, which does not make " \
           "another workgroup's write visible" in f["summary"], f["summary"]
    assert "acquire at wavefront scope" not in f["summary"] and "an acquire at" not in f["summary"]
    assert ("needs an atomic load with acquire at agent scope (__hip_atomic_load(..., __ATOMIC_ACQUIRE, "
            "__HIP_MEMORY_SCOPE_AGENT)) and a release at agent scope") in f["summary"]
    assert f"the write at freshhangs.hip:{FLAG_STORE} (" in f["summary"]
    assert d["fix"] == [f"acquire:agent@/amddbg/freshhangs.hip:{POLL}", f"release:agent@/amddbg/freshhangs.hip:"
                                                                      f"{FLAG_STORE}"]
    text = " ".join(_amddbg("explain", core).stdout.split())
    assert "the load is a plain (non-atomic) load" in text and f"publish at /amddbg/freshhangs.hip:{FLAG_STORE}" in text
