// f16 rounding (ties to even, overflow to inf, denormals), which half a 16-bit result writes, f16<->f32
// conversions (RNE and pkrtz), IEEE max of f16, packed f16/i16/u16 math with op_sel/op_sel_hi/neg_lo/neg_hi and
// clamp, v_fma_mix_f32, packed f32 (gfx90a/gfx942)
  LD v2, 0                               // a: two f16 (lo, hi)
  LD v3, 1                               // b: two f16
  LD v6, 2                               // x (f32)
  LD v7, 3                               // y (f32)
  v_mov_b32 v4, 0x12345678
  v_add_f16 v4, v2, v3                   // GFX9: the high half is zeroed
  ST v4, 0
  v_mov_b32 v4, 0x12345678
  v_fma_f16 v4, v2, v3, v3               // GFX9 v_fma_f16 keeps the high half
  ST v4, 1
  v_mul_f16 v4, v2, v3
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
  v_cvt_pkrtz_f16_f32 v4, v6, v7
  ST v4, 8
  v_max_f16 v4, v2, v3
  ST v4, 9
  v_pk_add_u16 v4, v2, v3 clamp
  ST v4, 10
  v_pk_sub_i16 v4, v2, v3 clamp
  ST v4, 11
  v_fma_mix_f32 v4, v2, v3, v6 op_sel_hi:[1,1,0]
  ST v4, 12
  v_pk_fma_f32 v[8:9], v[6:7], v[6:7], v[6:7] op_sel_hi:[0,1,1]
  ST v8, 13
  ST v9, 14
  v_pk_mul_f32 v[8:9], v[6:7], v[6:7] op_sel:[1,0] neg_hi:[1,0]
  ST v8, 15
  ST v9, 16
  v_mov_b32 v4, 0x12345678
  v_fma_f16 v4, v2, v3, v3 op_sel:[1,1,0,1]  // high halves of a and b, low of the addend; result to the high half
  ST v4, 17
  v_pk_add_f16 v4, v2, 1.0               // a float inline constant is <1.0, 1.0> (as LLVM assembles it)
  ST v4, 18
  v_pk_add_u16 v4, v2, 1                 // an integer one is the 32-bit value 1: <1, 0>
  ST v4, 19
  v_pk_add_f32 v[8:9], v[6:7], 1.0       // packed f32: <1.0, 1.0>
  ST v8, 20
  ST v9, 21
