// f64: trig_preop segments of 2/pi, min/max with -0 and NaN, floor/fract/rndne, frexp, ldexp into denormals,
// class, conversions to f32 (RNE, overflow) and to i32 (truncate, saturate, NaN -> 0)
  LD v10, 0                              // a (f64) low, high
  LD v11, 1
  LD v12, 2                              // b (f64) low, high
  LD v13, 3
  v_trig_preop_f64 v[14:15], v[10:11], 0
  ST v14, 0
  ST v15, 1
  v_trig_preop_f64 v[14:15], v[10:11], 1
  ST v14, 2
  ST v15, 3
  v_min_f64 v[14:15], v[10:11], v[12:13]
  ST v14, 4
  ST v15, 5
  v_max_f64 v[14:15], v[10:11], v[12:13]
  ST v14, 6
  ST v15, 7
  v_floor_f64 v[14:15], v[10:11]
  ST v14, 8
  ST v15, 9
  v_fract_f64 v[14:15], v[10:11]
  ST v14, 10
  ST v15, 11
  v_rndne_f64 v[14:15], v[10:11]
  ST v14, 12
  ST v15, 13
  v_frexp_mant_f64 v[14:15], v[10:11]
  ST v14, 14
  ST v15, 15
  v_frexp_exp_i32_f64 v14, v[10:11]
  ST v14, 16
  s_movk_i32 s10, 0xfc00                 // -1024
  v_ldexp_f64 v[14:15], v[10:11], s10
  ST v14, 17
  ST v15, 18
  s_movk_i32 s11, 0x2a5                  // classes sNaN, -inf, -0, +denormal, +inf (bits 0, 2, 5, 7, 9)
  v_cmp_class_f64_e64 s12, v[10:11], s11
  v_cndmask_b32_e64 v14, 0, 1, s12
  ST v14, 19
  v_cvt_f32_f64 v14, v[10:11]
  ST v14, 20
  v_cvt_i32_f64 v14, v[10:11]
  ST v14, 21
  v_mul_f64 v[14:15], v[10:11], v[12:13]
  ST v14, 22
  ST v15, 23
