// DPP lane patterns (v_mov_b32_dpp into 0xdeadbeef, so lanes DPP does not write keep it), bank/row masks,
// bound_ctrl, a source lane outside EXEC, a modifier on the DPP source; SDWA selects and dst_unused
  LD v2, 0                               // per-lane integers
  LD v3, 1                               // per-lane integers
  LD v6, 2                               // x (f32)
  LD v7, 3                               // y (f32)
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 quad_perm:[3,2,1,0] row_mask:0xf bank_mask:0xf
  ST v4, 0
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_shl:1 row_mask:0xf bank_mask:0xf
  ST v4, 1
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:0
  ST v4, 2
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_ror:4 row_mask:0xf bank_mask:0xf
  ST v4, 3
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_mirror row_mask:0xf bank_mask:0xf
  ST v4, 4
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_half_mirror row_mask:0xf bank_mask:0xf
  ST v4, 5
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_bcast:15 row_mask:0xa bank_mask:0xf
  ST v4, 6
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_bcast:31 row_mask:0xc bank_mask:0xf
  ST v4, 7
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 wave_shl:1 row_mask:0xf bank_mask:0xf
  ST v4, 8
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 wave_ror:1 row_mask:0xf bank_mask:0xf
  ST v4, 9
  v_mov_b32 v4, 0xdeadbeef
  v_add_u32_dpp v4, v2, v3 row_shr:1 row_mask:0xf bank_mask:0x5
  ST v4, 10
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32 v5, 0xdeadbeef
  s_mov_b64 s[10:11], exec
  s_mov_b32 exec_lo, 0x55555555
  s_mov_b32 exec_hi, 0x55555555
  v_mov_b32_dpp v4, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v5, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf bound_ctrl:0
  s_mov_b64 exec, s[10:11]
  ST v4, 11
  ST v5, 12
  v_add_f32_dpp v4, -v6, v7 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  ST v4, 13
  v_mov_b32 v4, 0xdeadbeef
  v_add_u32_sdwa v4, v2, v3 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:BYTE_1
  ST v4, 14
  v_mov_b32_sdwa v4, sext(v3) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0
  ST v4, 15
  v_cvt_f32_f16_sdwa v4, v7 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:WORD_1
  ST v4, 16
  v_cmp_lt_u32_sdwa s[12:13], v2, v3 src0_sel:BYTE_0 src1_sel:BYTE_0
  v_cndmask_b32_e64 v4, 0, 1, s[12:13]
  ST v4, 17
  v_mov_b32 v4, 0xdeadbeef
  v_sub_u32_sdwa v4, v3, v2 dst_sel:BYTE_2 dst_unused:UNUSED_SEXT src0_sel:WORD_0 src1_sel:BYTE_3
  ST v4, 18
