"""The SGPRs a wave exposes agree with ROCdbgapi (issue 23 section 1).

ROCdbgapi (src/architecture.cpp, public): the "scalar" register class is s0..s<N-1> plus the shadow
SGPRs of the same numbers, N = `scalar_register_count` = 102 on the gfx9 family, 106 on gfx10+;
`aliased_sgpr_end = min(N + scalar_alias_count, sgpr_count)` with 6 alias slots on gfx9
(flat_scratch, xnack_mask, vcc) and 2 on gfx10+ (vcc); SGPRs in [end - aliases, end) are not SGPRs but
their shadows are, and the gfx9 xnack_mask shadow pair is read from HWREG 7/8. `sgpr_count` is the
record's allocation on gfx9 (16-SGPR blocks, minus the 16 TTMPs) and always 128 on gfx10+. So a wave
exposes min(allocated, N) SGPRs. The table below is that rule per generation and allocation; the cores
are written at test time (CoreBuilder) and read back through `amddbg info --json --registers` and the
REPL, and every shipped and scenario core is checked against the rule.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from amddbg.core import open_core
from amddbg.core.arch import Sizes, family_for
from amddbg.core.writer import CoreBuilder

ROOT = Path(__file__).resolve().parents[2]
ALLOCATIONS = (16, 64, 96, 102, 106, 112, 128)
# processor -> N; allocation -> exposed count (min(allocated, N); gfx10+ always allocates 128 in the record)
GENERATIONS = {"gfx900": 102, "gfx906": 102, "gfx908": 102, "gfx90a": 102, "gfx942": 102,
               "gfx1030": 106, "gfx1100": 106, "gfx1200": 106}
TABLE = [(p, a, min(a, n), n) for p, n in GENERATIONS.items() for a in ALLOCATIONS]


def amddbg(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "amddbg", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize(("processor", "allocated", "exposed", "n"), TABLE,
                         ids=[f"{p}-{a}" for p, a, _e, _n in TABLE])
def test_rule_table(processor, allocated, exposed, n):
    fam = family_for(processor)
    assert (fam.scalar_register_count, fam.scalar_alias_count) == ((102, 6) if n == 102 else (106, 2))
    s = Sizes(64, 0, 0, allocated, 0, 64)
    assert fam.exposed_sgprs(s) == exposed
    end = min(allocated, n + fam.scalar_alias_count)
    assert fam.aliased_sgpr_end(s) == end
    # gfx9 below N: the alias slots come back as shadows, xnack_mask's pair from HWREG
    want_shadow = (end - 4, end - 3) if n == 102 and end <= n else ()
    assert fam.xnack_shadow_slots(s) == want_shadow


def _core(tmp_path, processor: str, allocated: int | None) -> tuple[Path, list[int]]:
    b = CoreBuilder(arch=processor)
    d = b.add_dispatch(entry=0x9000)
    slots = [0x1000 + i for i in range(128)]
    gfx10 = allocated is None
    n_slots = 108 if gfx10 else min(allocated, 108)
    b.add_wave(d, pc=0x9000, sgprs=slots[:n_slots], sgpr_count=allocated, vgprs=[1] * 4,
               hwregs={7: 0xAAAA0007, 8: 0xBBBB0008})
    p = tmp_path / f"{processor}-{allocated}.gpu"
    b.write_split(str(p))
    return p, slots


@pytest.mark.parametrize(("processor", "allocated"), [
    ("gfx90a", 16), ("gfx90a", 64), ("gfx90a", 96), ("gfx90a", 112), ("gfx942", 64), ("gfx942", 112),
    ("gfx900", 112), ("gfx1030", None), ("gfx1100", None), ("gfx1200", None)])
def test_json_lists_exactly_the_exposed_sgprs(tmp_path, processor, allocated):
    """Cores a gfx9 CWSR record can describe (16-SGPR blocks up to 112) and gfx10+ (always 128)."""
    p, slots = _core(tmp_path, processor, allocated)
    r = amddbg("info", "--json", "--registers", str(p))
    assert r.returncode == 0, r.stderr
    [w] = json.loads(r.stdout)["waves"]
    gfx9 = allocated is not None
    exposed = min(allocated, 102) if gfx9 else 106
    want = slots[:exposed]
    if gfx9 and allocated <= 102:
        want[allocated - 4], want[allocated - 3] = 0xAAAA0007, 0xBBBB0008  # xnack_mask shadow from HWREG
    assert w["sgprs"] == want
    # vcc is the last alias pair of the record, wherever the SGPR list stops
    end = min(allocated, 108) if gfx9 else 108
    core = open_core(p)
    from amddbg.session.registers import WaveRegisters

    regs = WaveRegisters(core.waves[0])
    assert regs.vcc == (slots[end - 2] | slots[end - 1] << 32 if regs.wave_size == 64 else slots[end - 2])


def test_repl_names_and_errors(tmp_path):
    """`info registers` lists s0..s101 for a 112-SGPR gfx90a wave; `$s102` is no register (a convenience
    variable: void, as gdb prints it), `info registers s102` is gdb's "Invalid register"; gfx11: s105/s106."""
    p, slots = _core(tmp_path, "gfx90a", 112)
    r = amddbg("-batch", "-ex", "info registers", "-ex", "print $s101", "-ex", "print $s102", str(p))
    assert r.returncode == 0, r.stderr
    names = [line.split()[0] for line in r.stdout.splitlines() if line[:1] == "s" and line.split()[0][1:].isdigit()]
    assert names == [f"s{i}" for i in range(102)]
    assert f"= {slots[101]}" in r.stdout and "= void" in r.stdout
    r = amddbg("-batch", "-ex", "info registers s102", str(p))
    assert r.returncode == 1 and "Invalid register `s102'" in r.stderr
    p, slots = _core(tmp_path, "gfx1100", None)
    r = amddbg("-batch", "-ex", "print $s105", "-ex", "print $s106", "-ex", "print $s107", str(p))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"$1 = {slots[105]}", "$2 = void", "$3 = void"]


def _all_cores() -> list[list[Path]]:
    out = []
    for p in sorted((ROOT / "corefiles" / "scenarios").glob("*.gpu")):
        out.append([p])
    cores = ROOT / "corefiles" / "cores"
    out += [[cores / "gfx90a-divergent-barrier.gpu"], [cores / "gfx1100-probe.core"],
            [cores / "gfx942-reduce.host.core", cores / "gfx942-reduce.gpu"]]
    return out


def test_every_shipped_and_scenario_core():
    """`info --json --registers` on every shipped and scenario core lists exactly min(allocated, N) SGPRs."""
    seen = set()
    for paths in _all_cores():
        r = amddbg("info", "--json", "--registers", *map(str, paths))
        assert r.returncode == 0, (paths, r.stderr)
        doc = json.loads(r.stdout)
        targets = {a["gpu_id"]: a["target"] for a in doc["agents"]}
        core = open_core([str(p) for p in paths], solib_search_path=str(ROOT / "corefiles" / "co"))
        for w, cw in zip(doc["waves"], core.waves, strict=True):
            target = targets[w["gpu_id"]]
            n = GENERATIONS.get(target, 106 if target.startswith("gfx1") else 102)
            allocated = cw.sizes.sgprs
            assert allocated == 128 or not target.startswith("gfx1")
            assert len(w["sgprs"]) == min(allocated, n), (paths, target, allocated)
            seen.add((target, allocated, len(w["sgprs"])))
    assert {t for t, _a, _n in seen} >= {"gfx90a", "gfx942", "gfx1100", "gfx1200"}
    assert ("gfx90a", 112, 102) in seen and ("gfx1100", 128, 106) in seen


@pytest.mark.parametrize("processor", ["gfx90a", "gfx1100", "gfx1200"])
def test_json_has_m0_mode_and_gfx12_trap_registers(tmp_path, processor):
    """Every scalar register dbgapi shows can be compared: m0, MODE, and on gfx12 EXCP_FLAG_PRIV/USER and
    TRAP_CTRL (gfx12 has no TRAPSTS)."""
    b = CoreBuilder(arch=processor)
    d = b.add_dispatch(entry=0x9000)
    extra = {"excp_flag_priv": 0x11, "excp_flag_user": 0x22, "trap_ctrl": 0x33} if processor == "gfx1200" else {}
    b.add_wave(d, pc=0x9000, m0=0x1234, mode=0x5678, vgprs=[1] * 4, hwregs=extra)
    p = tmp_path / "r.gpu"
    b.write_split(str(p))
    r = amddbg("info", "--json", "--registers", str(p))
    assert r.returncode == 0, r.stderr
    [w] = json.loads(r.stdout)["waves"]
    assert w["m0"] == 0x1234 and w["mode"] == 0x5678
    if processor == "gfx1200":
        assert (w["excp_flag_priv"], w["excp_flag_user"], w["trap_ctrl"]) == (0x11, 0x22, 0x33)
        assert w["trapsts"] is None
    else:
        assert "trap_ctrl" not in w and "excp_flag_priv" not in w


def test_gfx9_alias_registers_by_name(tmp_path):
    """Above N the alias slots are only registers: `$flat_scratch` (slots end-6/end-5), `$xnack_mask` (HWREG
    7/8, as dbgapi reads it), `$vcc` (end-2/end-1) of a 112-SGPR gfx90a wave."""
    p, slots = _core(tmp_path, "gfx90a", 112)
    r = amddbg("-batch", "-ex", "print/x $flat_scratch", "-ex", "print/x $xnack_mask", "-ex", "print/x $vcc", str(p))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"$1 = {slots[102] | slots[103] << 32:#x}", "$2 = 0xbbbb0008aaaa0007",
                                     f"$3 = {slots[106] | slots[107] << 32:#x}"]
