"""The contention harness of the determinism tests (issue 20): an answer must not depend on the machine's load.

tests/replay/test_budget.py (the scenario cores) and tests/replay/test_causes_contention.py (one core per newer
cause) both run `amddbg explain --json` once on a quiet machine and again while busy loops hold every CPU, and
compare the JSON without its `seconds` measurements. They used to carry their own copies of the subprocess
helpers, the busy-loop window and the filter; these are the one copy both import.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the checkout first, so the spawned amddbg is this tree's whatever the caller's PYTHONPATH says
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}


def amddbg(*args) -> subprocess.Popen:
    """`python -m amddbg ARGS` started in the checkout, its stdout and stderr captured as text."""
    return subprocess.Popen([sys.executable, "-m", "amddbg", *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=ENV, cwd=str(ROOT))


def finish(p: subprocess.Popen, timeout: float = 900) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of a started run; `timeout` (seconds) only guards against a hung test."""
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def untimed(doc):
    """The JSON without its timing measurements (every "seconds" key)."""
    if isinstance(doc, dict):
        return {k: untimed(v) for k, v in doc.items() if k != "seconds"}
    if isinstance(doc, list):
        return [untimed(v) for v in doc]
    return doc


@contextmanager
def busy_cpus() -> Iterator[None]:
    """Two busy loops per CPU for the duration of the block (started 0.2 s before it, killed after it): start the
    runs and wait for them all inside one block, so the loops burn CPU for as long as every run lasts."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 2))]
    try:
        time.sleep(0.2)
        yield
    finally:
        for b in busy:
            b.kill()
            b.wait()
