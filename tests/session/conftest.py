from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture(scope="session")
def chain_core(tmp_path_factory):
    import chain_core as cc

    path = tmp_path_factory.mktemp("cores") / "chain.gpu"
    expected = cc.build(path)
    return path, expected


@pytest.fixture(scope="session")
def chain_unified(tmp_path_factory):
    import chain_core as cc

    path = tmp_path_factory.mktemp("cores") / "chain.core"
    expected = cc.build(path, layout="unified")
    return path, expected
