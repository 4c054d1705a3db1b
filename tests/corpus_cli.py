"""What the corpus tests that drive `amddbg` as a user would (tests/emu/test_explorehangs.py,
tests/emu/test_lanehangs.py) share: the CLI call that must exit as expected without a traceback, the wave size
in an object's name, and the pytest parameters of a corpus matrix in bounded form (tests/bounded.py).

Each used to carry its own copy; a new corpus test imports these instead of writing them again.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from tests import bounded

ROOT = Path(__file__).resolve().parents[1]


def amddbg(*args, ok=(0,), timeout: float = 900) -> subprocess.CompletedProcess:
    """`python -m amddbg ARGS` from the checkout; asserts its exit code is one of `ok` and that no traceback
    reached the user. `timeout` (seconds) only guards against a hung test: answers are budgeted in instructions."""
    r = subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                       cwd=ROOT, env=dict(os.environ), timeout=timeout)
    assert r.returncode in ok, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    return r


def wave_of(obj: str) -> int:
    """The wave size an object's name gives (`...-w64-O2.co` -> 64)."""
    return int(re.search(r"-w(\d+)-", obj).group(1))


def matrix_params(objects: Sequence[str], kernels: Sequence[str] | None = None, **how) -> list:
    """The objects (or (kernel, object) pairs with `kernels`) a check runs on, as pytest params: the cases
    bounded.matrix(objects, kernels, **how) picks (`fast=`, `sample=`), the slow ones marked slow."""
    cases = bounded.matrix(objects, kernels or (None,), **how)
    return bounded.params(cases, kernel=kernels is not None,
                          ids=lambda c: c.obj if kernels is None else f"{c.obj}-{c.kernel}")
