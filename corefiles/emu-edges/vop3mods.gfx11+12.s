// VOP3 source modifiers on their own operands, and VCC as a data source (issue 22):
// slots in: 0 x, 1 y, 2 sel (0/1), 3 z (f32 bits); out: one result per slot
  LD v2, 0
  LD v3, 1
  LD v4, 2
  LD v6, 3
  v_cmp_ne_u32_e64 s8, 0, v4                // s8: the lanes whose sel != 0
  s_mov_b32 vcc_lo, 0x5a5a0ff0              // VCC as a data source (one value for every lane)
  v_cndmask_b32_e64 v5, v2, vcc_lo, s8      // 0: sel ? vcc_lo : x
  ST v5, 0
  v_cndmask_b32_e64 v5, vcc_lo, v3, s8      // 1: sel ? y : vcc_lo
  ST v5, 1
  v_add_co_ci_u32_e64 v5, s9, vcc_lo, v2, s8  // 2: vcc_lo + x + sel
  ST v5, 2
  v_cmp_gt_i32_e32 vcc_lo, 0, v2            // x < 0 (as an integer: the sign bit)
  v_cndmask_b32_e64 v5, v2, -v2, vcc_lo     // 3: clang's `v < 0 ? -v : v`
  ST v5, 3
  v_cndmask_b32_e64 v5, -v2, |v3|, s8       // 4: sel ? |y| : -x
  ST v5, 4
  v_cndmask_b32_e64 v5, |v2|, -|v3|, s8     // 5: sel ? -|y| : |x|
  ST v5, 5
  v_fma_f32 v5, -v2, |v3|, -|v6|            // 6
  ST v5, 6
  v_sub_f32_e64 v5, |v2|, -v3               // 7
  ST v5, 7
  v_cmp_lt_f32_e64 s10, -v2, |v3|           // 8: (-x < |y|) as 0/1
  v_cndmask_b32_e64 v5, 0, 1, s10
  ST v5, 8
  v_med3_f32 v5, -v2, v3, |v6|              // 9
  ST v5, 9
  v_max_f32_e64 v5, v2, -v3                 // 10
  ST v5, 10
  v_cmp_ne_u16_e32 vcc_lo, 0, v2.h          // 11: the high half of x != 0 (e32 true16 .h source)
  v_cndmask_b32_e64 v5, 0, 1, vcc_lo
  ST v5, 11
  s_mov_b32 s12, exec_lo
  v_mov_b32 v5, 0
  v_cmpx_ne_u16_e32 0, v2.h                 // 12: cmpx on the high half
  v_mov_b32 v5, 1
  s_mov_b32 exec_lo, s12
  ST v5, 12
  v_mov_b32 v7, v2                          // 13, 14: v_swap_b32
  v_mov_b32 v8, v3
  v_swap_b32 v7, v8
  ST v7, 13
  ST v8, 14
