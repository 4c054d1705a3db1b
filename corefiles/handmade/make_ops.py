"""Write ops_user.s and ops_draft.s: one DW_TAG_variable per test expression, bytes typed by hand.

The expressions are written once, with ``U<xx>`` standing for the heterogeneous operation whose
DW_OP_LLVM_user sub-opcode is xx (LLVM Dwarf.def / the extension's encoding table). For the llvm-user file
``U<xx>`` becomes ``0xe9, 0x<xx>``; for the AMD-draft file it becomes the one-byte opcode from libdwarf's
dwarf.h / ROCgdb's dwarf2.def (0xe1 form_aspace_address ... 0xec select_bit_piece; 0xe9 is
aspace_implicit_pointer there). Run by build.py before assembling; the .s files are checked in too.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# sub-op -> one-byte AMD draft opcode (libdwarf dwarf.h "DW_OP_LLVM_*" block)
DRAFT = {0x02: 0xE1, 0x03: 0xE2, 0x04: 0xE3, 0x05: 0xE4, 0x06: 0xE5, 0x07: 0xE6, 0x08: 0xE7, 0x09: 0xE8,
         0x0A: 0xEA, 0x0B: 0xEB, 0x0C: 0xEC}

# name -> bytes. Comments give the decoded form (llvm-dwarfdump-22 is the oracle for the user file).
EXPRS: list[tuple[str, str]] = [
    # constu 0x100; lit6; form_aspace_address                      -> private_wave[0x100]
    ("form_aspace_address", "10 80 02 36 U02"),
    # push_lane                                                    -> value = lane
    ("push_lane", "U03 9f"),
    # regx VGPR0 (wave64 2560); push_lane; lit4; mul; offset      -> v0 bytes 4*lane.. (this lane's dword)
    ("offset", "90 80 14 U03 34 1e U04"),
    # regx VGPR0; offset_uconst 12                                 -> v0 at byte 12 (lane 3's dword)
    ("offset_uconst", "90 80 14 U05 0c"),
    # regx SGPR4; lit8; bit_offset                                 -> s4 at bit 8
    ("bit_offset", "90 24 38 U06"),
    # call_frame_entry_reg EXEC (17)
    ("call_frame_entry_reg", "U07 11"),
    # undefined
    ("undefined", "U08"),
    # lit3; aspace_bregx SGPR1 +16                                 -> local[s1 + 16]
    ("aspace_bregx", "33 U09 21 10"),
    # lit6; aspace_bregx SGPR33 -4 (SLEB 0x7c)                     -> private_wave[s33 - 4]
    ("aspace_bregx_negative", "36 U09 41 7c"),
    # regx VGPR0; piece 4; regx VGPR1; piece 4; piece_end          -> complete 64-bit composite
    ("piece_end", "90 80 14 93 04 90 81 14 93 04 U0a"),
    # constu 0xaa; stack_value; extend 32, 4                       -> 4 copies of the low 32 bits
    ("extend", "10 aa 01 9f U0b 20 04"),
    # undefined; extend 64,4; regx PC_REG; extend 64,4; constu 5; select_bit_piece 64,4
    ("select_bit_piece", "U08 U0b 40 04 90 10 U0b 40 04 10 05 U0c 40 04"),
    # --- expressions of the shapes real compilers emit ------------------------------------------
    # regx VGPR0; piece 4; regx VGPR1; piece 4                     (clang: 64-bit value in two VGPRs)
    ("corpus_regx_pieces", "90 80 14 93 04 90 81 14 93 04"),
    # fbreg +28; lit1; swap; xderef                                (LLVM 19 OpenCL private, 22 HIP generic)
    ("corpus_fbreg_xderef", "91 1c 31 16 18"),
    # fbreg +28; lit5; swap; xderef                                (LLVM 22 OpenCL private_lane)
    ("corpus_fbreg_xderef5", "91 1c 35 16 18"),
    # bregx SGPR33 +8                                              (clang-15 rocsparse)
    ("corpus_bregx", "92 41 08"),
    # addrx 0; lit2; swap; xderef                                  (LLVM 19 LDS)
    ("corpus_lds_xderef", "a1 00 32 16 18"),
    # --- AMD fork shapes (heterogeneous DWARF, AMDGPU manual / fork tests) ------------------------
    # regx SGPR33; deref_size 4; lit6; shr; constu 5; form_aspace_address; lit16; offset
    ("fork_private_gfx906", "90 41 94 04 36 25 10 05 U02 40 U04"),
    # regx VGPR2; push_lane; lit4; mul; offset; piece 4; regx VGPR3; push_lane; lit4; mul; offset; piece 4;
    # piece_end; deref_size 8; lit1; form_aspace_address            (generic pointer held in two VGPRs)
    ("fork_vgpr_pair_deref", "90 82 14 U03 34 1e U04 93 04 90 83 14 U03 34 1e U04 93 04 U0a 94 08 31 U02"),
    # --- plain DWARF 5 -----------------------------------------------------------------------------
    ("dwarf5_arith", "34 35 1e 33 1c 12 22 08 f0 1a 31 24 33 25 3f 27 9f"),
    ("dwarf5_signed", "11 79 32 1b 11 7d 19 22 9f"),
    ("dwarf5_bra", "31 28 04 00 35 2f 01 00 36 9f"),
    ("dwarf5_stack", "31 32 33 17 14 15 02 13 16 1c 9f"),
    ("dwarf5_implicit_value", "9e 04 78 56 34 12"),
    ("dwarf5_bit_piece", "9e 02 cd ab 9d 04 04 9e 01 ff 9d 04 00"),
    ("dwarf5_empty_piece", "93 04 90 24 93 04"),
    ("dwarf5_deref_private_lane", "10 08 35 U02 94 04"),
    ("dwarf5_call_frame_cfa", "9c 23 08"),
    ("dwarf5_push_object_address", "97 U05 04"),
    ("dwarf5_regs", "50 61 70 08 92 81 14 04"),
    ("dwarf5_consts", "08 ff 09 ff 0a 34 12 0b fe ff 0c 78 56 34 12 0d fc ff ff ff 0e 01 00 00 00 00 00 00 80 "
                      "0f fe ff ff ff ff ff ff ff 96 9f"),
    ("llvm_nop", "U01 30"),
]


def render(expr: str, draft: bool) -> list[int]:
    out: list[int] = []
    for tok in expr.split():
        if tok.startswith("U"):
            sub = int(tok[1:], 16)
            if draft:
                if sub not in DRAFT:
                    raise KeyError(f"no draft opcode for sub-op {sub:#x}")
                out.append(DRAFT[sub])
            else:
                out += [0xE9, sub]
        else:
            out.append(int(tok, 16))
    return out


HEADER = """; GENERATED by make_ops.py ({encoding} encoding) -- do not edit; edit make_ops.py.
; One DW_TAG_variable per expression (DW_AT_location exprloc), a base types block for typed ops, a
; subprogram with lane attributes, and a .debug_loclists list. Assembled by build.py.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl f
	.p2align 2
	.type f,@function
f:
	s_nop 0
	s_nop 0
	s_setpc_b64 s[30:31]
.Lf_end:
	.size f, .Lf_end-f

	.section .debug_abbrev,"",@progbits
	.uleb128 1
	.uleb128 0x11           ; DW_TAG_compile_unit
	.byte 1
	.uleb128 0x25, 0x08     ; DW_AT_producer, string
	.uleb128 0x03, 0x08     ; DW_AT_name, string
	.uleb128 {aug_attr:#x}, 0x08   ; DW_AT_LLVM_augmentation ({aug_note}), string
	.uleb128 0x11, 0x01     ; DW_AT_low_pc, addr
	.uleb128 0x12, 0x06     ; DW_AT_high_pc, data4
	.uleb128 0x8c, 0x17     ; DW_AT_loclists_base, sec_offset
	.byte 0, 0
	.uleb128 2
	.uleb128 0x34           ; DW_TAG_variable
	.byte 0
	.uleb128 0x03, 0x08     ; DW_AT_name
	.uleb128 0x02, 0x18     ; DW_AT_location, exprloc
	.byte 0, 0
	.uleb128 3
	.uleb128 0x24           ; DW_TAG_base_type
	.byte 0
	.uleb128 0x03, 0x08     ; DW_AT_name
	.uleb128 0x3e, 0x0b     ; DW_AT_encoding, data1
	.uleb128 0x0b, 0x0b     ; DW_AT_byte_size, data1
	.byte 0, 0
	.uleb128 4
	.uleb128 0x24           ; DW_TAG_base_type with an address space
	.byte 0
	.uleb128 0x03, 0x08
	.uleb128 0x3e, 0x0b
	.uleb128 0x0b, 0x0b
	.uleb128 0x3e10, 0x0b   ; DW_AT_LLVM_address_space, data1
	.byte 0, 0
	.uleb128 5
	.uleb128 0x2e           ; DW_TAG_subprogram
	.byte 0
	.uleb128 0x03, 0x08
	.uleb128 0x11, 0x01
	.uleb128 0x12, 0x06
	.uleb128 {lanes_attr:#x}, 0x0b   ; DW_AT_LLVM_lanes, data1
	.uleb128 {lane_pc_attr:#x}, 0x18 ; DW_AT_LLVM_lane_pc, exprloc
{active_abbrev}	.byte 0, 0
	.uleb128 6
	.uleb128 0x34           ; DW_TAG_variable with a location list
	.byte 0
	.uleb128 0x03, 0x08
	.uleb128 0x02, 0x22     ; DW_AT_location, loclistx
	.byte 0, 0
	.byte 0

	.section .debug_info,"",@progbits
.Lcu_begin:
	.long .Linfo_end-.Linfo_start
.Linfo_start:
	.short 5
	.byte 1                 ; DW_UT_compile
	.byte 8
	.long 0
	.uleb128 1
	.asciz "{producer}"
	.asciz "ops_{suffix}.s"
	.asciz "{augmentation}"
	.quad f
	.long .Lf_end-f
	.long .Lloclists_base
"""

TYPES = """.Ltype_int:
	.uleb128 3
	.asciz "int"
	.byte 0x05, 4           ; DW_ATE_signed, 4 bytes
.Ltype_uint:
	.uleb128 3
	.asciz "unsigned int"
	.byte 0x07, 4
.Ltype_float:
	.uleb128 3
	.asciz "float"
	.byte 0x04, 4
.Ltype_gptr:
	.uleb128 4
	.asciz "generic_ptr"
	.byte 0x01, 8, 1        ; DW_ATE_address, 8 bytes, DW_ASPACE_AMDGPU_generic
.Ltype_lptr:
	.uleb128 4
	.asciz "local_ptr"
	.byte 0x01, 4, 3        ; DW_ATE_address, 4 bytes, DW_ASPACE_AMDGPU_local
.Ltype_nptr:
	.uleb128 4
	.asciz "global_ptr"
	.byte 0x01, 8, 0        ; DW_ATE_address, 8 bytes, DW_ASPACE_LLVM_none
"""

# Typed operations need CU-relative DIE offsets, written with labels (not expressible in the table).
TYPED = """	.uleb128 2
	.asciz "typed_convert_generic_to_local"
	.uleb128 .Ltc1_e-.Ltc1_b
.Ltc1_b:
	.byte 0xa4              ; DW_OP_const_type generic_ptr, 8 bytes 0x0001000000000010
	.uleb128 .Ltype_gptr-.Lcu_begin
	.byte 8, 0x10, 0, 0, 0, 0, 0x00, 0x01, 0x00
	.byte 0xa8              ; DW_OP_convert local_ptr
	.uleb128 .Ltype_lptr-.Lcu_begin
	.byte 0x9f              ; DW_OP_stack_value
.Ltc1_e:
	.uleb128 2
	.asciz "typed_convert_generic_private_to_none"
	.uleb128 .Ltc2_e-.Ltc2_b
.Ltc2_b:
	.byte 0xa4              ; DW_OP_const_type generic_ptr, 8 bytes 0x0002000000000020 (private aperture)
	.uleb128 .Ltype_gptr-.Lcu_begin
	.byte 8, 0x20, 0, 0, 0, 0, 0x00, 0x02, 0x00
	.byte 0xa8              ; DW_OP_convert global_ptr (an evaluation error per the manual)
	.uleb128 .Ltype_nptr-.Lcu_begin
	.byte 0x9f
.Ltc2_e:
	.uleb128 2
	.asciz "typed_regval_deref_convert"
	.uleb128 .Ltc3_e-.Ltc3_b
.Ltc3_b:
	.byte 0xa5, 0x24        ; DW_OP_regval_type SGPR4 int
	.uleb128 .Ltype_int-.Lcu_begin
	.byte 0xa8              ; DW_OP_convert float
	.uleb128 .Ltype_float-.Lcu_begin
	.byte 0xa9              ; DW_OP_reinterpret unsigned int
	.uleb128 .Ltype_uint-.Lcu_begin
	.byte 0x9f
.Ltc3_e:
	.uleb128 2
	.asciz "typed_deref_type"
	.uleb128 .Ltc4_e-.Ltc4_b
.Ltc4_b:
	.byte 0x10, 0x40, 0x33  ; DW_OP_constu 0x40; DW_OP_lit3
	{form}
	.byte 0xa6, 4           ; DW_OP_deref_type 4 int
	.uleb128 .Ltype_int-.Lcu_begin
	.byte 0x9f
.Ltc4_e:
"""

SUBPROGRAM = """	.uleb128 5
	.asciz "lanes_fn"
	.quad f
	.long .Lf_end-f
	.byte 4                 ; DW_AT_LLVM_lanes 4
	.uleb128 .Llp_e-.Llp_b  ; DW_AT_LLVM_lane_pc: lanes 0 and 2 at PC, 1 and 3 at f+4, via select_bit_piece
.Llp_b:
	.byte {lane_pc}
.Llp_e:
{active}"""

LOCLISTS = """	.section .debug_loclists,"",@progbits
	.long .Lll_end-.Lll_start
.Lll_start:
	.short 5
	.byte 8, 0
	.long 1                 ; offset_entry_count
.Lloclists_base:
	.long .Llist0-.Lloclists_base
.Llist0:
	.byte 0x08              ; DW_LLE_start_length
	.quad f
	.uleb128 4
	.uleb128 {n1}
	.byte {e1}
	.byte 0x08
	.quad f+4
	.uleb128 8
	.uleb128 {n2}
	.byte {e2}
	.byte 0x00              ; DW_LLE_end_of_list
.Lll_end:
"""


def write(draft: bool) -> str:
    suffix = "draft" if draft else "user"
    if draft:
        fmt = dict(aug_attr=0x3E09, aug_note="legacy AMD code 0x3e09", lanes_attr=0x3E0A, lane_pc_attr=0x3E0B,
                   producer="AMD clang version 14.0.0 (handmade draft encoding)", augmentation="[llvm:v0.0]",
                   encoding="one-byte AMD draft")
        fmt["active_abbrev"] = "\t.uleb128 0x3e08, 0x18 ; DW_AT_LLVM_active_lane (legacy code), exprloc\n"
    else:
        fmt = dict(aug_attr=0x3E09, aug_note="code 0x3e09; upstream reads it as ptrauth", lanes_attr=0x3E11,
                   lane_pc_attr=0x3E12, producer="amddbg handmade (DW_OP_LLVM_user encoding)",
                   augmentation="[amdgpu:v0.0]", encoding="DW_OP_LLVM_user", active_abbrev="")
    text = HEADER.format(suffix=suffix, **fmt)
    text += TYPES
    for name, expr in EXPRS:
        try:
            data = render(expr, draft)
        except KeyError:
            continue  # DW_OP_LLVM_nop has no one-byte draft opcode
        text += f"\t.uleb128 2\n\t.asciz \"{name}\"\n\t.uleb128 {len(data)}\n"
        text += "\t.byte " + ", ".join(f"0x{b:02x}" for b in data) + f"   ; {expr}\n"
    text += TYPED.format(form="\t.byte " + ", ".join(f"0x{b:02x}" for b in render("U02", draft))
                         + "   ; DW_OP_LLVM_form_aspace_address")
    if draft:
        # DW_OP_LLVM_aspace_implicit_pointer exists only in the draft encoding (0xe9 there).
        text += ("\t.uleb128 2\n\t.asciz \"aspace_implicit_pointer\"\n\t.uleb128 .Laip_e-.Laip_b\n.Laip_b:\n"
                 "\t.byte 0x33, 0xe9     ; DW_OP_lit3; DW_OP_LLVM_aspace_implicit_pointer\n"
                 "\t.long .Ltype_int-.Lcu_begin\n\t.sleb128 -2\n.Laip_e:\n")
    lane_pc = render("U08 U0b 40 04 03", draft)  # undefined; extend 64,4; addr f+4 ...
    text += "\t.uleb128 6\n\t.asciz \"listed\"\n\t.uleb128 0\n"
    lp = ("\t.byte " + ", ".join(f"0x{b:02x}" for b in render("U08 U0b 40 04", draft)) + "\n"
          "\t.byte 0x03              ; DW_OP_addr f+4\n\t.quad f+4\n"
          "\t.byte " + ", ".join(f"0x{b:02x}" for b in render("9f U0b 40 04 90 10 U0b 40 04 10 05 U0c 40 04",
                                                             draft)) + "\n")
    del lane_pc
    sub = SUBPROGRAM.replace("\t.byte {lane_pc}\n", lp)
    active = ""
    if draft:
        active = ("\t.uleb128 3\n\t.byte 0x08, 0x05, 0x9f   ; DW_AT_LLVM_active_lane: DW_OP_const1u 5; stack_value\n")
    text += sub.format(active=active)
    text += "\t.byte 0\n.Linfo_end:\n\n"
    e1 = render("90 80 14 93 04", draft)
    e2 = render("36 U09 41 08 93 04", draft)
    text += LOCLISTS.format(n1=len(e1), e1=", ".join(f"0x{b:02x}" for b in e1),
                            n2=len(e2), e2=", ".join(f"0x{b:02x}" for b in e2))
    path = HERE / f"ops_{suffix}.s"
    path.write_text(text)
    return str(path)


if __name__ == "__main__":
    for d in (False, True):
        print(write(d), file=sys.stderr)
