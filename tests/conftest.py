"""Shared fixtures: paths to the real corpus built by corefiles/build.py."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corefiles" / "co"

# The fuzz tests draw the same examples on every run (CI must not fail on a case one run happens to draw and the
# next does not); AMDDBG_FUZZ_RANDOM=1 explores fresh ones (with AMDDBG_FUZZ_EXAMPLES=N for more of them), and
# what that finds becomes an @example. Settings a test names itself still apply over the profile.
settings.register_profile("amddbg-fixed", derandomize=True, database=None)
settings.register_profile("amddbg-random")
settings.load_profile("amddbg-random" if os.environ.get("AMDDBG_FUZZ_RANDOM") else "amddbg-fixed")

# amddbg folds explain and start-up summary text to $COLUMNS (amddbg.termwidth), so an inherited COLUMNS would change
# what the tests read: the subprocesses they start inherit none; a test that wants a width sets it. pytest imports
# GNU readline before this file (capture.py's _readline_workaround), and readline exports LINES and COLUMNS (80 off
# a terminal) in the C environment, which os.environ does not show and children inherit: unset both ways.
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)
    os.unsetenv(_name)


def _bytecode_cache_for_children() -> None:
    """Let the `python -m amddbg` subprocesses the tests start (thousands of them) cache their bytecode.

    Under PYTHONDONTWRITEBYTECODE (set on the machines this suite runs on) no .pyc is ever written, so every
    subprocess compiled amddbg, numpy's Python part and the standard library modules it needs from source: half of
    a typical `amddbg explain`'s CPU (0.67 s of CPU, 0.34 s with the cache; bench/startup.py). The children get a
    private cache instead (PYTHONPYCACHEPREFIX, a temporary directory removed at exit), so nothing is written
    beside the sources, as the variable intends. The first process that loads this file decides (pytest-xdist's
    workers inherit its environment); a PYTHONPYCACHEPREFIX the user set is kept."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get("PYTHONPYCACHEPREFIX"):
        return
    import atexit
    import shutil
    import tempfile

    prefix = tempfile.mkdtemp(prefix="amddbg-tests-pycache-")
    atexit.register(shutil.rmtree, prefix, ignore_errors=True)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    del os.environ["PYTHONDONTWRITEBYTECODE"]


_bytecode_cache_for_children()


def _manifest() -> list[dict]:
    return json.loads((CORPUS / "manifest.json").read_text())["objects"]


def corpus_objects() -> list[Path]:
    """The AMDGPU code objects of the corpus (not the host objects that embed bundles)."""
    return [CORPUS / r["file"] for r in _manifest() if r.get("kind", "code_object") == "code_object"]


def host_objects() -> list[Path]:
    """Host x86-64 objects whose .hip_fatbin embeds an offload bundle."""
    return [CORPUS / r["file"] for r in _manifest() if r.get("kind") == "host"]


@pytest.fixture(scope="session")
def corpus() -> list[Path]:
    return corpus_objects()
