"""Truncated and corrupted cores: clear one-line errors or partial results, never a traceback."""

from __future__ import annotations

import io
import random
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from core_scenarios import build
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from amddbg.amdgpu import AddressSpace
from amddbg.cli.core_info import core_document
from amddbg.cli.main import main
from amddbg.core import open_core
from amddbg.errors import AmddbgError
from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
CO = (ROOT / "corefiles" / "co" / "llvm22-gfx90a-w64-O2-hip.co").read_bytes()
LIMIT = bounded.count(60)  # examples (a fuzzer: AMDDBG_SLOW_LIMIT=0 keeps 60)


def _seed_cores(tmp: Path) -> dict[str, bytes]:
    out = {}
    for arch in ("gfx90a", "gfx1100", "gfx1201"):
        sc = build(arch, seed=3, groups=1, code_object=CO if arch == "gfx90a" else None)
        p = tmp / f"{arch}.gpu"
        sc.builder.write_split(str(p))
        out[arch] = p.read_bytes()
    p = tmp / "unified.core"
    build("gfx942", seed=4, groups=1).builder.write_unified(str(p))
    out["unified"] = p.read_bytes()
    return out


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return _seed_cores(tmp_path_factory.mktemp("seeds"))


def exercise(path: Path) -> None:
    """Everything a user can ask of a core; only AmddbgError may escape."""
    try:
        core = open_core(path)
    except AmddbgError as exc:
        assert "\n" not in exc.user_message()
        return
    core_document(core, registers=True)
    for w in core.waves:
        for attr in (
            "pc",
            "exec",
            "status",
            "trapsts",
            "mode",
            "stop_reason",
            "workgroup",
            "wave_in_group",
            "dispatch_id",
            "sgprs",
            "vgprs",
            "accvgprs",
            "shared_vgprs",
            "lds",
        ):
            try:
                getattr(w, attr)
            except AmddbgError:
                pass
        try:
            w.memory.read(AddressSpace.LOCAL, 0, 4)
        except AmddbgError:
            pass
    for c in core.code_objects:
        try:
            c.data  # noqa: B018
        except AmddbgError:
            pass
    for a in (0, 0x7F12_0000_0000, 0x7FEE_0000_0000):
        try:
            core.memory.read(AddressSpace.GLOBAL, a, 16)
        except AmddbgError:
            pass
    core.close()


@settings(max_examples=LIMIT, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_cores(seeds, tmp_path, data):
    name = data.draw(st.sampled_from(sorted(seeds)))
    blob = bytearray(seeds[name])
    kind = data.draw(st.sampled_from(["truncate", "flip", "word"]))
    rnd = random.Random(data.draw(st.integers(0, 2**32)))
    if kind == "truncate":
        blob = blob[: data.draw(st.integers(0, len(blob)))]
    elif kind == "flip":
        for _ in range(data.draw(st.integers(1, 64))):
            # bias towards the headers, note and control stacks where structure lives
            i = rnd.randrange(min(len(blob), 4096)) if rnd.random() < 0.6 else rnd.randrange(len(blob))
            blob[i] ^= 1 << rnd.randrange(8)
    else:
        for _ in range(data.draw(st.integers(1, 8))):
            i = rnd.randrange(0, len(blob) - 8)
            blob[i : i + 8] = rnd.choice([0, 2**32 - 1, 2**64 - 1, rnd.getrandbits(64)]).to_bytes(8, "little")
    p = tmp_path / "fuzzed.core"
    p.write_bytes(bytes(blob))
    exercise(p)


@pytest.mark.parametrize("cut", [0, 10, 63, 64, 200, 300, 1000])
def test_truncated_headers_give_one_line_errors(seeds, tmp_path, cut):
    p = tmp_path / "cut.gpu"
    p.write_bytes(seeds["gfx90a"][:cut])
    err, out = io.StringIO(), io.StringIO()
    with redirect_stderr(err), redirect_stdout(out):
        rc = main(["info", "--json", str(p)])
    if rc != 0:
        lines = err.getvalue().strip().splitlines()
        assert rc == 2 and len(lines) == 1 and lines[0].startswith("amddbg: error: ")
        assert "Traceback" not in err.getvalue()


def test_truncated_core_gives_partial_results(seeds, tmp_path):
    """A core cut in the middle of its wave area still lists agents, queues and the waves it holds."""
    full = tmp_path / "full.gpu"
    full.write_bytes(seeds["gfx1100"])
    n_full = len(open_core(full).waves)
    p = tmp_path / "cut.gpu"
    p.write_bytes(seeds["gfx1100"][: len(seeds["gfx1100"]) - 9000])
    core = open_core(p)
    assert core.agents and core.queues
    assert 0 < len(core.waves) < n_full or any("truncated" in w for w in core.warnings)
    assert any("truncated" in w for w in core.warnings)
