// f32 NaN propagation and quieting, signed zero in min/max/add/fma, clamp/omod, class, frexp, ldexp, rcp, sqrt
  LD v2, 0                               // a
  LD v3, 1                               // b
  v_min_num_f32 v4, v2, v3
  ST v4, 0
  v_max_num_f32 v4, v2, v3
  ST v4, 1
  v_add_f32 v4, v2, v3
  ST v4, 2
  v_mul_f32 v4, v2, v3
  ST v4, 3
  v_fma_f32 v4, v2, v3, v3
  ST v4, 4
  v_med3_num_f32 v4, v2, v3, 1.0
  ST v4, 5
  v_add_f32_e64 v4, v2, v3 clamp
  ST v4, 6
  v_mul_f32_e64 v4, v2, v3 mul:2
  ST v4, 7
  v_max_num_f32 v4, v2, v2                 // canonicalize: quiets a signalling NaN
  ST v4, 8
  v_fract_f32 v4, v2
  ST v4, 9
  v_and_b32 v5, 0x3ff, v3
  v_cmp_class_f32_e64 s8, v2, v5
  v_cndmask_b32_e64 v4, 0, 1, s8
  ST v4, 10
  v_frexp_mant_f32 v4, v2
  ST v4, 11
  v_frexp_exp_i32_f32 v4, v2
  ST v4, 12
  s_movk_i32 s10, 0xff7e                 // -130
  v_ldexp_f32 v4, v2, s10
  ST v4, 13
  v_rcp_f32 v4, v2
  ST v4, 14
  v_sqrt_f32 v4, v2
  ST v4, 15
  v_mul_dx9_zero_f32 v4, v2, v3          // (GFX11 name of v_mul_legacy_f32) 0 * anything (inf, NaN) is +0
  ST v4, 16
  v_mul_dx9_zero_f32_e64 v4, -v2, v3
  ST v4, 17
  s_mov_b32 s20, 0                       // the scalar s_min_num_f32/s_max_num_f32 on each lane's pair in turn
.Lscalar_minmax:
  v_readlane_b32 s21, v2, s20
  v_readlane_b32 s22, v3, s20
  s_min_num_f32 s23, s21, s22
  v_writelane_b32 v6, s23, s20
  s_max_num_f32 s23, s21, s22
  v_writelane_b32 v7, s23, s20
  s_add_co_u32 s20, s20, 1
  s_cmp_lt_u32 s20, 32
  s_cbranch_scc1 .Lscalar_minmax
  ST v6, 18
  ST v7, 19
