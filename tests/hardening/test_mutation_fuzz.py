"""Issue 23 section 3: mutated scenario cores through the commands a user runs first (`info`, batch
`thread apply all bt`, `explain`), each in a child process under an address-space limit and a time limit.

A mutant passes when every command ends with exit status 0-4 (explain: 3 hang, 4 fault), at most
one-line errors, no traceback, no internal error, within its limits. CI runs a bounded, fixed set
(AMDDBG_FUZZ_CORES mutants per kind and seed core, default 1: 15 mutants, 45 runs, about a minute);
`python tests/hardening/core_mutator.py N [FIRST_SEED]` explores more and prints what fails.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from core_mutator import KINDS, mutate

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "corefiles" / "scenarios"
SEED_CORES = [SCEN / "barrier-deadlock-gfx90a.gpu", SCEN / "memory-fault-gfx1100.core",
              SCEN / "handshake-wrong-scope-gfx942.gpu"]
COMMANDS = [["info", "--registers"], ["-batch", "-ex", "thread apply all bt"], ["explain"]]
AS_LIMIT = 3 << 30  # address space of each child (Python, numpy and amddbg need well under 1 GiB)
PER_KIND = int(os.environ.get("AMDDBG_FUZZ_CORES", "1"))


def _limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (AS_LIMIT, AS_LIMIT))


def check_mutant(tmp: Path, core: Path, kind: str, seed: int) -> str | None:
    """None when every command handles the mutant; else what went wrong."""
    p = tmp / f"{kind}-{seed}{core.suffix}"
    p.write_bytes(mutate(core.read_bytes(), kind, seed))
    for cmd in COMMANDS:
        try:
            r = subprocess.run([sys.executable, "-m", "amddbg", *cmd, str(p)], capture_output=True, text=True,
                               timeout=120, preexec_fn=_limits, stdin=subprocess.DEVNULL, errors="replace")
        except subprocess.TimeoutExpired:
            return f"{cmd}: over 120 s"
        if r.returncode not in (0, 1, 2, 3, 4):  # explain: 3 hang, 4 fault or trap
            return f"{cmd}: exit {r.returncode}: {r.stderr[-300:]}"
        if "Traceback" in r.stderr or "internal error" in r.stderr:
            return f"{cmd}: {r.stderr[-600:]}"
        errors = [ln for ln in r.stderr.splitlines() if ln.startswith("amddbg: error:")]
        if r.returncode == 2 and cmd[0] != "-batch" and len(errors) != 1:
            return f"{cmd}: exit 2 without a one-line error: {r.stderr[-300:]}"
    return None


@pytest.mark.parametrize("seed", range(PER_KIND))
@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("core", SEED_CORES, ids=lambda p: p.name)
def test_mutated_cores_through_the_commands(tmp_path, core, kind, seed):
    problem = check_mutant(tmp_path, core, kind, seed)
    assert problem is None, problem


def test_mutations_change_what_they_say():
    """The mutator really edits the fields it names (else the fuzzer tests nothing)."""
    data = SEED_CORES[0].read_bytes()
    for kind in KINDS:
        assert any(mutate(data, kind, s) != data for s in range(4)), kind
    assert len(mutate(data, "truncate", 0)) < len(data)
