// GFX12.5 integer VALU that clang-22 emits for 64-bit index math: v_add/sub_nc_u64, v_mul_u64, v_mad_nc_u64_u32,
// v_min/max_i64/u64, v_mad_u32, v_nop and s_get_pc_i64. Inputs: slots 0..3 = a.lo a.hi b.lo b.hi, slot 4 = c.
  LD v2, 0
  LD v3, 1
  LD v4, 2
  LD v5, 3
  LD v6, 4
  v_add_nc_u64 v[8:9], v[2:3], v[4:5]
  ST v8, 0
  ST v9, 1
  v_sub_nc_u64 v[8:9], v[2:3], v[4:5]
  ST v8, 2
  ST v9, 3
  v_mul_u64 v[8:9], v[2:3], v[4:5]
  ST v8, 4
  ST v9, 5
  v_mad_nc_u64_u32 v[8:9], v2, v4, v[4:5]
  ST v8, 6
  ST v9, 7
  v_min_i64 v[8:9], v[2:3], v[4:5]
  ST v8, 8
  ST v9, 9
  v_max_u64 v[8:9], v[2:3], v[4:5]
  ST v8, 10
  ST v9, 11
  v_nop
  v_mad_u32 v8, v2, v4, v6
  ST v8, 12
  s_get_pc_i64 s[8:9]                    // the address of the next instruction (the kernel is 256-aligned)
  s_and_b32 s8, s8, 0xff
  v_mov_b32 v8, s8
  ST v8, 13
  v_add_nc_u64 v[8:9], 5, v[2:3]         // an inline constant as S0
  ST v8, 14
  ST v9, 15
  v_mad_u32 v8, v2, 7, -3                 // an inline negative constant is not a modifier
  ST v8, 16
