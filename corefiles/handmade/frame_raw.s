; Raw .debug_frame bytes for what llvm-mc does not emit: CIE versions 1 and 3, the AMDGPU augmentations
; "[llvm:v0.0]" and "[amd:v0.0]", DWARF64 entries, DW_CFA_LLVM_def_aspace_cfa_sf (0x31), DW_CFA_set_loc,
; DW_CFA_def_cfa_sf, DW_CFA_def_cfa_offset_sf, DW_CFA_offset_extended_sf, DW_CFA_val_offset(_sf),
; DW_CFA_restore_extended, DW_CFA_advance_loc4 and the legacy one-byte AMD op in a CFA expression.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl r1
	.type r1,@function
r1:
	s_nop 0
	s_nop 0
	s_nop 0
	s_setpc_b64 s[30:31]
.Lr1_end:
	.size r1, .Lr1_end-r1
	.globl r2
	.type r2,@function
r2:
	s_nop 0
	s_nop 0
	s_setpc_b64 s[30:31]
.Lr2_end:
	.size r2, .Lr2_end-r2
	.globl r3
	.type r3,@function
r3:
	s_nop 0
	s_setpc_b64 s[30:31]
.Lr3_end:
	.size r3, .Lr3_end-r3
	.globl r4
	.type r4,@function
r4:
	s_nop 0
	s_setpc_b64 s[30:31]
.Lr4_end:
	.size r4, .Lr4_end-r4

	.section .debug_frame,"",@progbits
; CIE A: version 4, augmentation "[llvm:v0.0]" (older AMD fork), initial rule DW_CFA_def_cfa SGPR32+0
.Lcie_a:
	.long .Lcie_a_end-.Lcie_a_body
.Lcie_a_body:
	.long 0xffffffff
	.byte 4
	.asciz "[llvm:v0.0]"
	.byte 8, 0                 ; address size, segment selector size
	.uleb128 4                 ; code alignment factor
	.sleb128 4                 ; data alignment factor
	.uleb128 16                ; return address register PC_64
	.byte 0x0c, 0x40, 0x00     ; DW_CFA_def_cfa SGPR32 +0
	.byte 0x08, 0x11           ; DW_CFA_same_value EXEC
.Lcie_a_end:
; FDE for r1 under CIE A
	.long .Lfde_a_end-.Lfde_a_body
.Lfde_a_body:
	.long .Lcie_a
	.quad r1
	.quad .Lr1_end-r1
	.byte 0x31, 0x41, 0x02, 0x06  ; DW_CFA_LLVM_def_aspace_cfa_sf SGPR33, 2*4 = 8, addrspace 6
	.byte 0x41                 ; DW_CFA_advance_loc 1 (4 bytes)
	.byte 0x13, 0x7e           ; DW_CFA_def_cfa_offset_sf -2 (*4 = -8), keeps addrspace 6
	.byte 0x11, 0x42, 0x7f     ; DW_CFA_offset_extended_sf SGPR34, -1*4
	.byte 0x0a                 ; DW_CFA_remember_state
	.byte 0x02, 0x01           ; DW_CFA_advance_loc1 1 (4 bytes)
	.byte 0x15, 0x43, 0x02     ; DW_CFA_val_offset_sf SGPR35, 2*4
	.byte 0x14, 0x44, 0x03     ; DW_CFA_val_offset SGPR36, 3*4
	.byte 0x06, 0x11           ; DW_CFA_restore_extended EXEC (back to the CIE's same_value)
	.byte 0x0b                 ; DW_CFA_restore_state
	.byte 0x01                 ; DW_CFA_set_loc r1+12
	.quad r1+12
	.byte 0x16, 0x10, 0x02, 0x30, 0x9f  ; DW_CFA_val_expression PC_REG: DW_OP_lit0, DW_OP_stack_value
	.p2align 3, 0
.Lfde_a_end:

; CIE B: version 4, augmentation "[amd:v0.0]" (the manual's string)
.Lcie_b:
	.long .Lcie_b_end-.Lcie_b_body
.Lcie_b_body:
	.long 0xffffffff
	.byte 4
	.asciz "[amd:v0.0]"
	.byte 8, 0
	.uleb128 4
	.sleb128 4
	.uleb128 16
	.byte 0x30, 0x40, 0x00, 0x06   ; DW_CFA_LLVM_def_aspace_cfa SGPR32 +0 addrspace 6
.Lcie_b_end:
	.long .Lfde_b_end-.Lfde_b_body
.Lfde_b_body:
	.long .Lcie_b
	.quad r2
	.quad .Lr2_end-r2
	.byte 0x12, 0x41, 0x7e     ; DW_CFA_def_cfa_sf SGPR33, -2*4 = -8 (address space back to 0)
	.byte 0x04                 ; DW_CFA_advance_loc4 2 (8 bytes)
	.long 2
	.byte 0x0d, 0x42           ; DW_CFA_def_cfa_register SGPR34
	.p2align 3, 0
.Lfde_b_end:

; CIE C: version 1 (u8 return address register, no address/segment size), augmentation ""
.Lcie_c:
	.long .Lcie_c_end-.Lcie_c_body
.Lcie_c_body:
	.long 0xffffffff
	.byte 1
	.asciz ""
	.uleb128 4
	.sleb128 4
	.byte 16                   ; return address register (ubyte in version 1)
	.byte 0x0c, 0x40, 0x00
.Lcie_c_end:
	.long .Lfde_c_end-.Lfde_c_body
.Lfde_c_body:
	.long .Lcie_c
	.quad r3
	.quad .Lr3_end-r3
	.byte 0x85, 0x01           ; DW_CFA_offset r5 (reserved number, stays a column), 1*4
	.p2align 3, 0
.Lfde_c_end:

; CIE D: version 3, DWARF64 entry
.Lcie_d:
	.long 0xffffffff
	.quad .Lcie_d_end-.Lcie_d_body
.Lcie_d_body:
	.quad 0xffffffffffffffff
	.byte 3
	.asciz ""
	.uleb128 4
	.sleb128 4
	.uleb128 16
	.byte 0x0c, 0x40, 0x00
.Lcie_d_end:
	.long 0xffffffff
	.quad .Lfde_d_end-.Lfde_d_body
.Lfde_d_body:
	.quad .Lcie_d
	.quad r4
	.quad .Lr4_end-r4
	.byte 0x07, 0x10           ; DW_CFA_undefined PC_REG
	.p2align 3, 0
.Lfde_d_end:
