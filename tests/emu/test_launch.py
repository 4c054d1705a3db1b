"""Launching what real kernels need (issue 22, section 3), through `amddbg run` as a user would: dynamic LDS
(`--dynamic-lds`), structs by value (`struct:`/`bytes:`), `__device__`/`__constant__` globals (`--global`, reported
in "globals"), and launch scripts whose launches share buffers (`--script`, JSON and YAML; `run_script`).

The kernels are corefiles/launch/launch.hip, built by clang-19 and clang-22 for gfx90a, gfx942, gfx1100 and gfx1200
(wave32 and wave64) at -O0 and -O2 (corefiles/launch/build.py); every expected value is computed here with numpy.
Four objects (both compilers, every target, both levels) run by default; the others are marked slow, and CI runs
their sample (tests/bounded.py: the two targets the four leave out, rotating over compilers and levels;
AMDDBG_SLOW_LIMIT=0 runs all of them)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests import bounded

HERE = Path(__file__).resolve().parents[2] / "corefiles" / "launch"
OBJECTS = sorted(HERE.glob("launch-llvm*.co"))
DEFAULT = {"launch-llvm22-gfx90a-w64-O2.co", "launch-llvm19-gfx942-w64-O0.co", "launch-llvm22-gfx1100-w32-O0.co",
           "launch-llvm19-gfx1200-w32-O2.co"}


def _objects():
    """DEFAULT, and the slow sample of the other objects (tests/bounded.py)."""
    return bounded.params(bounded.matrix(OBJECTS, fast=DEFAULT), kernel=False,
                          ids=lambda c: c.obj.stem[len("launch-"):])


OBJ = HERE / "launch-llvm22-gfx1100-w32-O2.co"  # for the error paths


def amddbg(*args, env=None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *map(str, args)], capture_output=True, text=True,
                          timeout=600, env=env, cwd=cwd)


def run_json(obj, kernel, grid, block, *args) -> dict:
    r = amddbg("run", obj, "--kernel", kernel, "--grid", grid, "--block", block, *args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def one_line_error(r: subprocess.CompletedProcess, *needles: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("amddbg: error: "), r.stderr
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


def test_the_corpus_is_built_for_every_target():
    assert len(OBJECTS) == 24 and DEFAULT <= {p.name for p in OBJECTS}
    assert (HERE / "launch.hip").exists() and (HERE / "build.py").exists()


# -- dynamic LDS -------------------------------------------------------------------------------------------------
def _tree_sums(x: np.ndarray, block: int) -> np.ndarray:
    """reduce_sum's tree order in f32: s = block/2 .. 1, a[t] += a[t + s]."""
    out = []
    for b in range(0, len(x), block):
        a = x[b:b + block].astype(np.float32).copy()
        s = block // 2
        while s:
            a[:s] = a[:s] + a[s:2 * s]
            s //= 2
        out.append(a[0])
    return np.array(out, dtype=np.float32)


@pytest.mark.parametrize("path", _objects())
def test_dynamic_lds_reduction(path):
    block, n = 64, 320
    x = (np.arange(n, dtype=np.float32) * np.float32(0.37)) % np.float32(5.5) - np.float32(1.25)
    values = ",".join(repr(float(v)) for v in x)
    args = [f"--arg=buf:f32:{n}:values={values}", "--arg=buf:f32:5", f"--arg=u32:{n}"]
    d = run_json(path, "reduce_sum", n, block, *args, "--dynamic-lds", block * 4)
    assert d["status"] == "completed" and d["warnings"] == []
    assert d["buffers"][1]["values"] == _tree_sums(x, block).tolist()
    # without the dynamic LDS the block's array lies past the allocation: reads give 0, writes are dropped, and
    # the run says so
    d = run_json(path, "reduce_sum", n, block, *args)
    assert d["status"] == "completed" and d["warnings"]
    assert d["buffers"][1]["values"] != _tree_sums(x, block).tolist()


@pytest.mark.parametrize("path", _objects())
def test_static_and_dynamic_lds_together(path):
    block = 64
    d = run_json(path, "static_and_dynamic", 2 * block, block, "--arg=buf:i32:128", "--dynamic-lds", block * 4)
    assert d["status"] == "completed" and d["warnings"] == []
    t = np.arange(block)
    want = (block - 1 - t) * 3 + 1000 * ((t & 3) + 1)
    assert d["buffers"][0]["values"] == np.concatenate([want, want]).tolist()


def test_dynamic_lds_beyond_the_target_is_a_usage_error():
    r = amddbg("run", OBJ, "--kernel", "reduce_sum", "--grid", 64, "--block", 64, "--arg", "buf:f32:64",
               "--arg", "buf:f32:1", "--arg", "u32:64", "--dynamic-lds", 70000)
    one_line_error(r, "dynamic LDS 70000", "65536")
    r = amddbg("run", OBJ, "--kernel", "reduce_sum", "--grid", 64, "--block", 64, "--arg", "buf:f32:64",
               "--arg", "buf:f32:1", "--arg", "u32:64", "--dynamic-lds", "-4")
    assert r.returncode == 2 and "Traceback" not in r.stderr


# -- structs by value --------------------------------------------------------------------------------------------
def _affine(x, scale, n, bias, negate, offset):
    v = x[:n].astype(np.float32) * np.float32(scale) + np.float32(bias)
    if negate & 1:
        v = -v
    out = np.zeros(len(x), dtype=np.float32)
    out[:n] = (v.astype(np.float64) + offset).astype(np.float32)
    return out


@pytest.mark.parametrize("path", _objects())
def test_params_struct_by_value(path):
    n = 100
    x = np.arange(n, dtype=np.float32) * np.float32(0.5) - np.float32(7)
    vals = ",".join(repr(float(v)) for v in x)
    want = _affine(x, 1.5, 77, -0.25, 1, 0.125).tolist()
    d = run_json(path, "affine_params", n, 64, "--arg=struct:f32=1.5,i32=77,f32=-0.25,u8=1,f64=0.125",
                 f"--arg=buf:f32:{n}:values={vals}", f"--arg=buf:f32:{n}")
    assert d["status"] == "completed" and d["buffers"][1]["values"] == want
    raw = struct.pack("<fifB3xd", 1.5, 77, -0.25, 1, 0.125).hex()
    d = run_json(path, "affine_params", n, 64, f"--arg=bytes:{raw}", f"--arg=buf:f32:{n}:values={vals}",
                 f"--arg=buf:f32:{n}")
    assert d["buffers"][1]["values"] == want
    # a 12-byte struct between a pointer and a scalar (its offset and size from the metadata)
    m = 40
    y = np.arange(3 * m, dtype=np.float32) + np.float32(1)
    d = run_json(path, "vec3_scale", m, 32, f"--arg=buf:f32:{3 * m}:values={','.join(map(repr, y.tolist()))}",
                 f"--arg=buf:f32:{3 * m}", "--arg=struct:f32=2,f32=-1,f32=0.5", f"--arg=u32:{m}")
    assert d["buffers"][1]["values"] == (y * np.tile(np.array([2, -1, 0.5], dtype=np.float32), m)).tolist()


def test_struct_mismatches_are_one_line_errors():
    base = ["run", OBJ, "--kernel", "affine_params", "--grid", 64, "--block", 64]
    bufs = ["--arg", "buf:f32:64", "--arg", "buf:f32:64"]
    one_line_error(amddbg(*base, "--arg", "struct:f32=1,i32=3", *bufs), "24-byte", "f32@0 i32@4, 8 bytes")
    one_line_error(amddbg(*base, "--arg", "bytes:0011", *bufs), "24 bytes", "gives 2")
    one_line_error(amddbg(*base, "--arg", "bytes:zz", *bufs), "hex digits")
    one_line_error(amddbg(*base, "--arg", "struct:f32=1,q32=3", *bufs), "struct:TYPE=VALUE")
    one_line_error(amddbg(*base, "--arg", "struct:u8=300", *bufs), "does not fit in u8")
    one_line_error(amddbg(*base, "--arg", "f32:1", *bufs), "24 bytes", "struct:")
    one_line_error(amddbg(*base, "--arg", "struct:ptr=@data,i32=1,f64=0", *bufs), "@data", "launch script")
    # quad_mix's 16-byte Quad sits at kernarg offset 4 (four u32s, 4-aligned): two u64s have its size, not its
    # alignment
    quad = ["run", OBJ, "--kernel", "quad_mix", "--grid", 8, "--block", 8, "--arg", "u32:3"]
    one_line_error(amddbg(*quad, "--arg", "struct:u64=1,u64=2", "--arg", "buf:u32:8"), "at kernarg offset 4",
                   "aligned to 8")
    r = amddbg(*quad, "--arg", "struct:u32=1,u32=2,u32=3,u32=4", "--arg", "buf:u32:8", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["buffers"][0]["values"] == [3 * i + 1 + (2 << 4) + (3 << 8) + (4 << 12)
                                                             for i in range(8)]


# -- __device__ and __constant__ globals -------------------------------------------------------------------------
@pytest.mark.parametrize("path", _objects())
def test_constant_coefficient_table(path, tmp_path):
    n = 150
    x = ((np.arange(n) * 7) % 23).astype(np.float32) - np.float32(9)
    taps = np.array([0.5, -0.25, 0.125, 1.5, -2.0, 0.75, 0.0625, 3.0], dtype=np.float32)
    want = np.zeros(n, dtype=np.float32)
    for i in range(n):
        acc = np.float32(0)
        for k in range(8):
            acc = np.float32(acc + np.float32(taps[k] * (x[i - k] if i >= k else np.float32(0))))
        want[i] = acc
    xs = ",".join(map(repr, x.tolist()))
    for name in ("dsp::fir_taps", "_ZN3dsp8fir_tapsE"):  # demangled as the source spells it, or mangled
        d = run_json(path, "fir_filter", n, 64, f"--arg=buf:f32:{n}:values={xs}", f"--arg=buf:f32:{n}",
                     f"--arg=u32:{n}", "--global", f"{name}=f32:8:values={','.join(map(repr, taps.tolist()))}")
        assert d["status"] == "completed"
        assert d["buffers"][1]["values"] == want.tolist()
        assert d["globals"] == [{"name": name, "symbol": "_ZN3dsp8fir_tapsE", "type": "f32",
                                 "address": d["globals"][0]["address"], "values": taps.tolist()}]
    # a 1 KiB integer lookup table from a file
    rng = np.random.default_rng(7)
    table = rng.integers(-2**31, 2**31, 256, dtype=np.int64).astype(np.int32)
    (tmp_path / "sbox.bin").write_bytes(table.tobytes())
    data = rng.integers(0, 2**32, 96, dtype=np.uint64).astype(np.uint32)
    d = run_json(path, "substitute", 96, 32, f"--arg=buf:u32:96:values={','.join(map(str, data.tolist()))}",
                 "--arg=buf:i32:96", "--arg=i32:0x5a5a", "--arg=u32:96",
                 "--global", f"sbox=i32:256:file={tmp_path}/sbox.bin")
    assert d["buffers"][1]["values"] == (table[data & 255] ^ np.int32(0x5A5A)).tolist()


@pytest.mark.parametrize("path", _objects())
def test_device_globals_initial_and_final_values(path):
    n = 200
    data = (np.arange(n) * 13 + 5) % 97
    d = run_json(path, "histogram16", n, 64, f"--arg=buf:u32:{n}:values={','.join(map(str, data.tolist()))}",
                 f"--arg=u32:{n}", "--global", "histogram=i32:16:zero", "--global", "hit_count=u32:1:fill=1000")
    assert d["status"] == "completed"
    got = {g["name"]: g["values"] for g in d["globals"]}
    assert got["histogram"] == np.bincount(data & 15, minlength=16).tolist()
    assert got["hit_count"] == [1000 + n]
    # without INIT a global keeps the code object's initializer (scale_factor = 2.0f); with one it is replaced
    d = run_json(path, "scale_by_global", 64, 64, "--arg=buf:f32:64:iota", "--arg=u32:64", "--global",
                 "scale_factor=f32:1")
    assert d["buffers"][0]["values"] == (np.arange(64) * 2.0).tolist()
    assert d["globals"][0]["values"] == [2.0]
    d = run_json(path, "scale_by_global", 64, 64, "--arg=buf:f32:64:iota", "--arg=u32:64", "--global",
                 "scale_factor=f32:1:fill=-0.5")
    assert d["buffers"][0]["values"] == (np.arange(64) * -0.5).tolist()


def test_global_errors_name_the_symbol():
    base = ["run", OBJ, "--kernel", "scale_by_global", "--grid", 64, "--block", 64, "--arg", "buf:f32:64",
            "--arg", "u32:64"]
    one_line_error(amddbg(*base, "--global", "dsp::fir_taps=f64:8"), "_ZN3dsp8fir_tapsE is 32 bytes",
                   "4 f64 would fill it")
    one_line_error(amddbg(*base, "--global", "nosuch=f32:1"), "no such global", "dsp::fir_taps", "hit_count")
    one_line_error(amddbg(*base, "--global", "reduce_sum=u32:1"), "not a variable")
    one_line_error(amddbg(*base, "--global", "hit_count"), "NAME=TYPE:COUNT")
    one_line_error(amddbg(*base, "--global", "hit_count=u32:1:bogus"), "INIT")


def test_core_keeps_the_globals_values():
    """A core written mid-run holds the globals as the run left them (the loaded segments come from the machine's
    memory, not the file): the debugger reads the value --global set."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        core = Path(tmp) / "h.core"
        d = run_json(OBJ, "histogram16", 256, 64, "--arg=buf:u32:256:iota", "--arg=u32:256", "--global",
                     "hit_count=u32:1:fill=123456", "--max-instructions", 40, "--core", core)
        assert d["status"] == "limit" and d["globals"][0]["values"] == [123456]
        addr = d["globals"][0]["address"]
        r = amddbg("repl", core, "-batch", "-ex", f"x/1dw {addr}")
        assert r.returncode == 0, r.stderr
        assert r.stdout.split()[-1] == "123456"


# -- launch scripts ------------------------------------------------------------------------------------------------
def _scan_script(n: int, block: int) -> dict:
    nb = (n + block - 1) // block
    return {"buffers": {"in": {"type": "i32", "values": [int(v) for v in (np.arange(n) * 3 % 11 - 4)]},
                        "out": f"i32:{n}", "sums": f"i32:{nb}", "scanned": f"i32:{nb}", "total": "i32:1"},
            "launches": [
                {"kernel": "scan_blocks", "grid": n, "block": block, "dynamic_lds": 2 * block * 4,
                 "args": ["@in", "@out", "@sums", f"u32:{n}"]},
                {"kernel": "scan_blocks", "grid": nb, "block": nb, "dynamic_lds": 2 * nb * 4,
                 "args": ["@sums", "@scanned", "@total", f"u32:{nb}"]},
                {"kernel": "add_block_offsets", "grid": [n], "block": "64", "args": ["@out", "@scanned", f"u32:{n}"]}]}


@pytest.mark.parametrize("path", _objects())
def test_two_pass_scan_script(path, tmp_path):
    n, block = 700, 64
    (tmp_path / "scan.json").write_text(json.dumps(_scan_script(n, block)))
    r = amddbg("run", path, "--script", tmp_path / "scan.json", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    x = np.arange(n) * 3 % 11 - 4
    assert [x["status"] for x in d["launches"]] == ["completed"] * 3 and d["stopped_at"] is None
    bufs = {b["name"]: b["values"] for b in d["buffers"]}
    assert bufs["out"] == np.cumsum(x).tolist()
    assert bufs["total"] == [int(x.sum())]
    assert d["launches"][0]["dynamic_lds"] == 512 and d["launches"][2]["block"] == [64, 1, 1]


def test_yaml_script_constant_table_and_globals_across_launches(tmp_path):
    """YAML: the code object named in the script, a __constant__ table set once and read by a launch, and a
    __device__ accumulator that two launches add to."""
    pytest.importorskip("yaml")
    taps = [1.0, 0.5, 0.25, 0.0, 0.0, 0.0, 0.0, -1.0]
    (tmp_path / "steps.yaml").write_text(f"""
code_object: {OBJ}
buffers:
  x: f32:32:iota
  y: f32:32
  u: {{type: u32, values: [5, 7, 11, 13]}}
globals:
  dsp::fir_taps: {{type: f32, values: {taps}}}
  running_total: u64:1:fill=100
launches:
  - {{kernel: fir_filter, grid: 32, block: 32, args: ["@x", "@y", "u32:32"]}}
  - {{kernel: accumulate, grid: 4, block: 4, args: ["@u", "u32:4"]}}
  - {{kernel: accumulate, grid: 4, block: 4, args: ["@u", "u32:4"]}}
""")
    r = amddbg("run", "--script", tmp_path / "steps.yaml", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert [x["status"] for x in d["launches"]] == ["completed"] * 3
    x = np.arange(32, dtype=np.float32)
    want = [float(sum(np.float32(taps[k]) * (x[i - k] if i >= k else 0) for k in range(8))) for i in range(32)]
    assert {b["name"]: b["values"] for b in d["buffers"]}["y"] == want
    g = {g["name"]: g["values"] for g in d["globals"]}
    assert g["running_total"] == [100 + 2 * 36] and g["dsp::fir_taps"] == taps


def test_script_struct_with_a_pointer_and_python_api(tmp_path):
    from amddbg.emu.launch import run_script

    doc = {"buffers": {"data": "i32:50:fill=-1"},
           "launches": [{"kernel": "span_fill", "grid": 64, "block": 64,
                         "args": ["i16:3", "struct:ptr=@data,u32=40,i32=-100"]}]}
    res = run_script(OBJ, doc)
    assert res.status == "completed" and res.stopped_at is None
    want = np.full(50, -1)
    want[:40] = -100 + 3 * np.arange(40)
    assert res.buffer("data").tolist() == want.tolist()
    (tmp_path / "span.json").write_text(json.dumps(doc))
    r = amddbg("run", OBJ, "--script", tmp_path / "span.json", "--json")
    assert json.loads(r.stdout)["buffers"][0]["values"] == want.tolist()


def test_script_stops_at_the_launch_that_faults_and_writes_its_core(tmp_path):
    doc = {"buffers": {"data": "i32:16", "x": "f32:64:iota"},
           "globals": {"hit_count": "u32:1:fill=9"},
           "launches": [{"kernel": "scale_by_global", "grid": 64, "block": 64, "args": ["@x", "u32:64"]},
                        {"kernel": "span_fill", "grid": 2048, "block": 256,  # 10,000 elements into 16: past the page
                         "args": ["i16:1", "struct:ptr=@data,u32=10000,i32=0"]},
                        {"kernel": "scale_by_global", "grid": 64, "block": 64, "args": ["@x", "u32:64"]}]}
    (tmp_path / "s.json").write_text(json.dumps(doc))
    core = tmp_path / "s.core"
    r = amddbg("run", OBJ, "--script", tmp_path / "s.json", "--core", core)
    assert r.returncode == 0, r.stderr
    assert "launch 1 span_fill" in r.stdout and "fault" in r.stdout
    assert "stopped at launch 1: 1 later launch(es) not run" in r.stdout
    r = amddbg("run", OBJ, "--script", tmp_path / "s.json", "--json")
    d = json.loads(r.stdout)
    assert [x["status"] for x in d["launches"]] == ["completed", "fault"] and d["stopped_at"] == 1
    assert {b["name"]: b["values"] for b in d["buffers"]}["x"] == (np.arange(64) * 2.0).tolist()  # launch 0 only
    assert d["globals"][0]["values"] == [9] and d["waves"]
    r = amddbg("explain", core, "--json")
    assert r.returncode == 4, (r.returncode, r.stderr)  # explain's code for a fault


def test_script_errors_are_one_line(tmp_path):
    def err(doc_text: str, *needles, name="s.json"):
        p = tmp_path / name
        p.write_text(doc_text)
        return one_line_error(amddbg("run", OBJ, "--script", p), *needles)

    ok = {"kernel": "scale_by_global", "grid": 64, "block": 64, "args": ["@x", "u32:64"]}
    err('{"launches": [', "not valid JSON at line 1")
    err(json.dumps({"launches": [ok]}), "launches[0].args[0]", "@x")
    err(json.dumps({"buffers": {"x": "f32:64"}, "launches": [{**ok, "gird": 4}]}), "launches[0]", "gird")
    err(json.dumps({"buffers": {"x": "f32:64"}, "launches": [{**ok, "grid": 0}]}), "launches[0].grid")
    err(json.dumps({"buffers": {"x": "f32:64"}, "launch": [ok]}), "unknown key", "launch")
    err(json.dumps({"buffers": {"x": "f32:64"}, "launches": [{**ok, "kernel": "nope"}]}), "launches[0] (nope)",
        "no kernel named")
    err(json.dumps({"buffers": {"x": {"type": "u32", "values": [1.5]}}, "launches": [ok]}), "buffers.x")
    err(json.dumps({"buffers": {"x": "f32:64"}, "globals": {"hit_count": "u64:1"}, "launches": [ok]}),
        "hit_count is 4 bytes")
    err("[" * 100_000 + "]" * 100_000, "nested too deeply")
    (tmp_path / "u16.json").write_bytes("{}".encode("utf-16"))
    one_line_error(amddbg("run", OBJ, "--script", tmp_path / "u16.json"), "not UTF-8 text at offset 0x0")
    one_line_error(amddbg("run", OBJ, "--script", tmp_path / "missing.json"), "missing.json")
    one_line_error(amddbg("run", OBJ, "--script", tmp_path / "s.json", "--kernel", "k"), "does not take --kernel")
    one_line_error(amddbg("run", OBJ, "--grid", 4, "--block", 4), "--kernel")


def test_yaml_without_pyyaml_is_a_clear_error(tmp_path):
    (tmp_path / "s.yaml").write_text("launches: []\n")
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "yaml.py").write_text("raise ImportError('no yaml here')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(shadow), os.environ.get("PYTHONPATH", "")]))
    one_line_error(amddbg("run", OBJ, "--script", tmp_path / "s.yaml", env=env), "needs PyYAML", "JSON")


def test_divergence_and_explore_take_the_launch_options():
    r = amddbg("divergence", OBJ, "--kernel", "reduce_sum", "--grid", 128, "--block", 64, "--arg", "buf:f32:128:iota",
               "--arg", "buf:f32:2", "--arg", "u32:128", "--dynamic-lds", 256, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["status"] == "completed"
    r = amddbg("run", OBJ, "--kernel", "histogram16", "--grid", 64, "--block", 64, "--arg", "buf:u32:64:iota",
               "--arg", "u32:64", "--global", "hit_count=u32:1:fill=5", "--explore", 2, "--json")
    assert r.returncode == 0, r.stderr
    assert [o["status"] for o in json.loads(r.stdout)["outcomes"]] == ["completed"]


def test_the_documented_example_script_runs(tmp_path):
    """corefiles/launch/scan.json (docs/emulator.md's example), run from another directory: its code object is
    found relative to the script."""
    r = amddbg("run", "--script", HERE / "scan.json", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    bufs = {b["name"]: b["values"] for b in d["buffers"]}
    assert d["status"] == "completed" and bufs["out"] == np.cumsum(np.arange(1000)).tolist()
    assert bufs["total"] == [499500]


def test_repl_divergence_takes_the_launch_options():
    r = amddbg("repl", OBJ, "-batch", "-ex", "divergence --kernel reduce_sum --grid 128 --block 64 --arg "
               "buf:f32:128:iota --arg buf:f32:2 --arg u32:128 --dynamic-lds 256", "-ex",
               "divergence --kernel scale_by_global --grid 64 --block 64 --arg buf:f32:64 --arg u32:64 "
               "--global scale_factor=f64:1")
    assert r.stdout.startswith("completed: every wave ended"), (r.stdout, r.stderr)
    assert "scale_factor is 4 bytes; f64:1 is 8 bytes" in r.stderr and "Traceback" not in r.stderr
