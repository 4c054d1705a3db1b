// the correctly rounded f32 and f64 division sequences clang-22 -O2 emits (div_scale, rcp, Newton-Raphson
// fma steps, div_fmas with VCC, div_fixup) on special and extreme operands
  LD v2, 0                               // a (f32 numerator)
  LD v3, 1                               // b (f32 denominator)
  v_div_scale_f32 v16, null, v3, v3, v2
  v_rcp_f32 v18, v16
  v_div_scale_f32 v17, vcc_lo, v2, v3, v2
  v_fma_f32 v19, -v16, v18, 1.0
  v_fmac_f32 v18, v19, v18
  v_mul_f32 v19, v17, v18
  v_fma_f32 v20, -v16, v19, v17
  v_fmac_f32 v19, v20, v18
  v_fma_f32 v16, -v16, v19, v17
  v_div_fmas_f32 v8, v16, v18, v19
  v_div_fixup_f32 v8, v8, v3, v2
  ST v8, 0
  LD v10, 2                              // c (f64 numerator) low, high
  LD v11, 3
  LD v12, 4                              // e (f64 denominator) low, high
  LD v13, 5
  v_div_scale_f64 v[20:21], null, v[12:13], v[12:13], v[10:11]
  v_rcp_f64 v[22:23], v[20:21]
  v_div_scale_f64 v[24:25], vcc_lo, v[10:11], v[12:13], v[10:11]
  v_fma_f64 v[26:27], -v[20:21], v[22:23], 1.0
  v_fma_f64 v[22:23], v[22:23], v[26:27], v[22:23]
  v_fma_f64 v[26:27], -v[20:21], v[22:23], 1.0
  v_fma_f64 v[22:23], v[22:23], v[26:27], v[22:23]
  v_mul_f64 v[26:27], v[24:25], v[22:23]
  v_fma_f64 v[20:21], -v[20:21], v[26:27], v[24:25]
  v_div_fmas_f64 v[20:21], v[20:21], v[22:23], v[26:27]
  v_div_fixup_f64 v[28:29], v[20:21], v[12:13], v[10:11]
  ST v28, 1
  ST v29, 2
