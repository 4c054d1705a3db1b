from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "session"))


@pytest.fixture(scope="session")
def chain_core(tmp_path_factory):
    import chain_core as cc

    path = tmp_path_factory.mktemp("cores") / "chain.gpu"
    return path, cc.build(path)
