; Hand-made AMDGPU CFI exercising every DW_CFA form llvm-mc can emit plus the AMD forms through
; .cfi_escape. Assembled by build.py (llvm-mc-22 gfx90a, ld.lld-22 -shared); llvm-dwarfdump-22 is the oracle.
; Register numbers (AMDGPU manual "DWARF Register Mapping", wave64): 16 PC_64, 17 EXEC_64, 32+n SGPRn,
; 2560+n VGPRn.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text

; --- func: the shape of an upstream-main non-kernel function without flat scratch -------------------
	.globl	func
	.p2align	2
	.type	func,@function
func:
	.cfi_sections .debug_frame
	.cfi_startproc
	.cfi_llvm_def_aspace_cfa 64, 0, 6                 ; CFA = SGPR32 + 0 in private_wave
	; PC_64 = s[30:31]: DW_OP_regx SGPR30, DW_OP_piece 4, DW_OP_regx SGPR31, DW_OP_piece 4
	.cfi_escape 0x10, 0x10, 0x08, 0x90, 0x3e, 0x93, 0x04, 0x90, 0x3f, 0x93, 0x04
	.cfi_undefined 2560                                ; v0 clobbered
	s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
	s_mov_b32 s33, s32
	.cfi_def_cfa_register 65                           ; keeps address space 6
	s_add_u32 s32, s32, 0x400
	.cfi_offset 65, 0                                  ; caller's s33 at [CFA+0]
	.cfi_register 2562, 2563                           ; v2 in v3
	.cfi_same_value 17
	; v40 spilled to memory under EXEC (AMDGPU manual: "the zero-single location description is the
	; vector register, and the one-single location description is the spilled memory location"):
	; DW_OP_regx VGPR40, DW_OP_swap, DW_OP_LLVM_offset_uconst 0x100,
	; DW_OP_LLVM_call_frame_entry_reg EXEC, DW_OP_deref_size 8, DW_OP_LLVM_select_bit_piece 32, 64
	.cfi_escape 0x10, 0xa8, 0x14, 0x11, 0x90, 0xa8, 0x14, 0x16, 0xe9, 0x05, 0x80, 0x02, 0xe9, 0x07, 0x11, 0x94, 0x08, 0xe9, 0x0c, 0x20, 0x40
	; s45 in lane 11 of v41: DW_OP_regx VGPR41, DW_OP_LLVM_offset_uconst 0x2c
	.cfi_escape 0x10, 0x4d, 0x06, 0x90, 0xa9, 0x14, 0xe9, 0x05, 0x2c
	s_nop 0
	.cfi_def_cfa_offset 16                             ; still address space 6
	.cfi_val_offset 66, -8                             ; s34 = CFA - 8 (value)
	.cfi_rel_offset 67, 4
	.cfi_offset 40, 8                                  ; s8: compact DW_CFA_offset (register < 64)
	s_nop 0
	.cfi_restore 40                                    ; compact DW_CFA_restore
	.cfi_remember_state
	.cfi_restore 65
	.cfi_escape 0x06, 0x42                             ; DW_CFA_restore_extended s34
	s_nop 0
	.cfi_restore_state
	; DW_CFA_val_expression s35: DW_OP_lit7
	.cfi_escape 0x16, 0x43, 0x01, 0x37
	s_setpc_b64 s[30:31]
.Lfunc_end0:
	.size	func, .Lfunc_end0-func
	.cfi_endproc

; --- flat: flat-scratch function (gfx942 style): CFA from a per-lane SP scaled by the wave size -------
	.globl	flat
	.p2align	2
	.type	flat,@function
flat:
	.cfi_startproc
	; DW_CFA_def_cfa_expression: DW_OP_regx SGPR32, DW_OP_deref_size 4, DW_OP_lit6, DW_OP_shl, DW_OP_lit6,
	;                            DW_OP_LLVM_form_aspace_address   (SP * 64 in private_wave)
	.cfi_escape 0x0f, 0x09, 0x90, 0x40, 0x94, 0x04, 0x36, 0x24, 0x36, 0xe9, 0x02
	.cfi_escape 0x10, 0x10, 0x08, 0x90, 0x3e, 0x93, 0x04, 0x90, 0x3f, 0x93, 0x04
	; PC saved in two lanes of v1: DW_OP_regx VGPR1, DW_OP_bit_piece 32 0, DW_OP_regx VGPR1, DW_OP_bit_piece 32 32
	s_nop 0
	.cfi_escape 0x10, 0x10, 0x0c, 0x90, 0x81, 0x14, 0x9d, 0x20, 0x00, 0x90, 0x81, 0x14, 0x9d, 0x20, 0x20
	s_setpc_b64 s[30:31]
.Lflat_end:
	.size	flat, .Lflat_end-flat
	.cfi_endproc

; --- kern: an entry function: the outermost frame (PC undefined) --------------------------------------
	.globl	kern
	.p2align	8
	.type	kern,@function
kern:
	.cfi_startproc
	; DW_CFA_def_cfa_expression: DW_OP_lit0, DW_OP_lit6, DW_OP_LLVM_form_aspace_address
	.cfi_escape 0x0f, 0x04, 0x30, 0x36, 0xe9, 0x02
	.cfi_undefined 16
	s_endpgm
.Lkern_end:
	.size	kern, .Lkern_end-kern
	.cfi_endproc

; --- big: long function to make llvm-mc use DW_CFA_advance_loc1/2 ---------------------------------------
	.globl	big
	.p2align	2
	.type	big,@function
big:
	.cfi_startproc
	.cfi_def_cfa 64, 0
	.rept 80
	s_nop 0
	.endr
	.cfi_offset 65, 8
	.rept 300
	s_nop 0
	.endr
	.cfi_offset 66, 12
	s_setpc_b64 s[30:31]
.Lbig_end:
	.size	big, .Lbig_end-big
	.cfi_endproc
