"""The explainer's answer depends on the core and the options, never on the machine's load (issue 20, section 1):
replay is budgeted in wave-instructions (`--budget N`), the output says how many ran, and the same core and options
give the same JSON (minus the `seconds` measurements) on a quiet machine and under CPU contention."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.contention import ENV, amddbg, busy_cpus, finish, untimed

ROOT = Path(__file__).resolve().parents[2]
SC = ROOT / "corefiles" / "scenarios"


def _explain(*args: str) -> subprocess.Popen:
    return amddbg("explain", *args)


def _finish(p: subprocess.Popen) -> tuple[int, str, str]:
    return finish(p, timeout=600)


@pytest.mark.parametrize("core", ["spin-cycle-gfx90a.gpu", "spin-wrong-scope-gfx942.gpu", "lds-spin-gfx1100.gpu"])
def test_same_json_quiet_and_under_contention(core):
    quiet = _finish(_explain(str(SC / core), "--json"))
    assert quiet[0] == 3, quiet[2]
    # two busy loops per CPU, then two explains side by side
    with busy_cpus():
        side = [_explain(str(SC / core), "--json") for _ in range(2)]
        loaded = [_finish(p) for p in side]
    docs = [json.loads(quiet[1])] + [json.loads(out) for _rc, out, _err in loaded]
    assert all(rc == 3 for rc, _o, _e in loaded)
    assert docs[0]["verdict"] == "hang" and docs[0]["replay"]["wave_instructions"] > 0
    assert untimed(docs[1]) == untimed(docs[0])
    assert untimed(docs[2]) == untimed(docs[0])


def test_budget_in_wave_instructions_decides_the_verdict():
    # slow-loop: replay runs every wave to its end in a few hundred wave-instructions (no_hang); with a budget of
    # 100 it stops short, and the verdict is what the core alone proves (unknown), whatever the machine's speed
    rc, out, err = _finish(_explain(str(SC / "slow-loop-gfx90a.gpu")))
    assert rc == 0 and out.startswith("verdict: no_hang"), err
    assert "replayed 514 wave-instructions, budget 1000000 per replay" in out
    rc, out, err = _finish(_explain(str(SC / "slow-loop-gfx90a.gpu"), "--budget", "100"))
    assert rc == 0 and out.startswith("verdict: unknown"), err
    assert "replayed 100 wave-instructions, budget 100 per replay" in out
    assert "stopped after 100 wave-instructions" in out
    rc, out, err = _finish(_explain(str(SC / "slow-loop-gfx90a.gpu"), "--budget", "100", "--json"))
    doc = json.loads(out)
    assert doc["verdict"] == "unknown" and doc["replay"]["budget"] == 100 and doc["replay"]["wave_instructions"] == 100
    rc, out, err = _finish(_explain(str(SC / "slow-loop-gfx90a.gpu"), "--budget", "0"))
    assert rc == 2 and "--budget" in err and "Traceback" not in err


def test_repl_explain_budget():
    core = str(SC / "slow-loop-gfx90a.gpu")
    p = subprocess.run([sys.executable, "-m", "amddbg", "-batch", "-ex", "explain --budget 100", "-ex", "explain",
                        "-ex", "explain --budget nope", core], capture_output=True, text=True, env=ENV,
                       cwd=str(ROOT), timeout=600)
    out = p.stdout
    first, _, rest = out.partition("replayed 100 wave-instructions, budget 100 per replay")
    assert "verdict: unknown" in first
    assert "verdict: no_hang" in rest and "replayed 514 wave-instructions" in rest
    assert "explain: --budget 'nope'" in p.stderr


def test_python_api_budget():
    from amddbg.replay.explain import explain_core

    short = explain_core(str(SC / "slow-loop-gfx1100.gpu"), budget=1000)
    assert short.verdict == "unknown" and short.replay["wave_instructions"] == 1000
    full = explain_core(str(SC / "slow-loop-gfx1100.gpu"))
    assert full.verdict == "no_hang" and full.replay["wave_instructions"] == 3226
