"""Optional: agreement with the full Dat3M VULKAN suite when a Dat3M checkout is available.

Set AMDDBG_DAT3M to a Dat3M checkout (with litmus/VULKAN and dartagnan/src/test/resources); the number
of files per CSV is bounded by AMDDBG_SLOW_LIMIT (default 40) so CI runs it in bounded form.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amddbg.models.litmus import load
from amddbg.models.verdict import decide
from tests import bounded

ROOT = Path(os.environ.get("AMDDBG_DAT3M", "/nonexistent"))
CSVS = [("VULKAN-expected.csv", "condition", False), ("VULKAN-DR-expected.csv", "race_free", False),
        ("VULKAN-Liveness-Fair-expected.csv", "terminates", False),
        ("VULKAN-NOCHAINS-expected.csv", "condition", True), ("VULKAN-DR-NOCHAINS-expected.csv", "race_free", True)]


@pytest.mark.slow
@pytest.mark.skipif(not (ROOT / "litmus" / "VULKAN").is_dir(), reason="set AMDDBG_DAT3M to a Dat3M checkout")
@pytest.mark.parametrize("csv,field,nochains", CSVS)
def test_dat3m_suite(csv: str, field: str, nochains: bool) -> None:
    path = ROOT / "dartagnan" / "src" / "test" / "resources" / csv
    rows = [ln.strip().rsplit(",", 1) for ln in path.read_text().splitlines()
            if ln.strip() and not ln.startswith(("//", ";"))]
    rows = [(p, e) for p, e in rows if (ROOT / p).exists()]
    step = max(1, len(rows) // bounded.count(40, len(rows)))  # AMDDBG_SLOW_LIMIT=0: every file
    bad = []
    for rel, exp in rows[::step]:
        v = decide(load(ROOT / rel), nochains=nochains)
        got = {"condition": v.condition_holds, "race_free": not v.data_race, "terminates": v.terminates}[field]
        if got != (exp.strip() == "1"):
            bad.append(f"{rel}: expected {exp}, computed {got}")
    assert not bad, "\n".join(bad)
