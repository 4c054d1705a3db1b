"""The checked-in corpus is what corefiles/build.py builds: same compiler package, same bytes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests import bounded
from tests.conftest import CORPUS, ROOT

MANIFEST = json.loads((CORPUS / "manifest.json").read_text())["objects"]


def _compiler_matches(record) -> str | None:
    tool = record["compiler"]
    if shutil.which(tool) is None:
        return f"{tool} not installed (apt-get install {tool} lld-{tool.split('-')[1]})"
    out = subprocess.run([tool, "--version"], capture_output=True, text=True).stdout
    line = next((x.strip() for x in out.splitlines() if "version" in x), "")
    if line != record["compiler_version"]:
        return f"{tool} is '{line}', the corpus was built with '{record['compiler_version']}'"
    return None


def _check(names: list[str]) -> None:
    for name in names:
        record = next(r for r in MANIFEST if r["file"] == name)
        why = _compiler_matches(record)
        if why:
            pytest.skip(why)
        r = subprocess.run([sys.executable, str(ROOT / "corefiles" / "build.py"), "--check", "--only", name],
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr


def test_sample_reproduces():
    _check(["llvm19-gfx90a-w64-O2-cl.co", "llvm22-gfx1100-w32-O0-hip.co", "host-llvm22-gfx90a-gfx1100-O2.o"])


@pytest.mark.slow
def test_whole_corpus_reproduces():
    limit = bounded.count(12, len(MANIFEST))  # AMDDBG_SLOW_LIMIT=0: every object
    names = [r["file"] for r in MANIFEST][:: max(1, len(MANIFEST) // limit)]
    _check(names)


def test_manifest_hashes_match_files():
    import hashlib

    for r in MANIFEST:
        assert hashlib.sha256((CORPUS / r["file"]).read_bytes()).hexdigest() == r["sha256"], r["file"]
