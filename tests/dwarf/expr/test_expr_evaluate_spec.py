"""Evaluation of the hand-made expressions (read from corefiles/handmade/ops_user.co and ops_draft.co) over a
register/memory context. Each expected result is derived from the specification sentence quoted in the
docstring: EXT = "DWARF Extensions For Heterogeneous Debugging" (llvm/docs/AMDGPUDwarfExtensionsFor
HeterogeneousDebugging.rst), USAGE = the AMDGPU backend manual (/work/shared/spec/amdgpu-usage.txt),
DWARF5 = the DWARF 5 standard.
"""

from __future__ import annotations

import struct

import pytest
from conftest import handmade_dies

from amddbg.amdgpu import AddressSpace
from amddbg.dwarf.expr import (
    AddressSpaceError,
    BaseType,
    Encoding,
    EvaluationError,
    Evaluator,
    Location,
    StaticContext,
    UndefinedLocation,
    active_mask,
    dwarf_aspace,
    evaluate,
    evaluate_lanes,
    lane_pcs,
    read_bits,
    xderef_map,
)
from amddbg.dwarf.expr.lanes import LaneState
from amddbg.dwarf.expr.location import Composite, ImplicitPointer, Memory, Register

V0, V1, V2, V3 = 2560, 2561, 2562, 2563  # wave64 VGPR numbers (USAGE "DWARF Register Mapping")
S = 32  # SGPRn = 32 + n
WAVE = 64


def regs() -> dict:
    return {
        0: 0x1234,  # PC_32
        16: 0x1234,  # PC_64
        17: 0xFFFF_FFFF_FFFF_FFFF,
        S + 1: 0x40,
        S + 4: 0x11223344,
        S + 33: 0x1000,
        V0: [0x100 + n for n in range(WAVE)],
        V1: [0x200 + n for n in range(WAVE)],
        # a generic pointer per lane split over v2 (low) / v3 (high): local aperture (1 << 48) + 0x20
        V2: [0x20 + 4 * n for n in range(WAVE)],
        V3: [0x1_0000] * WAVE,
    }


def ctx(**kw) -> StaticContext:
    memory = {
        AddressSpace.PRIVATE_WAVE: {0: bytes((i * 7) & 0xFF for i in range(0x4000))},
        AddressSpace.LOCAL: {0: bytes(range(256))},
        AddressSpace.GLOBAL: {0x1000: bytes(range(64))},
    }
    return StaticContext(regs(), memory, wave_size=WAVE, **kw)


def wave_word(address: int) -> int:
    return int.from_bytes(bytes(((address + i) * 7) & 0xFF for i in range(4)), "little")


def test_form_aspace_address(user_exprs):
    """EXT DW_OP_LLVM_form_aspace_address: "pops top two stack entries. The first must be an integral type
    value that represents a target architecture specific address space identifier AS. The second must be an
    integral type value that represents an address A." ... "It pushes a location description L with one
    memory location description SL on the stack. SL specifies the memory location storage LS that
    corresponds to AS with a bit offset equal to A' scaled by 8 (the byte size)." USAGE: 0x06 is
    DW_ASPACE_AMDGPU_private_wave."""
    loc = evaluate(user_exprs["form_aspace_address"], ctx())
    assert loc == Location.memory(AddressSpace.PRIVATE_WAVE, 0x100)
    assert read_bits(ctx(), loc, 32) == wave_word(0x100)


def test_push_lane_is_lane_dependent_and_vectorised(user_exprs):
    """EXT: "DW_OP_LLVM_push_lane pushes the current lane as a value with the generic type." USAGE: "the lane
    identifier corresponds to the hardware lane ID of a wavefront. It is numbered from 0 to the wavefront size
    minus 1"."""
    res = evaluate_lanes(user_exprs["push_lane"], ctx(), range(WAVE))
    assert not res.uniform and res.evaluations == WAVE
    assert [read_bits(ctx(), res.locations[n], 64) for n in range(WAVE)] == list(range(WAVE))
    with pytest.raises(EvaluationError):
        evaluate(user_exprs["push_lane"], ctx())  # no lane in the context


def test_offset_selects_the_lane_dword_of_a_vector_register(user_exprs):
    """USAGE: vector registers "are organized as consecutive dwords (32-bits), one per lane, with the dword at
    the least significant bit position corresponding to lane 0 ... DW_OP_LLVM_offset and
    DW_OP_LLVM_push_lane ... select the part of the vector register corresponding to the lane". EXT
    DW_OP_LLVM_offset: "It adds the value of B scaled by 8 (the byte size) to the bit offset of each single
    location description SL of L, and pushes the updated L."."""
    for lane in (0, 5, 63):
        loc = evaluate(user_exprs["offset"], ctx(), lane=lane)
        assert loc == Location.register(V0, 32 * lane)
        assert read_bits(ctx(), loc, 32) == 0x100 + lane


def test_offset_uconst(user_exprs):
    """EXT DW_OP_LLVM_offset_uconst: "The operation is equivalent to performing DW_OP_constu B;
    DW_OP_LLVM_offset"."""
    loc = evaluate(user_exprs["offset_uconst"], ctx())
    assert loc == Location.register(V0, 12 * 8)
    assert read_bits(ctx(), loc, 32) == 0x103  # lane 3's dword


def test_bit_offset(user_exprs):
    """EXT DW_OP_LLVM_bit_offset: "pops two stack entries. The first must be an integral type value that
    represents a bit displacement B. The second must be a location description L. It adds the value of B to
    the bit offset of each single location description SL of L, and pushes the updated L."."""
    loc = evaluate(user_exprs["bit_offset"], ctx())
    assert loc == Location.register(S + 4, 8)
    assert read_bits(ctx(), loc, 8) == 0x33  # bits 8..15 of 0x11223344 (USAGE: LSB first)


def test_offset_past_the_storage_is_an_error():
    """EXT DW_OP_LLVM_offset: "It is an evaluation error if the updated bit offset of any SL is less than 0 or
    greater than or equal to the size of the location storage specified by SL" (a wave64 VGPR: 64*32 bits)."""
    from amddbg.dwarf.expr import encode

    data = encode([("DW_OP_regx", V0), ("DW_OP_LLVM_offset_uconst", 256)])
    with pytest.raises(EvaluationError, match="outside its storage"):
        evaluate(data, ctx())


def test_call_frame_entry_reg(user_exprs):
    """EXT DW_OP_LLVM_call_frame_entry_reg: "It pushes a location description L that holds the value of
    register R on entry to the current subprogram as defined by the call frame information" (the context's
    CFI answer)."""
    saved = Location.memory(AddressSpace.PRIVATE_WAVE, 0x80)
    loc = evaluate(user_exprs["call_frame_entry_reg"], ctx(entry_registers={17: saved}))
    assert loc == saved


def test_undefined(user_exprs):
    """EXT: "DW_OP_LLVM_undefined pushes a location description L that comprises one undefined location
    description SL." DW_OP_deref_type: "It is an evaluation error if any bit of the value is retrieved from
    the undefined location storage"."""
    loc = evaluate(user_exprs["undefined"], ctx())
    assert loc.is_undefined
    with pytest.raises(UndefinedLocation):
        read_bits(ctx(), loc, 32)


def test_aspace_bregx(user_exprs):
    """EXT DW_OP_LLVM_aspace_bregx: "The second is a signed LEB128 integer that represents a byte
    displacement B. It pops one stack entry that is required to be an integral type value that represents a
    target architecture specific address space identifier AS. The action is the same as for DW_OP_breg<N>,
    except that R is used as the register number, B is used as the byte displacement, and AS is used as the
    address space identifier." 3 = DW_ASPACE_AMDGPU_local, 6 = private_wave."""
    assert evaluate(user_exprs["aspace_bregx"], ctx()) == Location.memory(AddressSpace.LOCAL, 0x40 + 16)
    assert evaluate(user_exprs["aspace_bregx_negative"], ctx()) == Location.memory(
        AddressSpace.PRIVATE_WAVE, 0x1000 - 4)


def test_piece_end_completes_a_composite(user_exprs):
    """EXT DW_OP_LLVM_piece_end: "If the top stack entry is not a location description L comprised of one
    incomplete composite location description SL, then the DWARF expression is ill-formed. Otherwise, the
    incomplete composite location storage LS specified by SL is updated to be a complete composite location
    description with the same parts." DW_OP_piece: a part "has a bit size of S scaled by 8" taken from the
    start of the part location (lane 0's dword of a whole VGPR)."""
    loc = evaluate(user_exprs["piece_end"], ctx())
    comp = loc.single.storage
    assert isinstance(comp, Composite) and comp.complete and [p.bits for p in comp.parts] == [32, 32]
    assert read_bits(ctx(), loc, 64) == (0x200 << 32) | 0x100
    with pytest.raises(EvaluationError, match="piece_end"):
        from amddbg.dwarf.expr import encode

        evaluate(encode([("DW_OP_lit0",), ("DW_OP_LLVM_piece_end",)]), ctx())


def test_extend(user_exprs):
    """EXT DW_OP_LLVM_extend: "It pops one stack entry that must be a location description and is treated as
    the part location description PL." ... "A complete composite location storage LS is created with C
    identical parts P. Each P specifies PL and has a bit size of S."."""
    loc = evaluate(user_exprs["extend"], ctx())
    assert read_bits(ctx(), loc, 128) == int("000000aa" * 4, 16)


def test_select_bit_piece(user_exprs):
    """EXT DW_OP_LLVM_select_bit_piece: "It pops three stack entries. The first must be an integral type value
    that represents a bit mask value M. The second must be a location description that represents the
    one-location description L1. The third must be a location description that represents the zero-location
    description L0." ... "PL_N is as if the DW_OP_LLVM_bit_offset N*S operation was applied to PLX_N. PLX_N is
    the same as L0 if the Nth least significant bit of M is a zero, otherwise it is the same as L1." Mask 5
    picks PC (L1) for elements 0 and 2 and the undefined extension (L0) for 1 and 3."""
    loc = evaluate(user_exprs["select_bit_piece"], ctx())
    assert read_bits(ctx(), loc, 64) == 0x1234
    assert read_bits(ctx(), loc.offset_bits(128), 64) == 0x1234
    for n in (1, 3):
        with pytest.raises(UndefinedLocation):
            read_bits(ctx(), loc.offset_bits(64 * n), 64)


def test_aspace_implicit_pointer_draft_only(draft_exprs):
    """EXT DW_OP_LLVM_aspace_implicit_pointer: "It pops one stack entry that must be an integral type value
    that represents a target architecture specific address space identifier AS. The location description L
    that is pushed on the stack is the same as for DW_OP_implicit_pointer, except that the address space
    identifier used is AS." (No DW_OP_LLVM_user sub-opcode is assigned: draft encoding 0xe9.)"""
    die = handmade_dies("ops_draft")["int"]["<offset>"]
    loc = evaluate(draft_exprs["aspace_implicit_pointer"], ctx(), encoding=Encoding.AMD_DRAFT)
    assert loc.single.storage == ImplicitPointer(die, -2, AddressSpace.LOCAL)


def test_draft_and_user_encodings_evaluate_alike(user_exprs, draft_exprs):
    for name, data in draft_exprs.items():
        if name in user_exprs and not name.startswith(("push_lane", "typed_", "dwarf5_call", "dwarf5_push",
                                                       "call_frame", "corpus_", "fork_", "dwarf5_regs",
                                                       "dwarf5_deref_private", "offset")):
            assert evaluate(data, ctx(), encoding=Encoding.AMD_DRAFT) == evaluate(user_exprs[name], ctx()), name


# --------------------------------------------------------------------- shapes real compilers emit


def test_regx_pieces_whole_vgprs_per_lane(user_exprs):
    """Upstream clang: "DW_OP_regx <vgpr number> for the whole vector register — no lane selection" (reference
    §7.1). With the AMDGPU convention that the variable is the lane's dword (lane_slice_vector_registers),
    each lane reads its own dwords of v0 and v1; the evaluation is per lane."""
    res = evaluate_lanes(user_exprs["corpus_regx_pieces"], ctx(), range(WAVE), lane_slice_vector_registers=True)
    assert not res.uniform and res.evaluations == 1  # lane-affine: one symbolic evaluation
    for n in (0, 17, 63):
        assert read_bits(ctx(), res.locations[n], 64, lane=n) == ((0x200 + n) << 32) | (0x100 + n)


def test_fbreg_xderef_with_the_producers_numbering(user_exprs):
    """EXT DW_OP_xderef: "The operation is equivalent to performing DW_OP_swap;
    DW_OP_LLVM_form_aspace_address; DW_OP_deref. The value V retrieved is left on the stack with the generic
    type." LLVM <= 21 numbers private as 1 (clang getDWARFAddressSpace), LLVM 22 as
    DW_ASPACE_AMDGPU_private_lane = 5."""
    fb = Location.memory(AddressSpace.PRIVATE_LANE, 0x40, lane=2)
    c = ctx(frame_base=fb)
    old = Evaluator(c, lane=2, xderef_spaces=xderef_map("Debian clang version 19.1.7"))
    # xderef dereferences: the value read is the private_lane dword at 0x40+28 of lane 2
    old.run(user_exprs["corpus_fbreg_xderef"])
    expected = wave_word((0x5C // 4) * WAVE * 4 + 2 * 4)  # USAGE private_lane -> private_wave formula
    assert old.value().bits & 0xFFFFFFFF == expected
    new = Evaluator(c, lane=2, xderef_spaces=xderef_map("clang version 22.1.8")).run(
        user_exprs["corpus_fbreg_xderef5"])
    assert new.value().bits & 0xFFFFFFFF == expected


def test_lds_xderef_with_llvm19_numbering(user_exprs):
    """LLVM 19 LDS: "DW_OP_addrx 0x0, DW_OP_lit2, DW_OP_swap, DW_OP_xderef" with clang's map 2 = local."""
    ev = Evaluator(ctx(addresses=[0x10]), xderef_spaces=xderef_map("clang version 19.1.7"))
    ev.run(user_exprs["corpus_lds_xderef"])
    assert ev.value().bits == int.from_bytes(bytes(range(0x10, 0x18)), "little")


def test_bregx(user_exprs):
    """DWARF5 DW_OP_bregx: "the contents of the register specified by the first operand ... added to the
    second operand"; EXT: the result is a memory location in DW_ASPACE_LLVM_none."""
    assert evaluate(user_exprs["corpus_bregx"], ctx()) == Location.memory(AddressSpace.GLOBAL, 0x1008)


def test_fork_private_variable_gfx906(user_exprs):
    """AMD fork gfx906 stack variable: the FP is wave-scaled, so ``>> 6`` gives the private_lane address
    (USAGE: "swizzled SP = unswizzled SP / wavefront size"); reads go through the private_lane to
    private_wave formula ((a / 4) * wave * 4 + lane * 4 + a % 4)."""
    for lane in (0, 9):
        loc = evaluate(user_exprs["fork_private_gfx906"], ctx(), lane=lane)
        assert loc == Location.memory(AddressSpace.PRIVATE_LANE, 0x1000 // 64 + 16, lane=lane)
        assert read_bits(ctx(), loc, 32) == wave_word((0x50 // 4) * WAVE * 4 + lane * 4)


def test_fork_generic_pointer_in_two_vgprs(user_exprs):
    """A generic pointer held in two VGPRs, dereferenced, then DW_ASPACE_AMDGPU_generic (1): USAGE "If the
    address corresponds to an address in the local address space, then it corresponds to the wavefront"
    (local aperture at 1 << 48 on GFX9)."""
    for lane in (0, 3):
        loc = evaluate(user_exprs["fork_vgpr_pair_deref"], ctx(), lane=lane)
        assert loc.single.storage == Memory(AddressSpace.GENERIC, lane)
        assert read_bits(ctx(), loc, 8) == 0x20 + 4 * lane  # LDS byte at 0x20 + 4*lane


# --------------------------------------------------------------------- plain DWARF 5


@pytest.mark.parametrize("name, value, bits", [
    ("dwarf5_arith", 7, 64),  # ((((4*5)-3)*2) & 0xf0) << 1 >> 3 = 8; 8 ^ 15 = 7
    ("dwarf5_signed", 0, 64),  # DWARF5 DW_OP_div is signed: -7 / 2 = -3; abs(-3) = 3; -3 + 3 = 0
    ("dwarf5_bra", 6, 64),  # bra taken over lit5/skip
    ("dwarf5_stack", (1 << 64) - 1, 64),  # rot/over/pick/drop/swap: 1 - 2
    ("dwarf5_implicit_value", 0x12345678, 32),
    ("dwarf5_bit_piece", 0xFC, 8),  # bits 4..7 of 0xabcd then bits 0..3 of 0xff
    ("dwarf5_consts", (1 << 64) - 2, 64),
])
def test_dwarf5_values(user_exprs, name, value, bits):
    assert read_bits(ctx(), evaluate(user_exprs[name], ctx()), bits) == value


def test_dwarf5_empty_piece_is_undefined(user_exprs):
    """EXT DW_OP_piece: "If the stack is empty, then a location description L comprised of one incomplete
    composite location description SL is pushed on the stack. An incomplete composite location storage LS is
    created with a single part P. P specifies a location description PL and has a bit size of S scaled by 8
    (the byte size). PL is comprised of one undefined location description PSL."."""
    loc = evaluate(user_exprs["dwarf5_empty_piece"], ctx())
    assert read_bits(ctx(), loc.offset_bits(32), 32) == 0x11223344
    with pytest.raises(UndefinedLocation):
        read_bits(ctx(), loc, 32)


def test_deref_of_a_private_lane_address(user_exprs):
    loc_value = Evaluator(ctx(), lane=4).run(user_exprs["dwarf5_deref_private_lane"]).value()
    assert loc_value.bits == wave_word((8 // 4) * WAVE * 4 + 4 * 4)


def test_call_frame_cfa_keeps_its_address_space(user_exprs):
    """EXT: "DW_OP_call_frame_cfa pushes the location description L of the Canonical Frame Address (CFA)";
    "If a stack entry is required to be a value, but it is a location description L with one memory location
    description SL in the target architecture default address space with a bit offset B that is a multiple of
    8, then it is implicitly converted to a value" - so DW_OP_plus_uconst on a private_wave CFA is an error
    while a default-space CFA works."""
    assert evaluate(user_exprs["dwarf5_call_frame_cfa"],
                    ctx(cfa=Location.memory(AddressSpace.GLOBAL, 0x100))) == Location.memory(
        AddressSpace.GLOBAL, 0x108)
    with pytest.raises(EvaluationError, match="expected a value"):
        evaluate(user_exprs["dwarf5_call_frame_cfa"], ctx(cfa=Location.memory(AddressSpace.PRIVATE_WAVE, 0x100)))


def test_push_object_address(user_exprs):
    obj = Location.memory(AddressSpace.PRIVATE_WAVE, 0x100)
    assert evaluate(user_exprs["dwarf5_push_object_address"], ctx(object_address=obj)) == Location.memory(
        AddressSpace.PRIVATE_WAVE, 0x104)


def test_breg_of_a_vector_register_reads_the_lane(user_exprs):
    loc = evaluate(user_exprs["dwarf5_regs"], ctx(), lane=2)
    assert loc == Location.memory(AddressSpace.GLOBAL, 0x202 + 4)


def test_llvm_nop(user_exprs):
    """DW_OP_LLVM_user sub-op 1 DW_OP_LLVM_nop: no effect (LLVM Dwarf.def)."""
    assert evaluate(user_exprs["llvm_nop"], ctx()) == Location.memory(AddressSpace.GLOBAL, 0)


# --------------------------------------------------------------------- typed ops and DW_OP_convert


def base_types(file: str) -> dict[int, BaseType]:
    out = {}
    for attrs in handmade_dies(file).values():
        if "DW_AT_encoding" in attrs:
            space = attrs.get(0x3E10)
            out[attrs["<offset>"]] = BaseType(attrs["DW_AT_byte_size"], attrs["DW_AT_encoding"],
                                              attrs["DW_AT_name"].decode(),
                                              dwarf_aspace(space) if space is not None else None)
    return out


def test_convert_generic_to_local(user_exprs):
    """USAGE: "Converting from DW_ASPACE_AMDGPU_generic to any of DW_ASPACE_AMDGPU_local ... is defined when
    ... the generic address is in the corresponding address space" (local aperture base 1 << 48)."""
    loc = evaluate(user_exprs["typed_convert_generic_to_local"], ctx(base_types=base_types("ops_user")))
    assert read_bits(ctx(), loc, 32) == 0x10


def test_convert_generic_private_to_none_is_an_error(user_exprs):
    """USAGE: "converting from DW_ASPACE_AMDGPU_generic to DW_ASPACE_LLVM_none is defined when the generic
    address is in the global address space" and "otherwise result in an evaluation error"."""
    with pytest.raises(AddressSpaceError):
        evaluate(user_exprs["typed_convert_generic_private_to_none"], ctx(base_types=base_types("ops_user")))


def test_regval_convert_reinterpret(user_exprs):
    """DWARF5 DW_OP_regval_type / DW_OP_convert (int -> float) / DW_OP_reinterpret (same bits)."""
    loc = evaluate(user_exprs["typed_regval_deref_convert"], ctx(base_types=base_types("ops_user")))
    assert read_bits(ctx(), loc, 32) == int.from_bytes(struct.pack("<f", float(0x11223344)), "little")


def test_deref_type_in_local_memory(user_exprs):
    loc = evaluate(user_exprs["typed_deref_type"], ctx(base_types=base_types("ops_user")))
    assert read_bits(ctx(), loc, 32) == int.from_bytes(bytes([0x40, 0x41, 0x42, 0x43]), "little")


# --------------------------------------------------------------------- lane PC / active lane


def test_lane_pc_and_active_lane_draft_attributes():
    """USAGE DW_AT_LLVM_lane_pc: "If the lane is an active lane then this will be the same as the current
    program location. If the lane is inactive, but was active on entry to the subprogram, then this is the
    program location in the subprogram at which execution of the lane is conceptually positioned."
    DW_AT_LLVM_active_lane (draft code 0x3e08 here): bit N = lane N active."""
    die = handmade_dies("ops_draft")["lanes_fn"]
    assert die[0x3E0A] == 4  # DW_AT_LLVM_lanes (legacy code)
    c = ctx()
    mask = active_mask(c, die[0x3E08], lanes=4, exec_mask=0xF, encoding=Encoding.AMD_DRAFT)
    assert mask == 0b0101
    pcs = lane_pcs(c, die[0x3E0B], lanes=4, wave_pc=0x1238, active=mask, encoding=Encoding.AMD_DRAFT)
    f4 = die["DW_AT_low_pc"] + 4
    assert [(p.pc, p.state) for p in pcs] == [
        (0x1238, LaneState.ACTIVE), (f4, LaneState.DIVERGENT), (0x1238, LaneState.ACTIVE),
        (f4, LaneState.DIVERGENT)]


def test_lane_not_active_on_entry_has_no_frame(user_exprs):
    """USAGE: "If the lane was not active on entry to the subprogram, then this will be the undefined location"
    ... "Conceptually the lane only has the call frames that it has a non-undefined DW_AT_LLVM_lane_pc"."""
    pcs = lane_pcs(ctx(), user_exprs["select_bit_piece"], lanes=4, wave_pc=0x1234, active=0b0001)
    assert [p.state for p in pcs] == [LaneState.ACTIVE, LaneState.NOT_IN_FRAME, LaneState.DIVERGENT,
                                      LaneState.NOT_IN_FRAME]
    assert pcs[2].pc == 0x1234


def test_no_lane_pc_reports_inactive_lanes_at_the_wave_pc():
    pcs = lane_pcs(ctx(), None, lanes=4, wave_pc=0x2000, active=0b0011)
    assert [(p.pc, str(p.state)) for p in pcs] == [(0x2000, "active"), (0x2000, "active"),
                                                   (0x2000, "inactive-at-wave-pc"),
                                                   (0x2000, "inactive-at-wave-pc")]


def test_uniform_expressions_are_evaluated_once(user_exprs):
    res = evaluate_lanes(user_exprs["corpus_bregx"], ctx(), range(WAVE))
    assert res.uniform and res.evaluations == 1 and len(res.locations) == WAVE


def test_register_location_is_a_register(user_exprs):
    loc = evaluate(user_exprs["corpus_regx_pieces"], ctx())
    assert isinstance(loc.single.storage.parts[0].location.single.storage, Register)


def test_lane_affine_expressions_are_evaluated_once_and_instantiated(user_exprs):
    """The fork's lane selection (regx VGPR; push_lane; lit4; mul; offset) is affine in the lane: one
    symbolic evaluation gives every lane's location, identical to evaluating lane by lane."""
    res = evaluate_lanes(user_exprs["offset"], ctx(), range(WAVE))
    assert res.evaluations == 1 and not res.uniform
    for n in range(WAVE):
        assert res.locations[n] == evaluate(user_exprs["offset"], ctx(), lane=n)
    pair = evaluate_lanes(user_exprs["fork_vgpr_pair_deref"], ctx(), range(4))
    assert pair.evaluations == 4  # the lane-dependent pointer is dereferenced: per lane
    assert pair.locations[3] == evaluate(user_exprs["fork_vgpr_pair_deref"], ctx(), lane=3)
