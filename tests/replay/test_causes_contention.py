"""The new causes' answers depend on the core and the options, never on the machine's load (issue 20, sections 1
and 3): for one core of each cause added since the determinism test was written -- a SIMT lock (`writer_blocked`),
a hoisted poll (`poll_hoisted`), a condition that can never become true (`never_true`), a cross-workgroup flag read
at workgroup scope whose writer is found through -O0's stack slots (`not_visible`), a fault whose pointer is
recomputed by the backward slice (`memory_violation`, `details.origin`) -- `amddbg explain --json` gives the same
bytes (minus the `seconds` measurements) on a quiet machine and twice side by side under CPU contention (the ten
explains of the five cores at once, in one window of busy loops).

Bounded: five cores, each written at test time with `amddbg run --core` from a checked-in object (the causehangs,
gridhangs and originfaults corpora); the full matrices of those corpora are their own tests' business."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.contention import amddbg, busy_cpus, finish, untimed

ROOT = Path(__file__).resolve().parents[2]
CF = ROOT / "corefiles"

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


def _bytes(out: str) -> str:
    return json.dumps(untimed(json.loads(out)), indent=1)


@pytest.fixture(scope="module")
def quiet(tmp_path_factory) -> dict:
    """cause -> (core, the quiet explain's (exit code, stdout, stderr)): each core written and explained once."""
    out = {}
    for cause, (obj, kernel, grid, block, args, _expect) in CASES.items():
        core = tmp_path_factory.mktemp(cause) / f"{kernel}.gpu"
        argv = ["run", CF / obj, "--kernel", kernel, "--grid", grid, "--block", block, "--core", core,
                "--max-instructions", "300000"]
        for a in args:
            argv += ["--arg", a]
        rc, out_, err = finish(amddbg(*argv))
        assert core.exists(), out_ + err
        out[cause] = core, finish(amddbg("explain", core, "--json"))
    return out


@pytest.mark.parametrize("cause", list(CASES))
def test_each_core_shows_its_cause(quiet, cause):
    _core, (rc, out, err) = quiet[cause]
    assert rc in (3, 4), err
    doc = json.loads(out)
    kinds = {(f["kind"], f["cause"]) for f in doc["findings"]}
    assert CASES[cause][5] in kinds, kinds
    if cause == "fault_origin":
        f = next(f for f in doc["findings"] if f["kind"] == "memory_violation")
        assert f["details"]["origin"] == "the pointer comes from weights[3], which is NULL"


def test_same_json_quiet_and_under_contention(quiet):
    """Two busy loops per CPU, then two explains of every core side by side (all ten at once: the busy loops burn
    CPU for as long as the explains run, so one window for all of them, not one per core)."""
    with busy_cpus():
        side = {cause: [amddbg("explain", core, "--json") for _ in range(2)] for cause, (core, _q) in quiet.items()}
        loaded = {cause: [finish(p) for p in ps] for cause, ps in side.items()}
    for cause, runs in loaded.items():
        q = quiet[cause][1]
        for rc, out, err in runs:
            assert rc == q[0], (cause, err)
            assert _bytes(out) == _bytes(q[1]), cause
