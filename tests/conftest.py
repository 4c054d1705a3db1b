"""Shared fixtures: paths to the real corpus built by corefiles/build.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corefiles" / "co"


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
