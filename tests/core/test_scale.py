"""Scale (acceptance): a 100 GB sparse core opens and lists its waves in < 2 s with < 300 MB RSS, and a
10,000-wave core lists them in < 3 s. Each measurement runs in a subprocess (bench/core_open.py's child)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("core_open_bench", ROOT / "bench" / "core_open.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)


@pytest.mark.slow
def test_100gb_sparse_core(tmp_path):
    p = tmp_path / "big.gpu"
    bench.make_big(p, 100, 256)
    assert os.stat(p).st_size > 100 << 30 and os.stat(p).st_blocks * 512 < 64 << 20  # sparse on disk
    secs, rss, n, warnings = bench.measure(p)
    assert n == 256 and warnings == 0
    assert secs < 2.0 and rss < 300


@pytest.mark.slow
def test_many_waves(tmp_path):
    n_waves = int(os.environ.get("AMDDBG_CORE_WAVES", "10000"))
    p = tmp_path / "many.gpu"
    bench.make_many(p, n_waves)
    secs, rss, n, warnings = bench.measure(p)
    assert n == n_waves and warnings == 0
    assert secs < 3.0
