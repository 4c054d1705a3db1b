"""ds_bpermute_b32 / ds_permute_b32 in wave64 on GFX11 and GFX12 (corefiles/emu-edges/permute64.gfx11w64+gfx12w64.s,
llvm-mc-22 with +wavefrontsize64), run through `amddbg run --json`.

Why: GFX8/9 permute across the whole wave; GFX10 and GFX11 within 32 lanes: in wave64 each half permutes on its
own and a lane index names a lane of the issuing lane's half (modulo 32); GFX12 permutes across the whole wave
again. LLVM's GCNSubtarget::supportsWaveWideBPermute() is true for generation <= GFX9, == GFX12 or wave32 (its
wave.shuffle lowering emulates the rest with v_permlane64_b32 and a half select), and Mesa's ACO emit_bpermute
says "GFX10-11.5 wave64 mode: emulate full-wave bpermute", "wave32 or GFX8-9, GFX12+: bpermute works normally".
The emulator used to permute across all 64 lanes on gfx1100 (a wrong value in every lane whose index pointed into
the other half). Expectations are plain Python from that rule.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

EDGES = Path(__file__).resolve().parents[2] / "corefiles" / "emu-edges"
LANES = 64
DATA = [0x1000 + 17 * ln for ln in range(LANES)]
# byte addresses: the reversed lane (into the other half), lane + 5, an address past 64 lanes, a constant
INDEX = [(63 - ln) * 4 if ln % 4 == 0 else (ln + 5) * 4 if ln % 4 == 1 else (ln * 3 + 70) * 4 + (ln & 3)
         if ln % 4 == 2 else 40 * 4 for ln in range(LANES)]


def _run(target: str) -> list[list[int]]:
    flat = DATA + INDEX
    r = subprocess.run([sys.executable, "-m", "amddbg", "run", str(EDGES / f"permute64-{target}.co"),
                        "--kernel", "permute64", "--grid", str(LANES), "--block", str(LANES),
                        "--arg", f"buf:u32:{len(flat)}:values={','.join(map(str, flat))}",
                        "--arg", f"buf:u32:{4 * LANES}", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["status"] == "completed", doc["reason"]
    out = doc["buffers"][1]["values"]
    return [out[k * LANES:(k + 1) * LANES] for k in range(4)]


def _halves(ln: int, addr: int) -> int:
    """The lane a GFX10/GFX11 wave64 permute names: modulo 32 within the issuing lane's half."""
    return (ln & 32) | ((addr >> 2) & 31)


def _whole(ln: int, addr: int) -> int:
    """The lane a GFX8/9 or GFX12 wave64 permute names: modulo 64."""
    return (addr >> 2) & 63


@pytest.mark.parametrize(("target", "rule"), [("gfx1100", _halves), ("gfx1200", _whole)])
def test_wave64_permute_halves_on_gfx11_whole_wave_on_gfx12(target: str, rule) -> None:
    _lane = rule
    bperm, perm, bperm_off, bperm_exec = _run(target)
    assert bperm == [DATA[_lane(ln, INDEX[ln])] for ln in range(LANES)]
    want = [0] * LANES  # ds_permute: lanes nobody writes get 0; the highest writing lane wins
    for ln in range(LANES):
        want[_lane(ln, INDEX[ln])] = DATA[ln]
    assert perm == want
    # offset:128 is 32 lanes: on GFX11 it wraps back onto the same lane of the half; on GFX12 it names the other half
    assert bperm_off == [DATA[_lane(ln, INDEX[ln] + 128)] for ln in range(LANES)]
    assert (bperm_off == bperm) == (rule is _halves)
    exec_mask = 0xFFFF0000_FFFF00FF
    on = [bool(exec_mask >> ln & 1) for ln in range(LANES)]
    # an active lane reading an inactive one gets 0; inactive lanes keep v7 = 0
    assert bperm_exec == [(DATA[_lane(ln, INDEX[ln])] if on[_lane(ln, INDEX[ln])] else 0) if on[ln] else 0
                          for ln in range(LANES)]
    # the two rules disagree on these inputs, so either mistake fails the test
    assert any(_halves(ln, INDEX[ln]) != _whole(ln, INDEX[ln]) for ln in range(LANES))
