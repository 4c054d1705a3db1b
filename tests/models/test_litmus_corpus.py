"""Agreement with every expected verdict of the shared litmus oracle (../shared/litmus).

One test per litmus file: Khronos files must agree with every SATISFIABLE/NOSOLUTION line (NOCHAINS
lines under the NOCHAINS model) and with EXPECTED.tsv; Dat3M files with each CSV that lists them.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amddbg.models.litmus import load
from amddbg.models.verdict import decide

LITMUS = Path(os.environ.get("AMDDBG_LITMUS", Path(__file__).resolve().parents[3] / "shared" / "litmus"))
if not LITMUS.is_dir():
    LITMUS = Path("/work/shared/litmus")

pytestmark = pytest.mark.skipif(not LITMUS.is_dir(), reason=f"litmus oracle not found at {LITMUS}")


def _khronos_expected() -> dict[str, list[str]]:
    p = LITMUS / "khronos" / "EXPECTED.tsv"
    if not p.exists():
        return {}
    out = {}
    for ln in p.read_text().splitlines()[1:]:
        name, _, rest = ln.partition("\t")
        out[name] = [x.strip() for x in rest.split(";") if x.strip()]
    return out


def _dat3m_expected() -> dict[str, dict[str, bool]]:
    out: dict[str, dict[str, bool]] = {}
    for csv, field in (("VULKAN-expected.csv", "condition"), ("VULKAN-DR-expected.csv", "race_free"),
                       ("VULKAN-Liveness-Fair-expected.csv", "terminates")):
        p = LITMUS / "dat3m" / csv
        if not p.exists():
            continue
        for ln in p.read_text().splitlines():
            if ln.strip() and not ln.startswith("//"):
                path, val = ln.strip().rsplit(",", 1)
                out.setdefault(path, {})[field] = val.strip() == "1"
    return out


KHRONOS = _khronos_expected()
DAT3M = _dat3m_expected()


@pytest.mark.parametrize("name", sorted(KHRONOS))
def test_khronos(name: str) -> None:
    test = load(LITMUS / "khronos" / name)
    v = decide(test)
    got = {}
    for q in v.queries:
        verdict = "SATISFIABLE" if q.sat else "NOSOLUTION"
        body = q.text.split(None, 1)[1].strip()
        got[body] = verdict
        assert q.agrees, f"{name} line {q.line}: {q.text} computed {verdict}"
    for line in KHRONOS[name]:
        kw, _, body = line.partition(" ")
        assert got.get(body.strip()) == kw, f"{name}: expected '{line}', computed {got.get(body.strip())}"


@pytest.mark.parametrize("rel", sorted(DAT3M))
def test_dat3m(rel: str) -> None:
    v = decide(load(LITMUS / rel))
    exp = DAT3M[rel]
    if "condition" in exp:
        assert v.condition_holds == exp["condition"], "\n".join(v.explanation)
    if "race_free" in exp:
        assert (not v.data_race) == exp["race_free"], "\n".join(v.explanation)
    if "terminates" in exp:
        assert v.terminates == exp["terminates"], "\n".join(v.explanation)


def test_corpus_is_complete() -> None:
    assert len(KHRONOS) == 89
    assert len(list((LITMUS / "khronos").glob("*.test"))) == 89
    assert len(DAT3M) == 26
