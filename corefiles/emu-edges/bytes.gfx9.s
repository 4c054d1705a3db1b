// byte-lane integer ops compiled code uses (HIP's __builtin_amdgcn_lerp / msad_u8): v_lerp_u8, v_msad_u8 (+ clamp)
  LD v2, 0                               // a
  LD v3, 1                               // b
  LD v4, 2                               // c
  v_lerp_u8 v5, v2, v3, v4
  ST v5, 0
  v_msad_u8 v5, v2, v3, v4
  ST v5, 1
  v_msad_u8 v5, v2, v3, v4 clamp
  ST v5, 2
