"""Builtins coverage probe (corefiles/builtins/builtins.hip): the HIP builtins and idioms kernels commonly use,
built by clang-19 and clang-22 for gfx90a, gfx942, gfx1100 and gfx1200 (wave32 and wave64) and by clang-22 for
gfx1250 (wave32 only; clang-19 does not know it), at -O0 and -O2.

Three questions per object: does every instruction clang emitted have semantics (an instruction without them would
stop a user's kernel as unsupported), does every kernel run to its end on ordinary inputs, and do the integer
kernels (division, jump tables, function pointers, dynamic private indexing, scalar arithmetic, byte SADs and
lerps, row permutes) and the f16 dot product write what their host twins below compute. The probe found
v_mul_dx9_zero_f32 (powf), v_lerp_u8, v_msad_u8, v_permlane16/x16, the realtime message and v_dot2_f32_f16.

Every object is checked statically; the runs use four objects by default (gfx90a, gfx1100 wave64, gfx1200 wave32,
gfx1250) and the rest are marked slow, and CI runs their sample (tests/bounded.py: one object for each of the three
targets the defaults leave out, rotating over compilers and levels; AMDDBG_SLOW_LIMIT=0 runs all of them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from amddbg.emu.args import explicit_args, read_buffer
from amddbg.emu.machine import Machine
from amddbg.emu.semantics import lookup
from tests import bounded

BUILTINS = Path(__file__).resolve().parents[2] / "corefiles" / "builtins"
OBJECTS = sorted(BUILTINS.glob("builtins-llvm*.co"))
DEFAULT = {"builtins-llvm22-gfx90a-w64-O2.co", "builtins-llvm19-gfx1100-w64-O0.co", "builtins-llvm22-gfx1200-w32-O2.co",
           "builtins-llvm22-gfx1250-w32-O2.co"}
M32, M64 = 0xFFFFFFFF, (1 << 64) - 1


def _objects():
    """DEFAULT, and the slow sample of the other objects (tests/bounded.py)."""
    return bounded.params(bounded.matrix(OBJECTS, fast=DEFAULT), kernel=False,
                          ids=lambda c: c.obj.stem[len("builtins-"):])


def _lanes(p: Path) -> int:
    return 32 if "-w32-" in p.name else 64


def test_the_probe_is_built_for_every_target():
    assert len(OBJECTS) == 26 and DEFAULT <= {p.name for p in OBJECTS}
    assert {p.name for p in OBJECTS if "gfx1250" in p.name} == {"builtins-llvm22-gfx1250-w32-O0.co",
                                                                 "builtins-llvm22-gfx1250-w32-O2.co"}


@pytest.mark.parametrize("path", OBJECTS, ids=lambda p: p.stem[len("builtins-"):])
def test_every_instruction_has_semantics(path):
    m = Machine(path)
    missing = sorted({i.mnemonic for i in m.instructions.values() if lookup(i) is None})
    assert not missing, missing


@pytest.mark.parametrize("path", _objects())
def test_every_kernel_runs_to_its_end(path):
    """Each kernel, two workgroups of one wave, every buffer 0, 1, 2, ... and scalars small: no unsupported
    instruction, fault or hang."""
    kernels = Machine(path).co.kernels
    assert len(kernels) >= 33  # (35 in the source; two are gfx9-only)
    lanes = _lanes(path)
    for k in kernels:
        specs = ["buf:u32:4096:iota" if a.value_kind == "global_buffer" else "u64:12345" if a.size == 8 else "u32:7"
                 for a in explicit_args(k)]
        m = Machine(path)
        m.dispatch(k.name.removesuffix(".kd"), (2 * lanes, 1, 1), (lanes, 1, 1), specs)
        r = m.run(max_instructions=300_000)
        assert r.status == "completed", (k.name, r.status, r.reason)


def _run(path: Path, kernel: str, nbuf: int, scalars=(), init: str = "iota", elem: str = "u32") -> list[list[int]]:
    """Dispatch `kernel` (its buffers first, then `scalars`) as two workgroups of one wave; the buffers' final
    dwords. The probe's kernels index by the work-item id, so both workgroups write the first `lanes` elements."""
    lanes = _lanes(path)
    m = Machine(path)
    m.dispatch(kernel, (2 * lanes, 1, 1), (lanes, 1, 1), [f"buf:{elem}:4096:{init}"] * nbuf + list(scalars))
    r = m.run(max_instructions=300_000)
    assert r.status == "completed", (kernel, r.reason)
    return [[int(x) for x in read_buffer(m, b)] for b in m.buffers]


def _i64(buf: list[int], i: int) -> int:
    return buf[2 * i] | buf[2 * i + 1] << 32


def _tdiv(a: int, b: int) -> int:  # C's truncating division
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@pytest.mark.parametrize("path", _objects())
def test_integer_kernels_match_their_twins(path):
    lanes = _lanes(path)
    ids = range(lanes)
    b = _run(path, "k_div", 10)  # a, b, c, d, o, o2, o3, o4, e, f: every input is 0, 1, 2, ...
    for i in ids:
        e = (2 * i + 1) << 32 | 2 * i  # the i64/u64 inputs read as pairs of the dwords 2i, 2i + 1
        assert b[4][i] == b[5][i] == (i // (i | 1) + i % (i | 1)) & M32, i
        assert _i64(b[6], i) == (_tdiv(e, (e >> 3) | 1) + e - _tdiv(e, 17) * 17) & M64, i
        assert _i64(b[7], i) == (e // ((e >> 7) | 1) + e % ((e >> 40) | 3)) & M64, i
    out = _run(path, "k_switch", 2)[1]
    assert out[:lanes] == [[11, i * 2, 5 - i, 99, i << 3, -1, i * i, 42][i & 7] & M32 for i in ids]
    out = _run(path, "k_fnptr", 2)[1]
    assert out[:lanes] == [(i * 3 + 1) if i & 1 else i ^ 0x55 for i in ids]
    out = _run(path, "k_private_dyn", 2)[1]
    for i in ids:
        a = [k * i for k in range(16)]
        a[i & 15] += 7
        assert out[i] == a[(i + 3) & 15] & M32
    out = _run(path, "k_private_dyn8", 2)[1]
    assert out[:lanes] == [int(np.float32([1, 2, 3, 4, 5, 6, 7, 8][i & 7] * i).view(np.uint32)) for i in ids]
    s, s2 = 1000003, 123456789012345
    t = ((s * 7) & M32) // 5 + (s >> (s & 7)) + s.bit_count() + 32 - (s | 1).bit_length() + ((s * s) >> 32) + (
        3 if s & 0xFF00 else 9) + s2.bit_count() + ((s2 // 3) & M32) + s2 % 1000
    out = _run(path, "k_scalar", 2, [f"u32:{s}", f"u64:{s2}"])[1]
    assert out[:lanes] == [(i + t) & M32 for i in ids]


def _bytes(v: int) -> list[int]:
    return [(v >> (8 * k)) & 0xFF for k in range(4)]


def _sad(x: int, y: int, acc: int, masked: bool = False, hi: bool = False) -> int:
    return acc + (sum(abs(p - q) for p, q in zip(_bytes(x), _bytes(y), strict=True) if q or not masked) << (16 * hi))


def _permlane(vals: list[int], s1: int, s2: int, cross: bool) -> list[int]:
    sel = s1 | s2 << 32
    return [vals[((ln & ~15) + ((sel >> (4 * (ln & 15))) & 15)) ^ (16 if cross else 0)] for ln in range(len(vals))]


@pytest.mark.parametrize("path", _objects())
def test_lane_and_byte_kernels_match_their_twins(path):
    """k_intbits (alignbit, alignbyte, perm, lerp, sad/msad/sad_hi/sad_u16), k_permlane (GFX11+: permlane16 and
    permlanex16, then a ds_bpermute rotate) and k_fdot2 (f16 pairs whose products and sums are exact in f32)."""
    lanes = _lanes(path)
    out = _run(path, "k_intbits", 2)[1]
    for x in range(lanes):
        n = ~x & M32
        alignbit = ((x << 32 | (x >> 3)) >> 7) & M32
        alignbyte = ((x << 32 | n) >> 16) & M32
        src = (x << 32 | n).to_bytes(8, "little")  # v_perm_b32 byte k of {S0, S1} (S1 is bytes 0-3)
        perm = int.from_bytes(bytes(src[(0x05040100 >> (8 * k)) & 0xFF] for k in range(4)), "little")
        lerp = sum(((p + q + (c & 1)) >> 1) << (8 * k)
                   for k, (p, q, c) in enumerate(zip(_bytes(x), _bytes(n), _bytes(x), strict=True)))
        sad16 = 3 + sum(abs(((x >> s) & 0xFFFF) - ((n >> s) & 0xFFFF)) for s in (0, 16))
        want = (alignbit + alignbyte + perm + lerp + _sad(x, n, 5) + _sad(x, n, 5, masked=True)
                + _sad(x, n, 5, hi=True) + sad16) & M32
        assert out[x] == want, (x, out[x], want)
    out = _run(path, "k_permlane", 2)[1]
    x = list(range(lanes))
    if "gfx1100" in path.name or "gfx1200" in path.name:
        x = [p + q for p, q in zip(x, _permlane(x, 0x76543210, 0xFEDCBA98, False), strict=True)]
        x = [p + q for p, q in zip(x, _permlane(x, 0x01234567, 0x89ABCDEF, True), strict=True)]
    # ds_bpermute((i + 1) * 4): GFX10/GFX11 wave64 permute within each 32-lane half (lane 31 reads lane 0,
    # lane 63 lane 32); GFX9, GFX12 and wave32 across the whole wave (tests/emu/test_wave64_permute.py)
    half = 32 if lanes == 64 and "gfx11" in path.name else lanes
    assert out[:lanes] == [(x[i] + x[i - i % half + (i + 1) % half]) & M32 for i in range(lanes)]
    # k_fdot2(a, b, out): a = 0, 1, 2, ... as f16 (pairs 2i, 2i+1), b = 0.5 everywhere, out starts at 1.0
    m = Machine(path)
    m.dispatch("k_fdot2", (2 * lanes, 1, 1), (lanes, 1, 1),
               ["buf:f16:256:iota", "buf:f16:256:fill=0.5", "buf:f32:64:fill=1.0"])
    assert m.run(max_instructions=100_000).status == "completed"
    got = read_buffer(m, m.buffers[2])
    assert list(got[:lanes]) == [1.0 + 0.5 * (2 * i) + 0.5 * (2 * i + 1) for i in range(lanes)]
