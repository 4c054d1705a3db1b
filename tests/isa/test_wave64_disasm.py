"""Wave64 GFX10+ code disassembles as wave64 code: lane masks are SGPR pairs (`v_add_co_u32 v1, s[0:1], ...`,
`v_cmp_*_e64 s[4:5]`, `v_cndmask_b32_e64 ..., s[0:1]`), `vcc` is `vcc` (not `vcc_lo`), and WMMA's accumulator is
half as wide, exactly as `llvm-objdump-22 -d --mattr=+wavefrontsize64` prints it.

Why: plain `llvm-objdump -d` names every GFX10+ object's registers the wave32 way, and `amddbg disasm` did the
same, so a wave64 kernel read `v_add_co_u32 v1, s0, v1, 4` where the instruction writes the carry of 64 lanes
into s[0:1] (and s1 is clobbered). The code object says which it is (the kernel descriptors'
ENABLE_WAVEFRONT_SIZE32). Oracles: the stored plain listing with the stored wave64 lines laid over it
(`X.co.objdump-w64.txt`, written by corefiles/build.py `wave64_delta` from llvm-objdump-22), and a live
llvm-objdump-22 when it is installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.isa.gfx10.accuracy import normalise, reference, wave64_reference

CO = Path(__file__).resolve().parents[2] / "corefiles" / "co"
OBJECTS = sorted(p for p in CO.glob("*-w64-*.co") if "-gfx1" in p.name)


def _disasm(path: Path) -> dict[int, str]:
    r = subprocess.run([sys.executable, "-m", "amddbg", "disasm", str(path), "--json"], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return {row["address"]: normalise(row["text"]) for row in map(json.loads, r.stdout.splitlines())}


def test_the_corpus_has_wave64_objects_of_each_gfx10_plus_generation() -> None:
    assert len(OBJECTS) == 24
    for gen in ("gfx1030", "gfx1100", "gfx1200"):
        assert sum(gen in p.name for p in OBJECTS) == 8
    for p in OBJECTS:
        assert Path(str(p) + ".objdump-w64.txt").exists(), p.name


@pytest.mark.parametrize("path", OBJECTS, ids=lambda p: p.name[: -len(".co")])
def test_disasm_matches_objdump_wavefrontsize64(path: Path) -> None:
    want = wave64_reference(path)
    got = _disasm(path)
    bad = [(hex(a), t, got.get(a)) for a, t in want.items() if got.get(a) != t]
    assert not bad, f"{len(bad)}/{len(want)} differ: {bad[:5]}"
    # the test can fail: the wave64 lines differ from the wave32 ones the old output had
    plain = reference(Path(str(path) + ".objdump.txt"))
    changed = [a for a in want if plain.get(a) != want[a]]
    assert changed and all("vcc" in want[a] or "s[" in want[a] or "v[" in want[a] for a in changed)


def test_wave32_objects_keep_wave32_names() -> None:
    path = CO / "llvm22-gfx1100-w32-O2-hip.co"
    want = reference(Path(str(path) + ".objdump.txt"))
    got = _disasm(path)
    assert all(got.get(a) == t for a, t in want.items())
    assert any("vcc_lo" in t for t in want.values())


@pytest.mark.skipif(shutil.which("llvm-objdump-22") is None,
                    reason="llvm-objdump-22 not installed: the stored listings above are the oracle")
@pytest.mark.parametrize("name", ["llvm22-gfx1100-w64-O0-hip.co", "llvm19-gfx1030-w64-O2-cl.co",
                                  "llvm22-gfx1200-w64-O2-hip.co"])
def test_disasm_matches_a_live_objdump(name: str, tmp_path: Path) -> None:
    path = CO / name
    out = subprocess.run(["llvm-objdump-22", "-d", "--mattr=+wavefrontsize64", str(path)], capture_output=True,
                         text=True, check=True).stdout
    (tmp_path / "live.txt").write_text(out)
    want = reference(tmp_path / "live.txt")
    assert want == wave64_reference(path)  # the stored oracle is what the tool prints
    got = _disasm(path)
    assert all(got.get(a) == t for a, t in want.items())


@pytest.mark.skipif(shutil.which("llvm-objdump-22") is None,
                    reason="llvm-objdump-22 not installed: the stored listings above are the oracle")
def test_repl_disassemble_of_a_wave64_core(tmp_path: Path) -> None:
    """Through the debugger: a wave64 gfx1100 lock kernel (causehangs) hangs, `amddbg run --core` writes the core,
    and `disassemble` in batch mode lists the kernel as llvm-objdump --mattr=+wavefrontsize64 does (`vcc`)."""
    obj = CO.parent / "causehangs" / "causehangs-llvm22-gfx1100-w64-O2.co"
    core = tmp_path / "lock.gpu"
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(obj), "--kernel", "lock_outside", "--grid", "64",
                        "--block", "64", "--arg", "buf:i32:1", "--arg", "buf:i32:1", "--core", str(core), "--json",
                        "--max-instructions", "300000"], capture_output=True, text=True, timeout=600)
    assert json.loads(r.stdout)["status"] == "hang", r.stderr
    r = subprocess.run([sys.executable, "-m", "amddbg", "-batch", "-ex", "disassemble", str(core)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    got = [" ".join(ln.split(":\t", 1)[1].split("#")[0].split()) for ln in r.stdout.splitlines() if ":\t" in ln]
    ref = subprocess.run(["llvm-objdump-22", "-d", "--mattr=+wavefrontsize64", str(obj)], capture_output=True,
                         text=True, check=True).stdout
    body = ref.split("<_Z12lock_outsidePiS_>:\n", 1)[1].split("\n\n", 1)[0]
    want = [" ".join(ln.split("//")[0].split()) for ln in body.splitlines() if ln.startswith("\t")]
    want = want[:want.index("s_endpgm") + 1]  # objdump goes on into the padding to the next symbol
    assert len(got) == len(want) and any("vcc" in w and "vcc_lo" not in w for w in want)
    assert [g.split(" ")[0] for g in got] == [w.split(" ")[0] for w in want]
    assert [g for g in got if not g.startswith("s_cbranch")] == [w for w in want if not w.startswith("s_cbranch")]
