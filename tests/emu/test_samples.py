"""Third-party samples (issue 22's acceptance): sixteen kernels taken from public HIP samples (ROCm/rocm-examples,
ROCm/HIP-Examples, ROCm/hip-tests, HeCBench's HIP ports; corefiles/samples/samples.hip cites each) run through
`amddbg run --script ... --json` as a user would run them, and each sample's own host check, ported to numpy
(corefiles/samples/twins.py), judges the outputs, with a twin where the sample's check is loose.

The corpus is built by clang-19 and clang-22 for gfx90a, gfx942 (wave64), gfx1100 and gfx1200 (wave32) at -O0 and
-O2: 16 objects. By default each sample runs once, on its own object (DEFAULT: every object once, so every
target, compiler and level); the other 240 runs are marked slow (tests/bounded.py, sample="axes": the defaults
already cover every sample, target, compiler and level, so CI runs none of them; AMDDBG_SLOW_LIMIT=0 runs all of
them, =N N of them, each sample on the targets its own object leaves out first). The full matrix in process:
corefiles/samples/runner.py.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests import bounded

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "corefiles" / "samples"


def _twins():
    spec = importlib.util.spec_from_file_location("amddbg_samples_twins", HERE / "twins.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


twins = _twins()
OBJECTS = sorted(HERE.glob("samples-llvm*.co"))
NP_TYPES = {"u8": np.uint8, "i32": np.int32, "u32": np.uint32, "u64": np.uint64, "f32": np.float32}


# The default run: each sample on one object, every object once (so every target, compiler and level); the samples
# that run longest at -O0 (n-body, softmax's 1,024-wave grid, binomial options, the NTT's 64-bit remainders: 0.5-0.9M
# wave-instructions there) take -O2 objects.
DEFAULT = {
    "reduction_v7": "llvm19-gfx1200-w32-O2", "block_prefix_sum": "llvm19-gfx1100-w32-O0",
    "bitonic_sort_kernel": "llvm19-gfx1200-w32-O0", "histogram256_block": "llvm19-gfx90a-w64-O0",
    "matrix_transpose_lds": "llvm22-gfx942-w64-O2", "matrix_transpose_shfl": "llvm19-gfx942-w64-O0",
    "matrix_multiplication": "llvm22-gfx1200-w32-O2", "stencil_1d": "llvm22-gfx1100-w32-O0",
    "convolution": "llvm22-gfx1200-w32-O0", "binomial_options": "llvm19-gfx90a-w64-O2",
    "bodyForce": "llvm22-gfx90a-w64-O2", "murmurhash3_kernel": "llvm22-gfx90a-w64-O0",
    "test_keystreams": "llvm19-gfx1100-w32-O2", "intt_3_64k_modcrt": "llvm22-gfx1100-w32-O2",
    "gpu_ballot": "llvm22-gfx942-w64-O0", "softMax": "llvm19-gfx942-w64-O2",
}


def _default(i: int) -> Path:
    return HERE / f"samples-{DEFAULT[twins.SAMPLES[i].kernel]}.co"


def _params():
    """Each sample on its DEFAULT object, and the slow sample of the rest of the matrix (tests/bounded.py)."""
    cases = bounded.matrix(OBJECTS, [s.kernel for s in twins.SAMPLES],
                           fast=lambda k, name: name == f"samples-{DEFAULT[k]}.co", sample="axes")
    return [pytest.param(c.obj, c.kernel, marks=[pytest.mark.slow] if c.slow else [],
                         id=f"{c.obj.stem[len('samples-'):]}-{c.kernel}") for c in cases]


def _wave(obj: Path) -> int:
    return int(re.search(r"-w(\d+)-", obj.name).group(1))


def run_sample(obj: Path, sample, tmp_path: Path) -> dict:
    """`amddbg run --script` of the sample's launches on `obj`; the parsed --json document."""
    script = dict(sample.script(_wave(obj)), code_object=str(obj))
    path = tmp_path / f"{sample.kernel}.json"
    path.write_text(json.dumps(script))
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", "--script", str(path), "--json",
                        "--max-instructions", str(sample.max_instructions)],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def outputs(doc: dict) -> dict:
    return {b["name"]: np.array(b["values"], dtype=NP_TYPES[b["type"]]) for b in doc["buffers"]}


def test_the_corpus_is_built_and_cited():
    assert len(OBJECTS) == 16
    assert {_default(i) for i in range(len(twins.SAMPLES))} == set(OBJECTS)
    src = (HERE / "samples.hip").read_text()
    for s in twins.SAMPLES:
        # the comment lines above each kernel (and its helpers), back to the previous kernel, name its repository,
        # path and commit
        m = re.search(r"__global__[^;{]*?\b" + re.escape(s.kernel) + r"\(", src)
        assert m, s.kernel
        lines = []
        for line in reversed(src[:m.start()].splitlines()):
            if "__global__" in line and not line.startswith("#define"):
                break
            lines.append(line)
        comment = "\n".join(line for line in lines if line.startswith("//"))
        repo, path = s.source.split(" ", 1)
        assert repo in comment and path in comment and re.search(r"commit [0-9a-f]{40}", comment), s.kernel
    assert len({s.kernel for s in twins.SAMPLES}) == len(twins.SAMPLES) == 16


@pytest.mark.parametrize("obj,kernel", _params())
def test_sample(obj, kernel, tmp_path):
    sample = twins.BY_KERNEL[kernel]
    doc = run_sample(obj, sample, tmp_path)
    assert doc["status"] == "completed", [(x["index"], x["status"], x["reason"]) for x in doc["launches"]]
    assert len(doc["launches"]) == doc["planned_launches"]
    # none of these samples reaches past its LDS allocation
    assert [w for x in doc["launches"] for w in x["warnings"]] == []
    out = outputs(doc)
    wave = _wave(obj)
    assert sample.check(out, wave) == []
    # the check can fail: one changed value in any output buffer is caught
    for name in sample.outputs:
        bad = {k: v.copy() for k, v in out.items()}
        a = bad[name]
        i = len(a) // 3
        a[i] = a[i] + 1 if a.dtype.kind != "f" else a[i] + np.float32(0.5) * (abs(a[i]) + np.float32(1))
        assert sample.check(bad, wave), (name, i)


# -- found by this corpus: a false hang --------------------------------------------------------------------------
@pytest.mark.parametrize("grid", [pytest.param(4096, marks=pytest.mark.slow), 16384,
                                  pytest.param(32768, marks=pytest.mark.slow), 65536])
def test_waves_blocked_at_a_waitcnt_are_not_a_spin(grid, tmp_path):
    """softMax launched as the sample launches it (a 256-block grid whose first block alone has rows to do) was
    called a hang on clang-19 gfx90a -O2 at 16,384 and 65,536 work-items: the quiet-state check saw the four live
    waves READY on `s_waitcnt vmcnt(1)` at one sample and blocked on it at the next, with the same registers and
    memory, and took the blocked wait (counted in the instruction count) for a re-run. A blocked wait retires
    nothing; the run must complete and give the sample's rows, whatever the grid."""
    obj = HERE / "samples-llvm19-gfx90a-w64-O2.co"
    sample = twins.BY_KERNEL["softMax"]
    script = sample.script(64)
    script["launches"][0]["grid"] = grid
    path = tmp_path / "softmax.json"
    path.write_text(json.dumps(dict(script, code_object=str(obj))))
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", "--script", str(path), "--json"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["status"] == "completed", doc["launches"][0]["reason"]
    assert sample.check(outputs(doc), 64) == []
