"""corefiles/lanehangs through the user's door (`amddbg run`, `amddbg explain`): loop proofs through cross-lane
operations (issue 20: DPP/permute shapes outside the explorehangs corpus gave `limit`).

Each lane polls its own word of a flag nothing writes; the wave combines the lanes' values with HIP's __shfl or
__shfl_xor (ds_bpermute), DPP row shifts and readlane, or ds_swizzle and readfirstlane, and counts its spins (the
state never repeats). The loop proof slices through the cross-lane operation (a value read from lanes whose inputs
cannot change cannot change): `run` says hang from the proof, well before the instruction limit; explain gives
spin_forever at the polling line. The twins are not hangs: a timeout read through a shuffle of the counter (ends,
or stops at the limit, never a proven hang) and a late writer one lane of the DPP reduction sees (completes).

Every check's matrix (its kernels x 24 objects) is marked slow; CI runs each check's cover (tests/bounded.py,
sample="axes": six cases that run every kernel, every target, both compilers and -O0 and -O2 somewhere,
rotating); AMDDBG_SLOW_LIMIT=0 runs all 24 objects.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.corpus_cli import amddbg as _amddbg
from tests.corpus_cli import matrix_params
from tests.corpus_cli import wave_of as _wave

ROOT = Path(__file__).resolve().parents[2]
DIR = ROOT / "corefiles" / "lanehangs"
SRC = (DIR / "lanehangs.hip").read_text().splitlines()
OBJECTS = sorted(p.name for p in DIR.glob("lanehangs-*.co"))
HANGS = ("shfl_poll", "xor_reduce_poll", "dpp_reduce_poll", "swizzle_poll")
LIMIT = 3_000_000  # far above what a proof needs: a hang found at the limit would fail the test


def _params(kernels=None) -> list:
    """The objects (or (kernel, object) pairs) a check runs on: the matrix's cover (tests/bounded.py)."""
    return matrix_params(OBJECTS, kernels, sample="axes")


def _run(obj: str, kernel: str, *args, grid=128, block=64, extra=(), ok=(0,)) -> dict:
    cmd = ["run", DIR / obj, "--kernel", kernel, "--grid", grid, "--block", block, "--json",
           "--max-instructions", LIMIT]
    for a in args:
        cmd += ["--arg", a]
    return json.loads(_amddbg(*cmd, *extra, ok=ok).stdout)


def test_corpus_has_the_cross_lane_shapes():
    """The polls really go through the cross-lane instructions (llvm-objdump, not our decoder)."""
    want = {"shfl_poll": "ds_bpermute_b32", "xor_reduce_poll": "ds_bpermute_b32", "dpp_reduce_poll": "_dpp",
            "swizzle_poll": "ds_swizzle_b32"}
    assert len(OBJECTS) == 24
    for obj in OBJECTS:
        text = subprocess.run(["llvm-objdump-22", "-d", str(DIR / obj)], capture_output=True, text=True,
                              check=True).stdout
        for kernel, mnemonic in want.items():
            body = text.split(f"{kernel}")[1].split("\n\n")[0] if kernel in text else ""
            if "O2" in obj:  # (at -O0 the helper is a function of its own, called from the loop)
                assert mnemonic in body, (obj, kernel)
            else:
                assert mnemonic in text, (obj, kernel)
        assert "v_readlane_b32" in text and "v_readfirstlane_b32" in text


@pytest.mark.parametrize("kernel,obj", _params(HANGS))
def test_cross_lane_poll_is_proven_to_hang(obj, kernel):
    doc = _run(obj, kernel, "buf:i32:4", "buf:i32:128")
    assert doc["status"] == "hang", doc["reason"]
    assert "loop forever" in doc["reason"] and "exit condition" in doc["reason"]  # the proof, not a repeat
    assert doc["wave_instructions"] < LIMIT // 2
    assert len(doc["waves"]) == 128 // _wave(obj)
    assert all(w["state"] in ("ready", "sleeping", "at waitcnt") for w in doc["waves"])


@pytest.mark.parametrize("obj", _params())
def test_timeout_through_a_shuffle_is_no_invented_hang(obj):
    small = _run(obj, "shfl_timeout", "buf:i32:4", "buf:i32:128", "i32:40")
    assert small["status"] == "completed", small["reason"]
    assert small["buffers"][1]["values"] == [40] * 64 + [0] * 64  # out[threadIdx.x]: both workgroups write 0..63
    big = _run(obj, "shfl_timeout", "buf:i32:4", "buf:i32:128", "i32:100000000", extra=["--max-instructions", 400_000])
    assert big["status"] == "limit", big["reason"]


@pytest.mark.parametrize("obj", _params())
def test_late_writer_seen_through_dpp_is_no_invented_hang(obj):
    wv = _wave(obj)
    doc = _run(obj, "dpp_late_writer", "buf:i32:4", "buf:i32:128", "i32:3000", grid=128)
    assert doc["status"] == "completed", doc["reason"]
    assert doc["buffers"][0]["values"][3] == 1
    assert doc["buffers"][1]["values"][:wv] == [sum(i ^ t for i in range(3000)) for t in range(wv)]


@pytest.mark.parametrize("kernel,obj", _params(("xor_reduce_poll", "dpp_reduce_poll")))
def test_cross_lane_poll_core_is_spin_forever(obj, kernel, tmp_path):
    core = tmp_path / "lane.gpu"
    _run(obj, kernel, "buf:i32:4", "buf:i32:128", extra=["--core", core])
    r = _amddbg("explain", core, "--json", ok=(3,))
    doc = json.loads(r.stdout)
    assert doc["verdict"] == "hang"
    spins = [f for f in doc["findings"] if f["kind"] == "spin_forever"]
    assert spins and all(f["cause"] == "no_writer" for f in spins), doc["findings"]
    line = next(i + 1 for i, s in enumerate(SRC) if "return __hip_atomic_load(go + (t & 3)" in s)
    lines = {loc["line"] for f in spins for loc in f["locations"] if loc["role"] == "polling load"}
    assert line in lines, lines
