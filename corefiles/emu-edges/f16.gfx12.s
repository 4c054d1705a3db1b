// f16 rounding (ties to even, overflow to inf, denormals), 16-bit halves by op_sel (the other half is kept), f16<->f32
// conversions (RNE and pk_rtz), max_num of f16, packed f16/i16/u16 math with op_sel/op_sel_hi/neg_lo/neg_hi and
// clamp, v_fma_mix_f32
  LD v2, 0                               // a: two f16 (lo, hi)
  LD v3, 1                               // b: two f16
  LD v6, 2                               // x (f32)
  LD v7, 3                               // y (f32)
  v_mov_b32 v4, 0x12345678
  v_add_f16 v4, v2, v3
  ST v4, 0
  v_mov_b32 v4, 0x12345678
  v_fma_f16 v4, v2, v3, v3 op_sel:[0,0,0,1]
  ST v4, 1
  v_lshrrev_b32 v8, 16, v2
  v_lshrrev_b32 v9, 16, v3
  v_mul_f16 v4, v8, v9                   // the high halves, into the low half (the high half is kept)
  ST v4, 2
  v_cvt_f16_f32 v4, v6
  ST v4, 3
  v_cvt_f32_f16 v4, v2
  ST v4, 4
  v_pk_add_f16 v4, v2, v3
  ST v4, 5
  v_pk_mul_f16 v4, v2, v3 op_sel:[1,0] op_sel_hi:[0,1]
  ST v4, 6
  v_pk_fma_f16 v4, v2, v3, v3 neg_lo:[1,0,0] neg_hi:[0,0,1]
  ST v4, 7
  v_cvt_pk_rtz_f16_f32 v4, v6, v7
  ST v4, 8
  v_mov_b32 v4, 0
  v_max_num_f16 v4, v2, v3
  ST v4, 9
  v_pk_add_u16 v4, v2, v3 clamp
  ST v4, 10
  v_pk_sub_i16 v4, v2, v3 clamp
  ST v4, 11
  v_fma_mix_f32 v4, v2, v3, v6 op_sel_hi:[1,1,0]
  ST v4, 12
  v_pk_add_f16 v4, v2, 1.0               // a float inline constant is <1.0, 1.0> (as LLVM assembles it)
  ST v4, 13
  v_pk_add_u16 v4, v2, 1                 // an integer one is the 32-bit value 1: <1, 0>
  ST v4, 14
