// VOP3 source modifiers on their own operands (issue 22; the GFX9 decoder leaves them in the text only):
// slots in: 0 x, 1 y, 2 sel (0/1), 3 z (f32 bits); out: one result per slot (2, 11, 12 unused here)
  LD v2, 0
  LD v3, 1
  LD v4, 2
  LD v6, 3
  v_cmp_ne_u32_e64 s[8:9], 0, v4            // s[8:9]: the lanes whose sel != 0
  v_cmp_gt_i32_e32 vcc, 0, v2               // x < 0 (as an integer: the sign bit)
  v_cndmask_b32_e64 v5, v2, -v2, vcc        // 3: clang's `v < 0 ? -v : v`
  ST v5, 3
  v_cndmask_b32_e64 v5, -v2, |v3|, s[8:9]   // 4: sel ? |y| : -x
  ST v5, 4
  v_cndmask_b32_e64 v5, |v2|, -|v3|, s[8:9] // 5: sel ? -|y| : |x|
  ST v5, 5
  v_fma_f32 v5, -v2, |v3|, -|v6|            // 6
  ST v5, 6
  v_sub_f32_e64 v5, |v2|, -v3               // 7
  ST v5, 7
  v_cmp_lt_f32_e64 s[10:11], -v2, |v3|      // 8: (-x < |y|) as 0/1
  v_cndmask_b32_e64 v5, 0, 1, s[10:11]
  ST v5, 8
  v_med3_f32 v5, -v2, v3, |v6|              // 9
  ST v5, 9
  v_max_f32_e64 v5, v2, -v3                 // 10
  ST v5, 10
  v_mov_b32 v7, v2                          // 13, 14: v_swap_b32 (gfx90a: clang-22 -O2 emits it)
  v_mov_b32 v8, v3
  v_swap_b32 v7, v8
  ST v7, 13
  ST v8, 14
