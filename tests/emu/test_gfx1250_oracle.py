"""gfx1250 (GFX12.5, wave32) through the user's door: oracle kernels (corefiles/oracle/oracle-llvm22-gfx1250-*.co,
part of the oracle matrix that tests/emu/test_oracle.py runs kernel by kernel) with `amddbg run --json`, and
corefiles/gfx1250/scratch.hip's generic stack pointers.

Why: before issue 22 s4 every oracle kernel stopped at once on gfx1250 (src_flat_scratch_base_lo at -O0; VOPD3,
the 64-bit integer VALU and s_get_pc_i64 at -O2) or, worse, completed with wrong values (scale_offset addressing,
64-bit literals cut to 32 bits).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
GFX1250 = ROOT / "corefiles" / "gfx1250"
ORACLE = ROOT / "corefiles" / "oracle"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"amddbg_oracle_{name}", ROOT / "corefiles" / "oracle" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


runner = _load("runner")
CASES = {c.kernel: c for c in runner.twins.all_cases()}


@pytest.mark.parametrize("opt,kernel", [("O0", "int64_ops"), ("O2", "fmath64"), ("O2", "calls")])
def test_through_amddbg_run(opt, kernel):
    """`amddbg run --json` with the case's inputs as `values=` buffers: the outputs equal the host twin's."""
    case = CASES[kernel]
    specs, initial, _ = runner.prepare(case)
    args, k = [], 0
    for s in specs:
        if s.startswith("buf:"):
            arr = initial[k]
            k += 1
            ui = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize]
            t = {1: "u8", 2: "u16", 4: "u32", 8: "u64"}[arr.dtype.itemsize]
            vals = ",".join(str(int(x)) for x in np.ascontiguousarray(arr).view(ui))
            s = f"buf:{t}:{arr.size}:values={vals}"
        args += ["--arg", s]
    obj = ORACLE / f"oracle-llvm22-gfx1250-w32-{opt}.co"
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(obj), "--kernel", kernel,
                        "--grid", ",".join(map(str, case.grid)), "--block", ",".join(map(str, case.block)), *args,
                        "--max-instructions", str(case.max_instructions), "--json"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["status"] == "completed", doc["reason"]
    bufs = doc["buffers"]
    outs = [i for i, a in enumerate(a for a in case.args if not isinstance(a, str)) if isinstance(a, runner.twins.Out)]
    for want, i in zip(case.expected(32), outs, strict=True):
        arr = initial[i]
        ui = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize]
        got = np.array(bufs[i]["values"], dtype=np.uint64).astype(ui)
        exp = np.asarray(want, dtype=arr.dtype).view(ui)
        bad = np.nonzero(got != exp)[0]
        assert not bad.size, (kernel, i, bad[:4].tolist(), got[bad[:4]].tolist(), exp[bad[:4]].tolist())


@pytest.mark.parametrize("opt", ["O0", "O2"])
def test_flat_scratch_own_and_other_lane(opt):
    """corefiles/gfx1250/scratch.hip through `amddbg run --json`: generic pointers to a lane's own stack, to lane
    0's (every lane reads lane 0's value; every lane adds to a counter there atomically), to the next lane's (a
    store there, read back by its owner) and to the other wave's (pointers swapped through LDS): GFX12.5 scratch is
    globally accessible, and each access reaches the owner's dword-swizzled slot (loads, stores and atomics)."""
    obj = GFX1250 / f"scratch-llvm22-gfx1250-w32-{opt}.co"

    def run(kernel: str, n: int = 32, out: int = 32) -> list[int]:
        r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(obj), "--kernel", kernel, "--grid", str(n),
                            "--block", str(n), "--arg", f"buf:i32:{out}", "--json"], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        assert doc["status"] == "completed", doc["reason"]
        return doc["buffers"][0]["values"]

    assert run("own_slot") == [100 + ln for ln in range(32)]
    assert run("lane0_slot") == [100] * 32
    assert run("next_lane_store") == [200 + (ln + 31) % 32 for ln in range(32)]
    assert run("lane0_atomic") == [1528] + list(range(1, 32))  # 32 atomic adds into lane 0's stack slot
    assert run("other_wave_slot", 64, 128) == [1000 + (t ^ 32) for t in range(64)] + [2000 + (t ^ 32)
                                                                                      for t in range(64)]
