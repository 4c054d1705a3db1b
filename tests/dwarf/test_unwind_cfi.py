"""CFI unwinding on the hand-made corefiles/handmade/cfi_aspace.co (rules checked against llvm-dwarfdump-22 in
tests/dwarf/cfi). Expected caller registers follow DWARF 5 section 6.4.2.3 register rules as amended by the
heterogeneous extension (A.6.4.2.3): offset(N) "the previous value of this register is saved at the address
CFA+N" where the CFA is a location in its address space; val_offset(N) "is the value CFA+N";
register(R) "stored in another register R"; expression(E) "the location of the register is the location
description produced by executing E" with the CFA pushed first; undefined "the register ... cannot be
recovered"; and USAGE's VGPR spill rule "the zero-single location description is the vector register, and
the one-single location description is the spilled memory location description".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amddbg.amdgpu import AddressSpace
from amddbg.dwarf.expr import Location, StaticContext, UndefinedLocation
from amddbg.dwarf.unwind import CodeInfo, Method, unwind

HANDMADE = Path(__file__).resolve().parents[2] / "corefiles" / "handmade"
S, V = 32, 2560


@pytest.fixture(scope="module")
def code():
    from amddbg.codeobj import CodeObject

    return CodeInfo.from_code_object(CodeObject.from_path(HANDMADE / "cfi_aspace.co"))


def scratch_word(addr: int) -> int:
    return int.from_bytes(bytes(((addr + i) * 3) & 0xFF for i in range(4)), "little")


def state(pc: int, ret: int, exec_mask: int) -> StaticContext:
    regs = {16: pc, 17: exec_mask, S + 30: ret & 0xFFFFFFFF, S + 31: ret >> 32, S + 32: 0x900, S + 33: 0x800,
            V + 0: [1] * 64, V + 2: [0x22] * 64, V + 3: [0x300 + n for n in range(64)],
            V + 40: [0x4000 + n for n in range(64)], V + 41: [0x4100 + n for n in range(64)], V + 1: [7] * 64}
    scratch = {0: bytes((i * 3) & 0xFF for i in range(0x1000))}
    return StaticContext(regs, {AddressSpace.PRIVATE_WAVE: scratch}, wave_size=64)


def test_unwind_func_with_every_rule_kind(code):
    kern = next(f for f in code.functions if f.name == "kern")
    ctx = state(0x1314, kern.address + 4, 0x0000_0000_FFFF_FFFF)
    frames = unwind(ctx, code)
    assert [(f.name, f.method, f.rules_from) for f in frames] == [("func", Method.CONTEXT, "cfi"),
                                                                 ("kern", Method.CFI, "cfi")]
    cfa = 0x800 + 16  # CFA = SGPR33+16 in addrspace6 at 0x1314
    assert frames[0].cfa == Location.memory(AddressSpace.PRIVATE_WAVE, cfa)
    caller = frames[1].context
    assert frames[1].pc == kern.address + 4
    assert caller.read_register(S + 33) == scratch_word(cfa)  # offset(0): [CFA]
    assert caller.read_register(S + 34) == cfa - 8  # val_offset(-8)
    assert caller.read_register(S + 35) == scratch_word(cfa - 12)  # offset(-12)
    assert caller.read_register(S + 45) == 0x4100 + 11  # v41 lane 11 (offset_uconst 0x2c)
    assert caller.read_register(V + 2, lane=9) == 0x300 + 9  # register(VGPR3)
    with pytest.raises(UndefinedLocation):
        caller.read_register(V + 0, lane=0)  # undefined
    # v40 under EXEC: lanes whose entry EXEC bit is 1 come from CFA + 0x100 + 4*lane, the others from v40
    assert caller.read_register(V + 40, lane=5) == scratch_word(cfa + 0x100 + 4 * 5)
    assert caller.read_register(V + 40, lane=50) == 0x4000 + 50
    assert caller.read_register(17) == 0xFFFF_FFFF  # same_value
    # the kernel FDE: CFA = lit0 lit6 form_aspace_address, PC undefined -> outermost
    assert frames[1].outermost and frames[1].cfa == Location.memory(AddressSpace.PRIVATE_WAVE, 0)


def test_flat_scratch_cfa_expression_and_pc_in_vgpr_lanes(code):
    """`flat`: CFA = (SGPR32 deref_size 4) << 6 in private_wave; at +4 the PC lives in lanes 0/1 of v1
    (DW_OP_bit_piece 32 at bit offsets 0 and 32)."""
    flat = next(f for f in code.functions if f.name == "flat")
    ctx = state(flat.address + 4, 0, 1)
    ctx.registers[V + 1] = [0x1404 - 0, 0] + [0] * 62  # PC = 0x1404 (kern + 4)
    frames = unwind(ctx, code)
    assert frames[0].cfa == Location.memory(AddressSpace.PRIVATE_WAVE, 0x900 << 6)
    assert frames[1].pc == 0x1404 and frames[1].name == "kern"


def test_val_expression_pc_zero_leaves_the_code_object():
    from amddbg.codeobj import CodeObject

    raw = CodeInfo.from_code_object(CodeObject.from_path(HANDMADE / "frame_raw.co"))
    r1 = next(f for f in raw.functions if f.name == "r1")
    frames = unwind(StaticContext({16: r1.address + 12, S + 33: 0x100}, wave_size=64), raw)
    assert frames[-1].pc == 0 and "outside the code object" in frames[-1].stop_reason
