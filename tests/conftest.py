"""Shared fixtures: paths to the real corpus built by corefiles/build.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corefiles" / "co"


def corpus_objects() -> list[Path]:
    manifest = json.loads((CORPUS / "manifest.json").read_text())
    return [CORPUS / r["file"] for r in manifest["objects"]]


@pytest.fixture(scope="session")
def corpus() -> list[Path]:
    return corpus_objects()
