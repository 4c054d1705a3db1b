// DPP lane patterns (v_mov_b32_dpp into 0xdeadbeef, so lanes DPP does not write keep it), bank/row masks,
// bound_ctrl, row_share/row_xmask, DPP8, a source lane outside EXEC with and without fi, a modifier on the DPP
// source, a VOPC with DPP
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
  v_mov_b32_dpp v4, v2 row_shr:3 row_mask:0xf bank_mask:0xf bound_ctrl:1
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
  v_mov_b32_dpp v4, v2 row_share:5 row_mask:0xf bank_mask:0xf
  ST v4, 6
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_xmask:3 row_mask:0xf bank_mask:0xf
  ST v4, 7
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 dpp8:[7,6,5,4,3,2,1,0]
  ST v4, 8
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 dpp8:[1,1,1,1,0,0,0,0]
  ST v4, 9
  v_mov_b32 v4, 0xdeadbeef
  v_add_nc_u32_dpp v4, v2, v3 row_shr:1 row_mask:0xf bank_mask:0x5
  ST v4, 10
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32 v5, 0xdeadbeef
  s_mov_b32 s10, exec_lo
  s_mov_b32 exec_lo, 0x55555555
  v_mov_b32_dpp v4, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  v_mov_b32_dpp v5, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf fi:1
  s_mov_b32 exec_lo, s10
  ST v4, 11
  ST v5, 12
  v_add_f32_dpp v4, -v6, v7 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  ST v4, 13
  v_cmp_lt_u32_dpp vcc_lo, v2, v3 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
  v_cndmask_b32_e64 v4, 0, 1, vcc_lo
  ST v4, 14
