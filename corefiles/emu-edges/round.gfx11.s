// MODE.FP_ROUND (bits 1:0 f32, 3:2 f64/f16: 0 nearest even, 1 +inf, 2 -inf, 3 toward zero) set from input slot 9
// by s_setreg_b32 (as HIP's __fadd_rd/__fmul_ru/... and llvm.set.rounding do): add/sub/mul/fma/fmac f32, f64
// add/mul/fma, narrowing conversions, f16 add/fma, int->float, sqrt, ldexp into denormals, packed f16/f32 math,
// clang's f32 division sequence; then both fields at once by s_round_mode and the restore to nearest even
  LD v2, 0                               // a (f32)
  LD v3, 1                               // b (f32)
  LD v4, 2                               // c (f32)
  LD v10, 3                              // d (f64) low, high
  LD v11, 4
  LD v12, 5                              // e (f64) low, high
  LD v13, 6
  LD v5, 7                               // i (i32)
  LD v8, 8                               // h: two f16 (lo, hi)
  LD v9, 9                               // the MODE.FP_ROUND value (bits 3:0), the same in every lane
  v_readfirstlane_b32 s10, v9
  s_setreg_b32 hwreg(HW_REG_MODE, 0, 4), s10
  v_add_f32 v20, v2, v3
  ST v20, 0
  v_sub_f32 v20, v2, v3
  ST v20, 1
  v_mul_f32 v20, v2, v3
  ST v20, 2
  v_fma_f32 v20, v2, v3, v4
  ST v20, 3
  v_add_f64 v[20:21], v[10:11], v[12:13]
  ST v20, 4
  ST v21, 5
  v_mul_f64 v[20:21], v[10:11], v[12:13]
  ST v20, 6
  ST v21, 7
  v_fma_f64 v[20:21], v[10:11], v[12:13], v[10:11]
  ST v20, 8
  ST v21, 9
  v_cvt_f32_f64 v20, v[10:11]
  ST v20, 10
  v_mov_b32 v20, 0
  v_cvt_f16_f32 v20.l, v2
  ST v20, 11
  v_lshrrev_b32 v6, 16, v8               // h.hi in a low half
  v_mov_b32 v20, 0
  v_add_f16 v20.l, v8.l, v8.h
  ST v20, 12
  v_mov_b32 v20, 0
  v_fma_f16 v20.l, v8.l, v8.h, v8.l
  ST v20, 13
  v_cvt_f32_i32 v20, v5
  ST v20, 14
  v_cvt_f32_u32 v20, v5
  ST v20, 15
  v_sqrt_f32 v20, |v2|
  ST v20, 16
  s_movk_i32 s12, 0xff74                 // -140
  v_ldexp_f32 v20, v2, s12
  ST v20, 17
  v_pk_mul_f16 v20, v8, v8
  ST v20, 18
  v_mov_b32 v20, v4
  v_fmac_f32 v20, v2, v3
  ST v20, 19
  v_div_scale_f32 v16, null, v3, v3, v2       // a / b as clang-22 -O2 emits it
  v_rcp_f32 v18, v16
  v_div_scale_f32 v17, vcc_lo, v2, v3, v2
  v_fma_f32 v19, -v16, v18, 1.0
  v_fmac_f32 v18, v19, v18
  v_mul_f32 v19, v17, v18
  v_fma_f32 v20, -v16, v19, v17
  v_fmac_f32 v19, v20, v18
  v_fma_f32 v16, -v16, v19, v17
  v_div_fmas_f32 v20, v16, v18, v19
  v_div_fixup_f32 v20, v20, v3, v2
  ST v20, 20
  s_round_mode 0x7                       // f32 toward zero (bits 1:0 = 3), f64/f16 toward +inf (3:2 = 1)
  v_add_f32 v20, v2, v3
  ST v20, 23
  v_add_f64 v[20:21], v[10:11], v[12:13]
  ST v20, 24
  ST v21, 25
  v_mov_b32 v20, 0
  v_add_f16 v20.l, v8.l, v8.h
  ST v20, 26
  s_getreg_b32 s11, hwreg(HW_REG_MODE, 0, 4)
  v_mov_b32 v20, s11
  ST v20, 28
  s_setreg_imm32_b32 hwreg(HW_REG_MODE, 0, 4), 0   // back to nearest even
  v_add_f32 v20, v2, v3
  ST v20, 27
