"""GFX12.5 (gfx1250) integer VALU/SALU on a hand-written llvm-mc-22 kernel (corefiles/emu-edges/int64.gfx1250.s).

Why: clang-22's gfx1250 code does its 64-bit index math with v_add_nc_u64/v_mad_nc_u64_u32/v_mul_u64 and takes
the PC with s_get_pc_i64; before these had semantics every gfx1250 kernel stopped at once. The expectations are
the ISA pseudocode in plain Python (wrapping 64-bit arithmetic, signed/unsigned min/max, the low 32 bits of
S0 * S1 + S2); the PC check compares with llvm-objdump-22's address of the instruction after s_get_pc_i64.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_edges import EDGES, LANES, check, fma32  # noqa: E402

from amddbg.emu.args import read_buffer  # noqa: E402
from amddbg.emu.machine import Machine  # noqa: E402

M64 = (1 << 64) - 1
A = [0, 1, 0xFFFFFFFF, 0x1_0000_0000, M64, 1 << 63, 0x1234_5678_9ABC_DEF0, 0xFFFF_FFFF_0000_0001]
B = [0, 0xFFFFFFFF, 1, 0xFFFF_FFFF, 2, (1 << 63) - 1, 0x0FED_CBA9_8765_4321, M64]
C = [0, 7, 0xFFFFFFFF, 3, 0x80000000, 1, 0xDEADBEEF, 0x10]


def _s64(x: int) -> int:
    return x - (1 << 64) if x >> 63 else x


def run(lanes: int, slots: list[list[int]], nout: int, case: str = "int64") -> list[list[int]]:
    flat = []
    for s in slots:
        flat += [s[i % len(s)] & 0xFFFFFFFF for i in range(lanes)]
    m = Machine(EDGES / f"{case}-gfx1250.co")
    m.dispatch(case, (lanes, 1, 1), (lanes, 1, 1),
               [f"buf:u32:{len(flat)}:values={','.join(map(str, flat))}", f"buf:u32:{lanes * nout}"])
    r = m.run(max_instructions=20_000)
    assert r.status == "completed", r.reason
    out = read_buffer(m, m.buffers[1])
    return [out[k * lanes:(k + 1) * lanes] for k in range(nout)]


def test_gfx1250_int64_ops() -> None:
    lanes = 32
    assert LANES.get("gfx1250", 32) == lanes
    a = [A[i % len(A)] for i in range(lanes)]
    b = [B[(i * 3) % len(B)] for i in range(lanes)]
    c = [C[i % len(C)] for i in range(lanes)]
    got = run(lanes, [[x & 0xFFFFFFFF for x in a], [x >> 32 for x in a], [x & 0xFFFFFFFF for x in b],
                      [x >> 32 for x in b], c], 17)

    def pair(k: int, want: list[int], what: str) -> None:
        check(got[k], [w & 0xFFFFFFFF for w in want], what + " (low)")
        check(got[k + 1], [(w >> 32) & 0xFFFFFFFF for w in want], what + " (high)")

    pair(0, [(x + y) & M64 for x, y in zip(a, b, strict=True)], "v_add_nc_u64")
    pair(2, [(x - y) & M64 for x, y in zip(a, b, strict=True)], "v_sub_nc_u64")
    pair(4, [(x * y) & M64 for x, y in zip(a, b, strict=True)], "v_mul_u64")
    pair(6, [((x & 0xFFFFFFFF) * (y & 0xFFFFFFFF) + y) & M64 for x, y in zip(a, b, strict=True)], "v_mad_nc_u64_u32")
    pair(8, [x if _s64(x) < _s64(y) else y for x, y in zip(a, b, strict=True)], "v_min_i64")
    pair(10, [max(x, y) for x, y in zip(a, b, strict=True)], "v_max_u64")
    check(got[12], [((x & 0xFFFFFFFF) * (y & 0xFFFFFFFF) + z) & 0xFFFFFFFF for x, y, z in zip(a, b, c, strict=True)],
          "v_mad_u32")
    dis = subprocess.run(["llvm-objdump-22", "-d", str(EDGES / "int64-gfx1250.co")], capture_output=True,
                         text=True, check=True).stdout
    after = re.search(r"s_get_pc_i64 s\[8:9\]\s+// ([0-9A-F]+):", dis)
    assert after, "llvm-objdump-22 does not show the kernel's s_get_pc_i64"
    check(got[13], [(int(after.group(1), 16) + 4) & 0xFF] * lanes, "s_get_pc_i64 (low byte)")
    pair(14, [(x + 5) & M64 for x in a], "v_add_nc_u64 with an inline constant")
    check(got[16], [((x & 0xFFFFFFFF) * 7 - 3) & 0xFFFFFFFF for x in a], "v_mad_u32 with -3")


def test_gfx1250_scale_offset() -> None:
    """`scale_offset` multiplies the register offset (VGPR of a SADDR global access, SGPR soffset of SMEM) by the
    access size and leaves the immediate in bytes (LLVM selects it for `p[zext(i)]`; llvm-project #150078)."""
    lanes = 32
    words = [(0x9E3779B9 * (k + 1)) & 0xFFFFFFFF for k in range(2 * lanes)]
    got = run(lanes, [words[:lanes], words[lanes:]], 10, "scale")
    halves = [w >> s & 0xFFFF for w in words for s in (0, 16)]
    check(got[0], words[:lanes], "global_load_b32 scale_offset")
    check(got[1], words[lanes:2 * lanes], "global_load_b32 offset:128 scale_offset")
    check(got[2], [words[2 * ln] for ln in range(lanes)], "global_load_b64 scale_offset (low)")
    check(got[3], [words[2 * ln + 1] for ln in range(lanes)], "global_load_b64 scale_offset (high)")
    check(got[4], halves[:lanes], "global_load_u16 scale_offset")
    check(got[5], [words[3]] * lanes, "s_load_b32 soffset scale_offset")
    check(got[6], [words[7]] * lanes, "s_load_b64 soffset offset:0x4 scale_offset (low)")
    check(got[7], [words[8]] * lanes, "s_load_b64 soffset offset:0x4 scale_offset (high)")
    check(got[8], [3 * ln for ln in range(lanes)], "global_store_b32 scale_offset")
    check(got[9], [ln + 1 for ln in range(lanes)], "global_atomic_add_u32 scale_offset")


@pytest.mark.parametrize("case", ["int64", "scale"])
def test_gfx1250_edge_object_is_gfx1250(case: str) -> None:
    from amddbg.codeobj import CodeObject

    assert CodeObject.from_path(EDGES / f"{case}-gfx1250.co").processor.startswith("gfx1250")


def _f32(bits: int) -> np.float32:
    return np.frombuffer(struct.pack("<I", bits & 0xFFFFFFFF), dtype=np.float32)[0]


def _bits(x) -> int:
    return struct.unpack("<I", np.float32(x).tobytes())[0]


def test_gfx1250_vopd3_bitop3_lit64() -> None:
    """VOPD3 halves (bitop2 with S2 = 0, cndmask with an SGPR selector, neg on a source), a VOPD swap (both halves
    read before either writes), v_bitop3_b32 over three sources, and a 64-bit literal operand."""
    lanes = 32
    fa = [1.5, -2.25, 3.0e-5, 1.0e20, -0.0, 7.0, 0.1, -3.5]
    fb = [2.0, 0.5, -1.0e-3, 3.0, 5.0, -0.0, 0.3, 1.25]
    fc = [0.25, 1.0, 2.0e-8, -1.0e20, -0.0, 0.0, -0.03, 4.0]
    a = [_bits(fa[i % 8]) ^ (i << 3) if i >= 8 else _bits(fa[i]) for i in range(lanes)]
    b = [_bits(fb[i % 8]) if i < 16 else (i * 0x9E3779B9) & 0xFFFFFFFF for i in range(lanes)]
    c = [_bits(fc[i % 8]) for i in range(lanes)]
    got = run(lanes, [a, b, c], 14, "vopd3")
    m32 = 0xFFFFFFFF
    check(got[0], [x & 7 for x in a], "v_dual_bitop2_b32 bitop3:0x40 (and)")
    check(got[1], [(x + y) & m32 for x, y in zip(a, b, strict=True)], "v_dual_add_nc_u32")
    check(got[2], [x ^ y for x, y in zip(a, b, strict=True)], "v_dual_bitop2_b32 bitop3:0x14 (xor)")
    check(got[3], [x | y for x, y in zip(a, b, strict=True)], "v_dual_bitop2_b32 bitop3:0x54 (or)")
    check(got[4], [y if x > y else x for x, y in zip(a, b, strict=True)], "v_dual_cndmask_b32 with an SGPR selector")
    check(got[5], [(x - y) & m32 for x, y in zip(a, b, strict=True)], "v_dual_sub_nc_u32")
    check(got[6], [fma32(x ^ 0x80000000, y, z) for x, y, z in zip(a, b, c, strict=True)], "v_dual_fma_f32 with -S0")
    check(got[7], b, "v_dual_mov_b32 swap (x half)")
    check(got[8], a, "v_dual_mov_b32 swap (y half)")
    check(got[9], [(x & y) | (x & z) | (y & z) for x, y, z in zip(a, b, c, strict=True)], "v_bitop3_b32 0xe8")
    s = [((y << 32 | x) + 0x123456789A) & M64 for x, y in zip(a, b, strict=True)]
    check(got[10], [v & m32 for v in s], "v_add_nc_u64 lit64 (low)")
    check(got[11], [v >> 32 for v in s], "v_add_nc_u64 lit64 (high)")
    check(got[12], [x & ~y & m32 for x, y in zip(a, b, strict=True)], "v_dual_bitop2_b32 bitop3:0x10 (a & ~b)")
    check(got[13], [(x & y) | (~x & z & m32) for x, y, z in zip(a, b, c, strict=True)], "v_bitop3_b32 0xca")
