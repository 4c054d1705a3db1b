; .eh_frame (version 1 CIE, augmentation "zR", pc-relative FDE pointers) for AMDGPU code.
	.amdgcn_target "amdgcn-amd-amdhsa--gfx90a"
	.text
	.globl	ehf
	.p2align	2
	.type	ehf,@function
ehf:
	.cfi_sections .eh_frame
	.cfi_startproc
	.cfi_llvm_def_aspace_cfa 64, 0, 6
	s_mov_b32 s33, s32
	.cfi_def_cfa_register 65
	.cfi_offset 65, 4
	s_setpc_b64 s[30:31]
.Lehf_end:
	.size	ehf, .Lehf_end-ehf
	.cfi_endproc
