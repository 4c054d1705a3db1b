"""Issue 22's kernels through the user's door (`amddbg run ... --json`), on clang-built code objects
(corefiles/issue22: clang-19 and clang-22, gfx90a, gfx942, gfx1030, gfx1100, gfx1200, -O0 and -O2).

- relaxed_spin: a relaxed agent-scope spin between two workgroups completes everywhere (GFX11 `glc` reads L2: it
  hung on gfx1100 when the emulator let it read the GL1);
- lds_stencil: an LDS tile with a halo and __syncthreads between phases gives the host's sums;
- lds_read_past / lds_write_past: LDS is allocated in granules, an access past the allocation reads 0 or is
  dropped (no fault), and every access past the requested size is reported in "warnings".

Five objects (every target, both compilers, -O0 and -O2) run by default; the other fifteen are marked slow. Their CI
sample (tests/bounded.py: one per target the defaults leave out) is empty, since the five cover every target;
AMDDBG_SLOW_LIMIT=0 runs all of them.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import bounded

HERE = Path(__file__).resolve().parents[2] / "corefiles" / "issue22"
OBJECTS = sorted(p.name for p in HERE.glob("issue22-*.co"))
DEFAULT = {"issue22-llvm22-gfx90a-w64-O2.co", "issue22-llvm19-gfx942-w64-O0.co", "issue22-llvm22-gfx1030-w32-O2.co",
           "issue22-llvm22-gfx1100-w32-O2.co", "issue22-llvm19-gfx1200-w32-O0.co"}
PARAMS = bounded.params(bounded.matrix(OBJECTS, fast=DEFAULT), kernel=False, ids=lambda c: c.obj)
O0 = [n for n in OBJECTS if n.endswith("-O0.co")]


def run(obj: str, kernel: str, grid: int, block: int, *args: str) -> dict:
    cmd = [sys.executable, "-m", "amddbg", "run", str(HERE / obj), "--kernel", kernel, "--grid", str(grid),
           "--block", str(block), "--json", "--max-instructions", "400000"]
    for a in args:
        cmd += ["--arg", a]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_corpus_is_complete():
    assert len(OBJECTS) == 20, OBJECTS


@pytest.mark.parametrize("obj", PARAMS)
def test_relaxed_agent_scope_spin_between_workgroups_completes(obj):
    d = run(obj, "relaxed_spin", 128, 64, "buf:u32:1", "buf:u32:2")
    assert d["status"] == "completed", d["reason"]
    assert d["buffers"][1]["values"] == [2, 1]  # the reader polled before the writer published, then saw it


def stencil_expected(n: int, tile: int = 256, r: int = 3) -> list[int]:
    s = [sum(j for j in range(i - r, i + r + 1) if 0 <= j < n) for i in range(n)]
    return [s[i] + (s[i + 1] if i % tile < tile - 1 else 0) for i in range(n)]


@pytest.mark.parametrize("obj", PARAMS)
def test_lds_stencil_with_halo(obj):
    """24 waves on wave32 targets (3 workgroups of 256), the shape the issue's gfx1200 -O0 sample had."""
    d = run(obj, "lds_stencil", 768, 256, "buf:i32:768:iota", "buf:i32:768", "u32:768")
    assert d["status"] == "completed", d["reason"]
    assert d["buffers"][1]["values"] == stencil_expected(768)
    assert d["warnings"] == []


@pytest.mark.parametrize("obj", O0)
def test_lds_read_past_the_array_is_reported_not_fatal(obj):
    """At -O0 every item loads buf[t + 1]; the last one is one element past the 256-byte array, inside the
    512-byte granule: the hardware reads the padding, the value is not used, the run completes and says so."""
    d = run(obj, "lds_read_past", 64, 64, "buf:u32:64:iota", "buf:u32:64")
    assert d["status"] == "completed", d["reason"]
    assert d["buffers"][1]["values"] == [1] * 63 + [0]
    (w,) = d["warnings"]
    assert w["kind"] == "lds_read_out_of_range"
    assert w["requested"] == 256 and w["allocated"] == 512
    lanes = 64 if "-w64-" in obj else 32
    assert w["lanes"] == [lanes - 1] and w["wave_in_group"] == 64 // lanes - 1
    assert w["addresses"] == ["0x100"]
    assert w["source"]["line"] == 69 and w["source"]["file"].endswith("issue22.hip")
    assert "padding" in w["effect"]


@pytest.mark.parametrize("obj", PARAMS)
def test_lds_write_past_the_allocation_is_dropped_and_reported(obj):
    """buf[t * 8 + 1] = in[t] with a 512-byte array (exactly one granule): items 16..63 write past the allocation;
    those writes are dropped, the others land; each out-of-range lane is reported with its address."""
    d = run(obj, "lds_write_past", 64, 64, "buf:u32:64:iota", "buf:u32:64", "u32:8")
    assert d["status"] == "completed", d["reason"]
    want = [(t - 1) // 8 if t % 8 == 1 and (t - 1) // 8 < 16 else 0 for t in range(64)]
    assert d["buffers"][1]["values"] == want
    past = sorted((w["wave_in_group"], lane) for w in d["warnings"] for lane in w["lanes"])
    lanes = 64 if "-w64-" in obj else 32
    assert past == [(t // lanes, t % lanes) for t in range(16, 64)]
    for w in d["warnings"]:
        assert w["kind"] == "lds_write_out_of_range" and "dropped" in w["effect"] and w["allocated"] == 512
        assert w["source"]["line"] == 79
    # stride 1 stays inside the array: nothing to report
    d = run(obj, "lds_write_past", 64, 64, "buf:u32:64:iota", "buf:u32:64", "u32:1")
    assert d["status"] == "completed" and d["warnings"] == []


def test_text_output_names_the_out_of_range_access():
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(HERE / "issue22-llvm22-gfx90a-w64-O2.co"),
                        "--kernel", "lds_write_past", "--grid", "64", "--block", "64", "--arg", "buf:u32:64:iota",
                        "--arg", "buf:u32:64", "--arg", "u32:8"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "warning: LDS write past the workgroup's 512 bytes at issue22.hip:79" in r.stdout
    assert "lanes 16-63" in r.stdout and "dropped" in r.stdout


@pytest.mark.parametrize("obj", [n for n in PARAMS if "gfx1200" in n.values[0] or n.values[0] in DEFAULT])
def test_lds_stencil_through_calls(obj):
    """The stencil as HIP's headers give it at -O0: ids, block size (from the dispatch packet) and the barrier in
    functions that are called, f32 sums."""
    d = run(obj, "lds_stencil_calls", 768, 256, "buf:f32:768:iota", "buf:f32:768", "i32:768")
    assert d["status"] == "completed", d["reason"]
    assert d["buffers"][1]["values"] == [float(v) for v in stencil_expected(768)]


def test_out_of_range_lds_accesses_travel_with_the_core_to_explain(tmp_path):
    """`amddbg run --core` keeps the run's out-of-range LDS accesses in an "AMDDBG" note of the core (nothing in
    the hardware state shows a dropped write); `amddbg explain` lists each as a finding, `amddbg info` still opens
    the core as before."""
    core = tmp_path / "wp.gpu"
    obj = HERE / "issue22-llvm19-gfx1200-w32-O0.co"
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(obj), "--kernel", "lds_write_past", "--grid", "64",
                        "--block", "64", "--arg", "buf:u32:64:iota", "--arg", "buf:u32:64", "--arg", "u32:8",
                        "--core", str(core)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([sys.executable, "-m", "amddbg", "explain", str(core), "--json"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    found = [f for f in json.loads(r.stdout)["findings"] if f["kind"] == "lds_out_of_range"]
    assert {f["cause"] for f in found} == {"write"}
    lanes = sorted((f["waves"][0]["wave_in_group"], ln) for f in found for ln in f["waves"][0]["lanes"])
    assert lanes == [(t // 32, t % 32) for t in range(16, 64)]
    assert all(f["locations"][0]["line"] == 79 and "dropped" in f["summary"] for f in found)
    r = subprocess.run([sys.executable, "-m", "amddbg", "info", str(core)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0 and "Traceback" not in r.stderr


def test_emulator_note_payload_is_never_trusted():
    from amddbg.core.emunotes import build, parse

    good = {"kind": "lds_write_out_of_range", "pc": "0x10", "lanes": [1], "addresses": ["0x200"]}
    assert parse(build([good]), "x") == ([good], [])
    for bad in (b"\xff\xfe", b"[1, 2]", b'{"version": 2, "notes": []}', b"{" * 10):
        notes, warnings = parse(bad, "core.gpu")
        assert notes == [] and len(warnings) == 1 and warnings[0].startswith("core.gpu: ")
    notes, warnings = parse(build([good, {"kind": 3}]), "core.gpu")
    assert notes == [good] and "1 malformed" in warnings[0]


EDGES = HERE.parent / "emu-edges"


@pytest.mark.parametrize("target,lanes", [("gfx90a", 64), ("gfx1100", 32), ("gfx1200", 32)])
def test_issue_shapes_through_the_door(target, lanes):
    """The issue's reports as a user meets them, through `amddbg run --json` on the edge kernels: clang's
    `v < 0 ? -v : v` (v_cndmask_b32_e64 v, v, -v, vcc) gives |v| for values=-3,-1,0,1,2 (it gave -3,-1,-0,-1,-2 on
    gfx90a), VCC as cndmask data (GFX11/12), and store_byte_d16_hi stores one byte."""
    import struct

    vals = [-3.0, -1.0, 0.0, 1.0, 2.0]
    bits = [struct.unpack("<I", struct.pack("<f", v))[0] for v in vals]
    slots = [bits, bits, [0, 1, 1, 0, 1], bits]
    flat = []
    for s in slots:
        flat += [s[i % len(s)] for i in range(lanes)]
    flat += [0] * (lanes * 16 - len(flat))
    values = ",".join(map(str, flat))
    cmd = [sys.executable, "-m", "amddbg", "run", str(EDGES / f"vop3mods-{target}.co"), "--kernel", "vop3mods",
           "--grid", str(lanes), "--block", str(lanes), "--arg", f"buf:u32:{len(flat)}:values={values}",
           "--arg", f"buf:f32:{lanes * 15}", "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["buffers"][1]["values"]
    assert out[3 * lanes:3 * lanes + 5] == [3.0, 1.0, 0.0, 1.0, 2.0]
    if target != "gfx90a":
        vcc = struct.unpack("<f", struct.pack("<I", 0x5A5A0FF0))[0]
        assert out[:5] == [vals[0], vcc, vcc, vals[3], vcc]  # sel ? vcc_lo : x
    cmd = [sys.executable, "-m", "amddbg", "run", str(EDGES / f"d16-{target}.co"), "--kernel", "d16", "--grid",
           str(lanes), "--block", str(lanes), "--arg", f"buf:u32:{lanes * 16}:fill=0x12345678", "--arg",
           f"buf:u32:{lanes * 14}", "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)["buffers"][1]["values"]
    assert out[2 * lanes:3 * lanes] == [0x34] * lanes  # store_byte_d16_hi: one byte, bits 23:16


# AMDGPUUsage's cache rows for loads, per generation: (policy bits, levels read before L2: 2 = L0/L1 and GL1, 1 =
# GL1 / the shader engine's cache only, 3 = the L0 only, 0 = L2)
ROUTES = {
    ("gfx9", "gfx90a"): [({}, 2), ({"glc": True}, 0), ({"slc": True}, 2)],
    ("gfx9", "gfx942"): [({}, 2), ({"sc0": True}, 2), ({"sc1": True}, 0), ({"sc0": True, "sc1": True}, 0),
                         ({"nt": True}, 2)],
    ("gfx10", "gfx1030"): [({}, 2), ({"glc": True}, 1), ({"glc": True, "dlc": True}, 0), ({"dlc": True}, 3)],
    ("gfx11", "gfx1100"): [({}, 2), ({"glc": True}, 0), ({"glc": True, "dlc": True}, 0), ({"dlc": True}, 2),
                           ({"slc": True, "dlc": True}, 2)],
    ("gfx12", "gfx1200"): [({}, 2), ({"scope": 0}, 2), ({"scope": 1}, 1), ({"scope": 2}, 0), ({"scope": 3}, 0),
                           ({"scope": "SCOPE_DEV"}, 0)],
}


@pytest.mark.parametrize("family,processor", sorted(ROUTES))
def test_cache_bypass_rows(family, processor):
    """Each generation's load rows as AMDGPUUsage's cache control gives them (GFX10 glc skips the L0 and dlc the
    GL1; GFX11 glc skips both, dlc is the MALL's; gfx940 sc1 is agent/system scope; GFX12 scopes)."""
    from amddbg.emu.caches import VectorCaches

    c = VectorCaches(None, family, processor)
    assert [c.route(p) for p, _ in ROUTES[(family, processor)]] == [n for _, n in ROUTES[(family, processor)]]
