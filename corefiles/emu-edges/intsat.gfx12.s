// carries and borrows (VCC in and out), integer clamp (saturation), 64-bit shifts with counts >= 32 / >= 64,
// scalar s_add_u32/s_addc_u32 (SCC carry) on lane 0's values
  LD v2, 0                               // a
  LD v3, 1                               // b
  LD v4, 2                               // shift count
  v_add_co_u32 v5, vcc_lo, v2, v3
  ST v5, 0
  v_cndmask_b32 v6, 0, 1, vcc_lo
  ST v6, 1
  v_add_co_ci_u32 v5, vcc_lo, v2, v3, vcc_lo    // carry in = carry out of a + b
  ST v5, 2
  v_cndmask_b32 v6, 0, 1, vcc_lo
  ST v6, 3
  v_sub_co_u32 v5, vcc_lo, v2, v3
  ST v5, 4
  v_cndmask_b32 v6, 0, 1, vcc_lo
  ST v6, 5
  v_sub_co_ci_u32 v5, vcc_lo, v2, v3, vcc_lo    // borrow in = borrow out of a - b
  ST v5, 6
  v_cndmask_b32 v6, 0, 1, vcc_lo
  ST v6, 7
  v_add_nc_u32 v5, v2, v3 clamp
  ST v5, 8
  v_sub_nc_u32 v5, v2, v3 clamp
  ST v5, 9
  v_lshlrev_b64 v[6:7], v4, v[2:3]       // the 64-bit value {b, a}; count taken mod 64
  ST v6, 10
  ST v7, 11
  v_lshrrev_b64 v[6:7], v4, v[2:3]
  ST v6, 12
  ST v7, 13
  v_ashrrev_i64 v[6:7], v4, v[2:3]
  ST v6, 14
  ST v7, 15
  v_readfirstlane_b32 s10, v2
  v_readfirstlane_b32 s11, v3
  s_add_co_u32 s12, s10, s11
  s_add_co_ci_u32 s13, s10, s11
  s_cselect_b32 s14, 1, 0
  v_mov_b32 v5, s12
  ST v5, 16
  v_mov_b32 v5, s13
  ST v5, 17
  v_mov_b32 v5, s14
  ST v5, 18
// integer clamp beyond add/sub: 24-bit and 16-bit multiply-adds, carry forms (the carry out is the exact one),
// 16-bit add/sub, v_mad_u64_u32, dot4 (iu8 with both sources signed) and sad (the exact result saturated)
  v_mad_u32_u24 v5, v2, v3, v2 clamp
  ST v5, 19
  v_mad_i32_i24 v5, v2, v3, v3 clamp
  ST v5, 20
  v_add_co_u32 v5, s12, v2, v3 clamp
  ST v5, 21
  v_cndmask_b32_e64 v6, 0, 1, s12
  ST v6, 22
  v_sub_co_u32 v5, s12, v2, v3 clamp
  ST v5, 23
  v_add_co_ci_u32_e64 v5, s14, v2, v3, s12 clamp   // carry in = borrow out of a - b
  ST v5, 24
  v_mov_b32 v5, v3
  v_add_nc_u16 v5, v2, v3 clamp       // keeps the high half (b's)
  ST v5, 25
  v_mov_b32 v5, v3
  v_sub_nc_i16 v5, v2, v3 clamp
  ST v5, 26
  v_mov_b32 v5, v3
  v_mad_u16 v5, v2, v3, v4 clamp
  ST v5, 27
  v_mov_b32 v8, v4                       // c = {n, a}
  v_mov_b32 v9, v2
  v_mad_u64_u32 v[6:7], s12, v2, v3, v[8:9] clamp
  ST v6, 28
  ST v7, 29
  v_dot4_i32_iu8 v5, v2, v3, v4 neg_lo:[1,1,0] clamp
  ST v5, 30
  v_sad_u32 v5, v2, v3, v4 clamp
  ST v5, 31
