// packed f16 dot product into f32 (fdot2): the ISA pseudocode's order, tmp = S2; tmp += lo*lo; tmp += hi*hi
  LD v2, 0                               // a (f16 x2)
  LD v3, 1                               // b (f16 x2)
  LD v4, 2                               // c (f32)
  v_dot2_f32_f16 v5, v2, v3, v4
  ST v5, 0
  v_mov_b32 v5, v4
  v_dot2_f32_f16 v5, v2, v3, v5
  ST v5, 1
  v_dot2_f32_f16 v5, v2, v3, v4 neg_lo:[1,0,0] neg_hi:[0,1,0]
  ST v5, 2
  v_dot2_f32_f16 v5, v2, v3, v4 op_sel:[1,0,0] op_sel_hi:[0,1,1]
  ST v5, 3
  v_dot2_f32_f16 v5, v2, v3, v4 clamp
  ST v5, 4
  v_dot2_f32_bf16 v5, v2, v3, v4          // the same bits as bf16 pairs
  ST v5, 5
  v_dot2_f32_bf16 v5, v2, v3, v4 neg_lo:[0,1,0]
  ST v5, 6
