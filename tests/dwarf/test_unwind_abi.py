"""ABI-fallback unwinding on real corpus code (upstream FDEs are empty).

The synthetic wave state is built from the code itself: call sites and callees are read from the stored
llvm-objdump-22 disassembly (`*.co.objdump.txt`), and registers / scratch are filled the way the prologues
shown there would have left them. Expected frames follow the AMDGPU manual's call convention:
"SGPR30-31 return address (RA)", "SGPR32 is used for the stack pointer (SP). It is an unswizzled scratch
offset relative to the beginning of the wavefront scratch backing memory", "SGPR33 is used as a frame
pointer (FP) if necessary", "CFI will be generated that defines the CFA as the unswizzled address relative
to the wave scratch base in the unswizzled private address space of the lowest address stack allocated local
variable", and for flat-scratch targets the per-lane SP scaled by the wave size (reference §6.4).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from amddbg.amdgpu import AddressSpace
from amddbg.dwarf.expr import Location, StaticContext, UndefinedLocation
from amddbg.dwarf.unwind import CodeInfo, Method, abi_row, unwind

CO = Path(__file__).resolve().parents[2] / "corefiles" / "co"
S = 32
V = 2560  # wave64 VGPRn = 2560 + n


def disassembly(name: str) -> dict[str, list[tuple[int, str]]]:
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
    """callee name -> return address of the s_swappc_b64 calling it (from s_getpc + s_add_u32 targets)."""
    by_addr = {ins[0][0]: name for name, ins in funcs.items() if ins}
    out = {}
    target = None
    insns = funcs[caller]
    for i, (addr, text) in enumerate(insns):
        if text.startswith("s_getpc_b64"):
            nxt = next(t for _, t in insns[i + 1:i + 5] if re.match(r"s_add(_co)?_u32 ", t))
            imm = int(re.search(r"0x([0-9a-f]+)$", nxt).group(1), 16)
            target = addr + 4 + (imm - (1 << 32) if imm >> 31 else imm)
        if text.startswith("s_swappc_b64 s[30:31]") and target in by_addr:
            out[by_addr[target]] = addr + 4
    return out


def first(funcs, name: str, prefix: str) -> int:
    return next(a for a, t in funcs[name] if t.startswith(prefix))


@pytest.fixture(scope="module")
def gfx90a():
    from amddbg.codeobj import CodeObject

    name = "llvm22-gfx90a-w64-O2-hip.co"
    return CodeInfo.from_code_object(CodeObject.from_path(CO / name)), disassembly(name)


KERNEL, FIRST, SECOND, THIRD = ("_Z5probeIiEvPT_PiS2_i", "_Z11first_leveliP6Sample", "_Z12second_leveliP6Sample",
                                "_Z11third_leveli")


def test_call_chain_from_the_disassembly(gfx90a):
    _, funcs = gfx90a
    assert FIRST in calls(funcs, KERNEL) and SECOND in calls(funcs, FIRST) and THIRD in calls(funcs, SECOND)
    # the prologue the unwinder must understand (llvm-objdump text)
    texts = [t for _, t in funcs[SECOND][:12]]
    assert texts[1] == "s_mov_b32 s6, s33" and texts[2] == "s_mov_b32 s33, s32"
    assert texts[4] == "buffer_store_dword v6, off, s[0:3], s33" and texts[6] == "s_addk_i32 s32, 0x400"
    assert "v_writelane_b32 v6, s30, 0" in texts and "v_writelane_b32 v6, s31, 1" in texts


def state_in_third_level(funcs, exec_mask=0xFFFF_FFFF):
    """Wave state while third_level runs, called kernel -> first_level -> second_level -> third_level.

    kernel: `s_movk_i32 s32, 0x1400`, FP 0; first_level: s7 = s33, s33 = s32, v10 stored at [s33],
    s32 += 0x400, writelane v10 lanes 0/1 = s30/s31; second_level: s6 = s33, s33 = s32, v6 stored at [s33],
    s32 += 0x400, writelane v6 lanes 0/1 = s30/s31."""
    ra_first = calls(funcs, KERNEL)[FIRST]
    ra_second = calls(funcs, FIRST)[SECOND]
    ra_third = calls(funcs, SECOND)[THIRD]
    kernel_sp = 0x1400
    v10 = [0xA000 + n for n in range(64)]
    v10[0], v10[1] = ra_first & 0xFFFFFFFF, ra_first >> 32
    v6 = [0x6000 + n for n in range(64)]
    v6[0], v6[1] = ra_second & 0xFFFFFFFF, ra_second >> 32
    pc = first(funcs, THIRD, "v_mad_u32_u24")
    regs = {16: pc, 17: exec_mask, S + 30: ra_third & 0xFFFFFFFF, S + 31: ra_third >> 32,
            S + 32: kernel_sp + 0x800, S + 33: kernel_sp + 0x400, S + 6: kernel_sp, S + 7: 0,
            V + 6: v6, V + 10: v10}
    # caller's v6 / v10 (whole wave) saved by buffer_store_dword at [s33] of each frame: lane L at +4L
    scratch = {kernel_sp + 0x400: bytes((0x60 + i) & 0xFF for i in range(256)),
               kernel_sp: bytes((0x10 + i) & 0xFF for i in range(256))}
    return StaticContext(regs, {AddressSpace.PRIVATE_WAVE: scratch}, wave_size=64), (ra_first, ra_second, ra_third)


def test_unwind_through_three_calls_to_the_kernel(gfx90a):
    code, funcs = gfx90a
    ctx, (ra_first, ra_second, ra_third) = state_in_third_level(funcs)
    frames = unwind(ctx, code)
    assert [(f.name, f.pc, f.method) for f in frames] == [
        (THIRD, ctx.registers[16], Method.CONTEXT), (SECOND, ra_third, Method.ABI),
        (FIRST, ra_second, Method.ABI), (KERNEL, ra_first, Method.ABI)]
    assert [f.rules_from for f in frames] == ["abi", "abi", "abi", "abi-kernel"]
    assert frames[-1].outermost and "outermost" in frames[-1].stop_reason
    # CFA = SP on entry, in private_wave (unswizzled)
    assert [f.cfa for f in frames[:3]] == [Location.memory(AddressSpace.PRIVATE_WAVE, a)
                                          for a in (0x1C00, 0x1800, 0x1400)]
    # FP/SP of each frame: s33 restored from s6 / s7, s32 = the callee's CFA
    assert [f.context.read_register(S + 33) for f in frames] == [0x1800, 0x1800, 0x1400, 0]
    assert [f.context.read_register(S + 32) for f in frames] == [0x1C00, 0x1C00, 0x1800, 0x1400]


def test_spilled_vgpr_lanes_come_back_from_scratch(gfx90a):
    """Inactive lanes of a VGPR are preserved across calls ("Lanes of all VGPRs that are inactive at the call
    site"); the callee saved v6 with buffer_store_dword under `s_xor_saveexec_b64 ..., -1`, so the caller's
    inactive lanes come from scratch at CFA + 4*lane, and its active lanes (v6 is a clobbered register) are
    undefined."""
    code, funcs = gfx90a
    ctx, _ = state_in_third_level(funcs, exec_mask=0x0000_0000_FFFF_FFFF)
    frames = unwind(ctx, code)
    first_level = frames[2].context
    assert first_level.read_register(V + 6, lane=40) == int.from_bytes(
        bytes((0x60 + 160 + i) & 0xFF for i in range(4)), "little")
    with pytest.raises(UndefinedLocation):
        first_level.read_register(V + 6, lane=3)


@pytest.mark.parametrize("where, cfa_reg, pc_from", [
    ("s_waitcnt", 32, "s30"),  # first instruction: nothing saved yet, CFA = SP
    ("s_xor_saveexec_b64", 33, "s30"),  # after s_mov_b32 s33, s32
    ("s_getpc_b64", 33, "v6"),  # after v_writelane_b32 v6, s30, 0 (s31 not yet: live in s31)
])
def test_prologue_positions(gfx90a, where, cfa_reg, pc_from):
    code, funcs = gfx90a
    func = code.function_at(funcs[SECOND][0][0])
    row, _ = abi_row(code, func, first(funcs, SECOND, where))
    assert row.cfa.register == 32 + cfa_reg and row.cfa.aspace == 6
    from amddbg.dwarf.expr import decode

    first_op = decode(row.rule(16).expression)[0]
    assert first_op.operands[0] == (V + 6 if pc_from == "v6" else S + 30)


def test_swizzled_stack_on_gfx942():
    """gfx942 has architected flat scratch: SP/FP are per-lane (`s_add_i32 s32, s32, 16`), so the CFA is
    FP * wave size in private_wave (upstream-main CFI: DW_OP_regx SGPR32, DW_OP_deref_size 4, DW_OP_lit6,
    DW_OP_shl, DW_OP_lit6, DW_OP_LLVM_form_aspace_address)."""
    from amddbg.codeobj import CodeObject

    name = "llvm22-gfx942-w64-O2-hip.co"
    funcs = disassembly(name)
    code = CodeInfo.from_code_object(CodeObject.from_path(CO / name))
    assert code.swizzled_stack
    ra_first, ra_second, ra_third = (calls(funcs, KERNEL)[FIRST], calls(funcs, FIRST)[SECOND],
                                     calls(funcs, SECOND)[THIRD])
    assert "s_movk_i32 s32, 0x50" in [t for _, t in funcs[KERNEL]]
    v_first = [0] * 64
    v_first[0], v_first[1] = ra_first & 0xFFFFFFFF, ra_first >> 32
    v_second = [0] * 64
    v_second[0], v_second[1] = ra_second & 0xFFFFFFFF, ra_second >> 32
    spill_first = next(t for _, t in funcs[FIRST] if t.startswith("v_writelane_b32")).split()[1].rstrip(",")
    spill_second = next(t for _, t in funcs[SECOND] if t.startswith("v_writelane_b32")).split()[1].rstrip(",")
    regs = {16: first(funcs, THIRD, "v_mad_u32_u24"), 17: (1 << 64) - 1, S + 30: ra_third & 0xFFFFFFFF,
            S + 31: ra_third >> 32, S + 32: 0x70, S + 33: 0x60, S + 2: 0x50, S + 3: 0,
            V + int(spill_first[1:]): v_first, V + int(spill_second[1:]): v_second}
    frames = unwind(StaticContext(regs, {}, wave_size=64), code)
    assert [f.name for f in frames] == [THIRD, SECOND, FIRST, KERNEL]
    assert [f.cfa for f in frames[:3]] == [Location.memory(AddressSpace.PRIVATE_WAVE, a * 64)
                                          for a in (0x70, 0x60, 0x50)]


def test_kernel_frame_alone_is_outermost(gfx90a):
    code, funcs = gfx90a
    pc = funcs[KERNEL][3][0]
    frames = unwind(StaticContext({16: pc}, wave_size=64), code)
    assert len(frames) == 1 and frames[0].outermost and frames[0].cfa == Location.memory(
        AddressSpace.PRIVATE_WAVE, 0)


def test_unknown_pc_stops_with_a_reason(gfx90a):
    code, _ = gfx90a
    frames = unwind(StaticContext({16: 0x10}, wave_size=64), code)
    assert len(frames) == 1 and "no function covers" in frames[0].stop_reason


def _chain_state(name: str):
    """Registers for third_level called through kernel -> first_level -> second_level, derived from the
    llvm-objdump text of each prologue (SP increment, FP save register, VGPR holding s30/s31)."""
    funcs = disassembly(name)
    wave = 32 if "-w32-" in name else 64

    def grab(func, pattern):
        for _, t in funcs[func]:
            m = re.match(pattern, t)
            if m:
                return m.group(1)
        raise AssertionError((func, pattern))

    kernel_sp = int(grab(KERNEL, r"s_mov(?:k_i32|_b32) s32, (0x[0-9a-f]+|\d+)$"), 0)
    fp_save = {f: int(grab(f, r"s_mov_b32 s(\d+), s33$")) for f in (FIRST, SECOND)}
    ra_vgpr = {f: int(grab(f, r"v_writelane_b32 v(\d+), s30, 0$")) for f in (FIRST, SECOND)}
    inc = {f: int(grab(f, r"s_add(?:k_i32 s32,|_i32 s32, s32,|_co_i32 s32, s32,) (0x[0-9a-f]+|\d+)$"), 0)
           for f in (FIRST, SECOND)}
    ra = {FIRST: calls(funcs, KERNEL)[FIRST], SECOND: calls(funcs, FIRST)[SECOND],
          THIRD: calls(funcs, SECOND)[THIRD]}
    vbase = 2560 if wave == 64 else 1536
    sp_first = kernel_sp
    sp_second = sp_first + inc[FIRST]
    regs = {16: funcs[THIRD][1][0], 17 if wave == 64 else 1: (1 << wave) - 1,
            S + 30: ra[THIRD] & 0xFFFFFFFF, S + 31: ra[THIRD] >> 32,
            S + 32: sp_second + inc[SECOND], S + 33: sp_second,
            S + fp_save[SECOND]: sp_first, S + fp_save[FIRST]: 0}
    for f, callee_ra in ((FIRST, ra[FIRST]), (SECOND, ra[SECOND])):
        lanes = [0] * wave
        lanes[0], lanes[1] = callee_ra & 0xFFFFFFFF, callee_ra >> 32
        regs[vbase + ra_vgpr[f]] = lanes
    swizzled = inc[SECOND] < 16 * wave  # a per-lane frame size rather than a wave-scaled one
    return regs, wave, swizzled, (sp_second + inc[SECOND], sp_second, sp_first), ra


@pytest.mark.parametrize("name", [
    "llvm22-gfx906-w64-O2-hip.co", "llvm22-gfx908-w64-O2-hip.co", "llvm22-gfx950-w64-O2-hip.co",
    "llvm22-gfx1030-w32-O2-hip.co", "llvm22-gfx1030-w64-O2-hip.co", "llvm22-gfx1100-w32-O2-hip.co",
    "llvm22-gfx1100-w64-O2-hip.co", "llvm22-gfx1200-w32-O2-hip.co", "llvm22-gfx1201-w32-O2-hip.co",
    "llvm19-gfx90a-w64-O2-hip.co", "llvm19-gfx1100-w32-O2-hip.co", "llvm22-gfx90a-w64-O0-hip.co",
    "llvm22-gfx1100-w32-O0-hip.co", "llvm19-gfx906-w64-O0-hip.co", "llvm22-gfx942-w64-O0-hip.co",
    "llvm22-gfx1200-w64-O0-hip.co",
])
def test_unwind_chain_across_targets(name):
    from amddbg.codeobj import CodeObject

    regs, wave, swizzled, sps, ra = _chain_state(name)
    code = CodeInfo.from_code_object(CodeObject.from_path(CO / name))
    assert code.wave_size == wave and code.swizzled_stack == swizzled
    frames = unwind(StaticContext(regs, {}, wave_size=wave), code)
    assert [f.name for f in frames] == [THIRD, SECOND, FIRST, KERNEL], frames[-1].stop_reason
    assert [f.pc for f in frames[1:]] == [ra[THIRD], ra[SECOND], ra[FIRST]]
    scale = wave if swizzled else 1
    assert [f.cfa for f in frames[:3]] == [Location.memory(AddressSpace.PRIVATE_WAVE, sp * scale) for sp in sps]
    assert frames[-1].outermost


def test_frames_for_lane_drop_frames_the_lane_did_not_enter(gfx90a):
    """USAGE: "Conceptually the lane only has the call frames that it has a non-undefined
    DW_AT_LLVM_lane_pc". Frame 0's lane PCs say lane 1 never entered third_level; lane 0 is active."""
    from amddbg.dwarf.expr import LanePC
    from amddbg.dwarf.expr.lanes import LaneState
    from amddbg.dwarf.unwind import frames_for_lane

    code, funcs = gfx90a
    ctx, _ = state_in_third_level(funcs)
    frames = unwind(ctx, code)

    def lane_pcs_of(frame):
        if frame.index == 0:
            return [LanePC(0, frame.pc, LaneState.ACTIVE), LanePC(1, None, LaneState.NOT_IN_FRAME)]
        return [LanePC(0, frame.pc, LaneState.ACTIVE), LanePC(1, frame.pc + 8, LaneState.DIVERGENT)]

    lane0 = frames_for_lane(frames, 0, lane_pcs_of)
    lane1 = frames_for_lane(frames, 1, lane_pcs_of)
    assert [f.frame.name for f in lane0] == [THIRD, SECOND, FIRST, KERNEL]
    assert [f.frame.name for f in lane1] == [SECOND, FIRST, KERNEL]
    assert lane1[0].pc == frames[1].pc + 8 and lane1[0].state == "divergent"
