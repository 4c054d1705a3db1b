"""The new causes' answers depend on the core and the options, never on the machine's load (issue 20, sections 1
and 3): for one core of each cause added since the determinism test was written -- a SIMT lock (`writer_blocked`),
a hoisted poll (`poll_hoisted`), a condition that can never become true (`never_true`), a cross-workgroup flag read
at workgroup scope whose writer is found through -O0's stack slots (`not_visible`), a fault whose pointer is
recomputed by the backward slice (`memory_violation`, `details.origin`) -- `amddbg explain --json` gives the same
bytes (minus the `seconds` measurements) on a quiet machine and twice side by side under CPU contention.

Bounded: five cores, each written at test time with `amddbg run --core` from a checked-in object (the causehangs,
gridhangs and originfaults corpora); the full matrices of those corpora are their own tests' business."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CF = ROOT / "corefiles"
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}

# cause -> (object, kernel, grid, block, args, expected (kind, cause))
CASES = {
    "writer_blocked": ("causehangs/causehangs-llvm22-gfx90a-w64-O2.co", "lock_outside", 64, 64,
                       ["buf:i32:1", "buf:i32:1"], ("spin_forever", "writer_blocked")),
    "poll_hoisted": ("causehangs/causehangs-llvm22-gfx942-w64-O2.co", "hoist_restrict", 128, 64,
                     ["buf:i32:1", "buf:i32:64:iota", "buf:i32:128"], ("spin_forever", "poll_hoisted")),
    "never_true": ("causehangs/causehangs-llvm22-gfx1200-w32-O2.co", "ballot_all", 64, 64,
                   ["buf:i32:1", "buf:i32:64"], ("spin_forever", "never_true")),
    "not_visible": ("gridhangs/gridhangs-llvm22-gfx90a-w64-O0.co", "xwg_relaxed_signed", 512, 128,
                    ["buf:i32:1", "buf:i32:64:iota", "buf:i32:512", "i32:3"], ("spin_forever", "not_visible")),
    "fault_origin": ("originfaults/originfaults-llvm19-gfx942-w64-O0.co", "null_weight", 64, 64,
                     ["buf:i64:4", "buf:f32:64:iota", "buf:f32:64", "i32:3"], ("memory_violation", "memory_violation")),
}


def _amddbg(*args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "amddbg", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV, cwd=str(ROOT))


def _finish(p: subprocess.Popen) -> tuple[int, str, str]:
    out, err = p.communicate(timeout=900)
    return p.returncode, out, err


def _untimed(doc):
    """The JSON without its timing measurements (every "seconds" key)."""
    if isinstance(doc, dict):
        return {k: _untimed(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [_untimed(v) for v in doc]
    return doc


def _bytes(out: str) -> str:
    return json.dumps(_untimed(json.loads(out)), indent=1)


@pytest.mark.parametrize("cause", list(CASES))
def test_same_json_quiet_and_under_contention(tmp_path, cause):
    obj, kernel, grid, block, args, expect = CASES[cause]
    core = tmp_path / f"{kernel}.gpu"
    argv = ["run", CF / obj, "--kernel", kernel, "--grid", grid, "--block", block, "--core", core,
            "--max-instructions", "300000"]
    for a in args:
        argv += ["--arg", a]
    rc, out, err = _finish(_amddbg(*argv))
    assert core.exists(), out + err
    quiet = _finish(_amddbg("explain", core, "--json"))
    assert quiet[0] in (3, 4), quiet[2]
    doc = json.loads(quiet[1])
    kinds = {(f["kind"], f["cause"]) for f in doc["findings"]}
    assert expect in kinds, kinds
    if cause == "fault_origin":
        f = next(f for f in doc["findings"] if f["kind"] == "memory_violation")
        assert f["details"]["origin"] == "the pointer comes from weights[3], which is NULL"
    # two busy loops per CPU, then two explains side by side
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 2))]
    try:
        time.sleep(0.2)
        side = [_amddbg("explain", core, "--json") for _ in range(2)]
        loaded = [_finish(p) for p in side]
    finally:
        for b in busy:
            b.kill()
            b.wait()
    for rc, out, err in loaded:
        assert rc == quiet[0], err
        assert _bytes(out) == _bytes(quiet[1])
