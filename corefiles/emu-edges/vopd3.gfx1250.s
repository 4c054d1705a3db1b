// GFX12.5 VOPD3 dual issue (three sources, explicit cndmask selector, neg, bitop2), v_bitop3_b32 and 64-bit
// literals. Inputs: slot 0 = a, slot 1 = b, slot 2 = c (f32 bits for the fma).
  LD v2, 0
  LD v3, 1
  LD v4, 2
  v_dual_mov_b32 v5, 0 :: v_dual_bitop2_b32 v6, 7, v2 bitop3:0x40          // a & 7
  ST v6, 0
  v_dual_add_nc_u32 v5, v2, v3 :: v_dual_bitop2_b32 v6, v2, v3 bitop3:0x14  // a + b, a ^ b
  ST v5, 1
  ST v6, 2
  v_dual_mov_b32 v7, v2 :: v_dual_bitop2_b32 v6, v2, v3 bitop3:0x54          // a | b
  ST v6, 3
  v_cmp_gt_u32_e64 s8, v2, v3
  v_dual_cndmask_b32 v5, v2, v3, s8 :: v_dual_sub_nc_u32 v6, v2, v3         // a > b ? b : a ; a - b
  ST v5, 4
  ST v6, 5
  v_dual_fma_f32 v5, -v2, v3, v4 :: v_dual_mov_b32 v6, v4                    // -a * b + c
  ST v5, 6
  v_mov_b32 v8, v2
  v_mov_b32 v9, v3
  v_dual_mov_b32 v8, v9 :: v_dual_mov_b32 v9, v8                            // a swap: both read before writing
  ST v8, 7
  ST v9, 8
  v_bitop3_b32 v5, v2, v3, v4 bitop3:0xe8                                   // majority(a, b, c)
  ST v5, 9
  v_add_nc_u64 v[10:11], 0x123456789a, v[2:3]                              // a 64-bit literal
  ST v10, 10
  ST v11, 11
  v_dual_mov_b32 v7, v2 :: v_dual_bitop2_b32 v6, v2, v3 bitop3:0x10          // a & ~b (not symmetric)
  ST v6, 12
  v_bitop3_b32 v5, v2, v3, v4 bitop3:0xca                                   // a ? b : c, bit by bit
  ST v5, 13
