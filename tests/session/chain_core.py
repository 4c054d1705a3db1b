"""A core whose answers are known by construction: a real gfx90a code object (clang-22, -O2 HIP), one wave
stopped in `third_level`, called kernel `probe<int>` -> first_level -> second_level -> third_level.

Registers and scratch are what the prologues in the stored llvm-objdump-22 disassembly leave (see
tests/dwarf/test_unwind_abi.py, whose synthetic state this core carries): s30/s31 the return address into
second_level, s32/s33 SP/FP, s6/s7 the callers' saved FPs, v6/v10 lanes 0-1 the return addresses spilled by
v_writelane, the callers' v6/v10 saved in scratch. Per-lane values: v0 = x_of_lane(lane) (third_level's x)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CO = ROOT / "corefiles" / "co"
NAME = "llvm22-gfx90a-w64-O2-hip.co"
KERNEL, FIRST, SECOND, THIRD = ("_Z5probeIiEvPT_PiS2_i", "_Z11first_leveliP6Sample", "_Z12second_leveliP6Sample",
                                "_Z11third_leveli")
LOAD = 0x7F00_1000_0000
SCRATCH = 0x7F00_2000_0000
KERNARG = 0x7F00_3000_0000
ARGBUF = 0x4000_0000  # a VGPR holds 32 bits: the generic address must fit


def x_of_lane(lane: int) -> int:
    return 7 if lane < 32 else 9 + (lane == 63)


def disassembly(name: str = NAME) -> dict[str, list[tuple[int, str]]]:
    funcs: dict[str, list[tuple[int, str]]] = {}
    cur = None
    for line in (CO / f"{name}.objdump.txt").read_text().splitlines():
        m = re.match(r"^([0-9a-f]{16}) <(.+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(2), [])
            continue
        m = re.match(r"^\t(.*?)\s*// ([0-9A-F]{12}):", line)
        if m and cur is not None:
            cur.append((int(m.group(2), 16), m.group(1)))
    return funcs


def calls(funcs, caller: str) -> dict[str, int]:
    by_addr = {ins[0][0]: name for name, ins in funcs.items() if ins}
    out, target = {}, None
    insns = funcs[caller]
    for i, (addr, text) in enumerate(insns):
        if text.startswith("s_getpc_b64"):
            nxt = next(t for _, t in insns[i + 1:i + 5] if re.match(r"s_add(_co)?_u32 ", t))
            imm = int(re.search(r"0x([0-9a-f]+)$", nxt).group(1), 16)
            target = addr + 4 + (imm - (1 << 32) if imm >> 31 else imm)
        if text.startswith("s_swappc_b64 s[30:31]") and target in by_addr:
            out[by_addr[target]] = addr + 4
    return out


def build(path: Path, *, layout: str = "split") -> dict:
    """Write the core; return what the test should find (relative PCs and return addresses)."""
    from amddbg.codeobj import CodeObject
    from amddbg.core.writer import CoreBuilder

    funcs = disassembly()
    ra_first = calls(funcs, KERNEL)[FIRST]
    ra_second = calls(funcs, FIRST)[SECOND]
    ra_third = calls(funcs, SECOND)[THIRD]
    pc = next(a for a, t in funcs[THIRD] if t.startswith("v_mad_u32_u24"))
    data = (CO / NAME).read_bytes()
    co = CodeObject.from_bytes(data, name=NAME)
    k = co.kernel(KERNEL)
    b = CoreBuilder(arch="gfx90a", pid=4321)
    agent = b.add_agent("gfx90a", gpu_id=0x1234)
    b.add_code_object(data, load_address=LOAD)
    q = b.add_queue(agent, queue_id=2, read_dispatch_id=5, scratch_backing_memory_location=SCRATCH,
                    scratch_backing_memory_byte_size=0x100000, compute_tmpring_size=(8 | (64 << 12)))
    d = b.add_dispatch(q, kernel_object=LOAD + k.descriptor_symbol.address, grid=(128, 1, 1),
                       workgroup=(64, 1, 1), kernarg_address=KERNARG, private_segment_size=0x2000)
    kernel_sp = 0x1400
    absolute = [LOAD + r for r in (ra_first, ra_second, ra_third)]
    v10 = [0xA000 + n for n in range(64)]
    v10[0], v10[1] = absolute[0] & 0xFFFFFFFF, absolute[0] >> 32
    v6 = [0x6000 + n for n in range(64)]
    v6[0], v6[1] = absolute[1] & 0xFFFFFFFF, absolute[1] >> 32
    # clang-22 -O2 describes third_level's `x` as DW_OP_bregx VGPR0, lit1, swap, xderef: clang's declare
    # annotation kept on the value in v0 (amddbg.dwarf.expr.promoted), so x is the lane's dword of v0 (a
    # reader that dereferenced v0 would read addresses 7..10, which the core does not hold).
    v0 = [x_of_lane(lane) for lane in range(64)]
    sgprs = [0] * 40
    sgprs[6], sgprs[7] = kernel_sp, 0
    sgprs[30], sgprs[31] = absolute[2] & 0xFFFFFFFF, absolute[2] >> 32
    sgprs[32], sgprs[33] = kernel_sp + 0x800, kernel_sp + 0x400
    vgprs = [v0] + [[0] * 64 for _ in range(5)] + [v6] + [[0] * 64 for _ in range(3)] + [v10] + [[0] * 64] * 5
    b.add_wave(d, workgroup=(1, 0, 0), wave_in_group=0, pc=LOAD + pc, exec=(1 << 64) - 1, stopped=True,
               sgprs=sgprs, vgprs=vgprs, scratch_en=True, sgpr_count=48)
    scratch = bytearray(0x2000)
    scratch[kernel_sp + 0x400:kernel_sp + 0x500] = bytes((0x60 + i) & 0xFF for i in range(256))
    scratch[kernel_sp:kernel_sp + 0x100] = bytes((0x10 + i) & 0xFF for i in range(256))
    b.add_memory(SCRATCH, bytes(scratch))
    b.add_memory(KERNARG, bytes(64))
    b.add_memory(ARGBUF, b"".join(x_of_lane(ln).to_bytes(4, "little", signed=True) for ln in range(64)))
    if layout == "split":
        b.write_split(str(path))
    else:
        b.write_unified(str(path))
    return {"pc": pc, "ra": (ra_third, ra_second, ra_first), "funcs": funcs}
