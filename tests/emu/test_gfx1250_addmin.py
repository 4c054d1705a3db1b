"""GFX12.5 (gfx1250) add-then-min/max, the f64 minimumNumber/maximumNumber atomics, v_cvt_pk_bf16_f32 and
s_get_shader_cycles_u64 on a hand-written llvm-mc-22 kernel (corefiles/emu-edges/addmin.gfx1250.s).

Why: the held-out gfx1250 kernels used v_add_min_u32, and clang-22 compiles `atomicrmw fmin/fmax` on doubles
(builtins.hip's k_fatomic_global) to {global,flat}_atomic_{min,max}_num_f64, a bf16 store to v_cvt_pk_bf16_f32
and `__builtin_readcyclecounter` to s_get_shader_cycles_u64; each stopped the wave as unsupported. Expectations
are plain Python: the add saturates before the min/max (LLVM 22 selects these instructions only for
`llvm.{s,u}add.sat` feeding smin/smax/umin/umax), the `_num` atomics are IEEE minimumNumber/maximumNumber (a NaN
loses to a number, -0 < +0, two NaNs give the data quieted), bf16 is round-to-nearest-even of the f32 bits.
"""

from __future__ import annotations

import math
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_edges import EDGES, check  # noqa: E402
from test_gfx1250_int import run  # noqa: E402

from amddbg.emu.args import read_buffer  # noqa: E402
from amddbg.emu.machine import Machine  # noqa: E402

LANES = 32
M32 = 0xFFFFFFFF
QNAN64, SNAN64 = 0x7FF8_0000_0000_0001, 0x7FF0_0000_0000_0002


def _d(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _f(u: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", u))[0]


# (memory's value, the atomic's data): ordered numbers both ways, equal, signed zeros both ways, a NaN on either
# side and on both (a signalling data NaN comes back quiet), infinities, denormals, negative numbers
PAIRS = [(_d(1.0), _d(2.0)), (_d(2.0), _d(1.0)), (_d(3.5), _d(3.5)), (_d(0.0), _d(-0.0)), (_d(-0.0), _d(0.0)),
         (QNAN64, _d(4.0)), (_d(4.0), QNAN64), (QNAN64, SNAN64), (_d(math.inf), _d(-1e300)),
         (_d(-math.inf), _d(7.0)), (_d(5e-324), _d(-5e-324)), (_d(-2.5), _d(-2.25)), (_d(1e-310), _d(1e-309)),
         (SNAN64, _d(-0.0)), (_d(-0.0), _d(-0.0)), (_d(123.0), _d(-123.0))]


def _min_max_num(m: int, d: int, is_min: bool) -> int:
    a, b = _f(d), _f(m)
    if a != a:
        return d | (1 << 51) if b != b else m
    if b != b:
        return d
    if a == 0 and b == 0 and (d >> 63) != (m >> 63):
        return d if bool(d >> 63) == is_min else m
    return d if (a < b if is_min else a > b) else m


def _s32(x: int) -> int:
    return x - (1 << 32) if x >> 31 else x


def _s16(x: int) -> int:
    return x - (1 << 16) if x >> 15 else x


def _add_mm(a: int, b: int, c: int, signed: bool, is_max: bool, bits: int = 32) -> int:
    mask = (1 << bits) - 1
    sx = _s32 if bits == 32 else _s16
    if signed:
        s = max(-(1 << (bits - 1)), min((1 << (bits - 1)) - 1, sx(a) + sx(b)))
        r = max(s, sx(c)) if is_max else min(s, sx(c))
    else:
        s = min(a + b, mask)
        r = max(s, c) if is_max else min(s, c)
    return r & mask


def _pk(a: int, b: int, c: int, signed: bool, is_max: bool, sel_lo=(0, 0, 0), sel_hi=(1, 1, 1)) -> int:
    def half(v: int, hi: int) -> int:
        return v >> 16 if hi else v & 0xFFFF

    lo = _add_mm(half(a, sel_lo[0]), half(b, sel_lo[1]), half(c, sel_lo[2]), signed, is_max, 16)
    hi = _add_mm(half(a, sel_hi[0]), half(b, sel_hi[1]), half(c, sel_hi[2]), signed, is_max, 16)
    return lo | hi << 16


def _bf16(u: int) -> int:
    if (u & 0x7FFFFFFF) > 0x7F800000:
        return ((u >> 16) | 0x40) & 0xFFFF
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


A = [0x7FFFFFFF, 0xFFFFFFFF, 0x80000000, 5, 0x7FFF7FFF, 0x80008000, 0xFFFF0001, 0x12345678, 0, 0xFFFFFFFB,
     0x3F800000, 0x7FC00001, 0x3F808000, 0x3F818000, 0xFF800000, 0x00000001]
B = [1, 1, 0x80000000, 0xFFFFFFFA, 0x00010001, 0xFFFFFFFF, 0x0001FFFF, 0x9ABCDEF0, 0, 6, 0x3F7FFFFF, 0x7F800000,
     0x80000000, 0x3F808001, 0x7F7FFFFF, 0xFFFFFFFF]
C = [0x10, 0x80000001, 0x7FFFFFFF, 2, 0x7FFE0005, 0x00050005, 0xFFFFFFFF, 0x55555555, 1, 0xFFFFFFFF, 0, 9,
     0x80008000, 0x12345678, 3, 0xFFFF0000]


def test_add_minmax_f64_num_atomics_bf16_and_cycles() -> None:
    ms = [PAIRS[i % len(PAIRS)][0] for i in range(LANES)]
    ds = [PAIRS[i % len(PAIRS)][1] for i in range(LANES)]
    a = [A[i % len(A)] ^ (0 if i < 16 else 0x00010000) for i in range(LANES)]
    b = [B[(i * 5) % len(B)] if i >= 16 else B[i] for i in range(LANES)]
    c = [C[i % len(C)] for i in range(LANES)]
    got = run(LANES, [[m & M32 for m in ms], [m >> 32 for m in ms], [d & M32 for d in ds], [d >> 32 for d in ds],
                      a, b, c], 23, "addmin")
    # each f64 region: slot 2k holds lanes 0..15's doubles, slot 2k+1 lanes 16..31's (8 bytes a lane)
    for k, (is_min, what) in enumerate([(True, "global_atomic_min_num_f64"), (False, "global_atomic_max_num_f64"),
                                        (True, "flat_atomic_min_num_f64"), (False, "flat_atomic_max_num_f64")]):
        words = got[2 * k] + got[2 * k + 1]
        mem = [words[2 * ln] | words[2 * ln + 1] << 32 for ln in range(LANES)]
        want = [_min_max_num(m, d, is_min) for m, d in zip(ms, ds, strict=True)]
        check([x & M32 for x in mem], [w & M32 for w in want], what + " (memory, low)")
        check([x >> 32 for x in mem], [w >> 32 for w in want], what + " (memory, high)")
    for k, what in ((8, "global_atomic_min_num_f64 returned"), (10, "flat_atomic_max_num_f64 returned")):
        check(got[k], [m & M32 for m in ms], what + " (low)")
        check(got[k + 1], [m >> 32 for m in ms], what + " (high)")
    abc = list(zip(a, b, c, strict=True))
    check(got[12], [_add_mm(x, y, z, True, False) for x, y, z in abc], "v_add_min_i32")
    check(got[13], [_add_mm(x, y, z, True, True) for x, y, z in abc], "v_add_max_i32")
    check(got[14], [_add_mm(x, y, z, False, False) for x, y, z in abc], "v_add_min_u32")
    check(got[15], [_add_mm(x, y, z, False, True) for x, y, z in abc], "v_add_max_u32")
    check(got[16], [_pk(x, y, z, False, False) for x, y, z in abc], "v_pk_add_min_u16")
    check(got[17], [_pk(x, y, z, True, True) for x, y, z in abc], "v_pk_add_max_i16")
    check(got[18], [_pk(x, y, z, True, False) for x, y, z in abc], "v_pk_add_min_i16")
    check(got[19], [_pk(x, y, z, False, True, (1, 0, 0), (0, 1, 1)) for x, y, z in abc],
          "v_pk_add_max_u16 op_sel:[1,0,0] op_sel_hi:[0,1,1]")
    check(got[20], [_add_mm(x, 5, z, False, False) for x, _, z in abc], "v_add_min_u32 with an inline constant")
    check(got[21], [_bf16(x) | _bf16(y) << 16 for x, y, _ in abc], "v_cvt_pk_bf16_f32")
    check(got[22], [0] * LANES, "s_get_shader_cycles_u64 does not go back (high word of the difference)")


def test_add_min_with_clamp_stops_the_wave() -> None:
    m = Machine(EDGES / "addmin_clamp-gfx1250.co")
    m.dispatch("addmin_clamp", (LANES, 1, 1), (LANES, 1, 1), [f"buf:u32:{LANES}:iota", f"buf:u32:{LANES}"])
    r = m.run(max_instructions=1000)
    assert r.status == "unsupported", r.reason
    assert "v_add_min_u32 v4, v0, v1, v0 clamp" in r.reason and "clamp" in r.reason
    assert read_buffer(m, m.buffers[1]) == [0] * LANES
