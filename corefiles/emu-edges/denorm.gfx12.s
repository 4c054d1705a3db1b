// denormal flush per MODE.FP_DENORM (f32 field bits 5:4, f64/f16 field bits 7:6): 3 keep, 0 flush in+out,
// 1 keep in/flush out, 2 flush in/keep out
  LD v2, 0                               // a (f32)
  LD v3, 1                               // b (f32)
  LD v6, 2                               // c: f64 low dword / two f16
  LD v7, 3                               // c: f64 high dword
  LD v8, 4                               // d: f64 low dword / two f16
  LD v9, 5                               // d: f64 high dword
  v_add_f32 v4, v2, v3
  ST v4, 0
  s_denorm_mode 0 | (3 << 2)
  v_add_f32 v4, v2, v3
  ST v4, 1
  v_mul_f32 v4, v2, v3
  ST v4, 2
  s_denorm_mode 1 | (3 << 2)
  v_add_f32 v4, v2, v3
  ST v4, 3
  s_denorm_mode 2 | (3 << 2)
  v_add_f32 v4, v2, v3
  ST v4, 4
  s_denorm_mode 3 | (3 << 2)
  v_add_f64 v[10:11], v[6:7], v[8:9]
  ST v10, 5
  ST v11, 6
  v_add_f16 v4, v6, v8
  ST v4, 7
  s_denorm_mode 3
  v_add_f64 v[10:11], v[6:7], v[8:9]
  ST v10, 8
  ST v11, 9
  v_add_f16 v4, v6, v8
  ST v4, 10
  v_add_f32 v4, v2, v3                   // the f32 field is 3 again
  ST v4, 11
  s_getreg_b32 s10, hwreg(HW_REG_MODE, 0, 10)
  v_mov_b32 v4, s10
  ST v4, 12
