"""Damaged cores through the whole session API: deterministic byte corruption of the demo cores (notes and
headers at the front, wave records and LDS at the back). Every failure must be an AmddbgError (one line
for the user) or a value printed `<unavailable>`; never another exception. Bounded: 40 mutants per core
and region (AMDDBG_SLOW_LIMIT raises it)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import amddbg
from amddbg.errors import AmddbgError
from tests import bounded

CORES = Path(__file__).resolve().parents[2] / "corefiles" / "cores"
N = bounded.count(40)  # mutants per core and region (a fuzzer: 0 keeps 40)


def _walk(path: Path) -> None:
    try:
        prog = amddbg.open(path)
        prog.warnings  # noqa: B018
        for t in prog.threads:
            t.target_id  # noqa: B018
            if t.is_wave:
                t.state_reason  # noqa: B018
            for f in t.frames():
                for v in f.arguments() + f.locals():
                    v.lane_values().format()
        for expr in ("$pc", "$v0", "$exec", "$_lane_workgroup_pos", "*(int local *)0"):
            try:
                prog.evaluate(expr).format()
            except AmddbgError:
                pass
        if prog.waves:
            try:
                prog.evaluate_lanes("$v0 + 1").format()
            except AmddbgError:
                pass
    except AmddbgError:
        pass


@pytest.mark.parametrize("name", ["gfx90a-divergent-barrier.gpu", "gfx1100-probe.core"])
@pytest.mark.parametrize("region", ["front", "back"])
def test_corrupted_cores_fail_cleanly(tmp_path, name, region):
    src = (CORES / name).read_bytes()
    out = tmp_path / name
    for seed in range(N):
        r = random.Random(f"{name}/{region}/{seed}")
        data = bytearray(src)
        for _ in range(r.choice((1, 4, 16, 64))):
            i = r.randrange(min(len(data), 4096)) if region == "front" else r.randrange(len(data) * 3 // 4, len(data))
            data[i] = r.randrange(256)
        out.write_bytes(data)
        _walk(out)  # any exception other than AmddbgError fails the test with the seed in the traceback
