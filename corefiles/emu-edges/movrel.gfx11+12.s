// M0-relative VGPR moves: v_movrels_b32, v_movreld_b32, v_movrelsd_b32, v_movrelsd_2_b32
  LD v2, 0                               // a
  v_mov_b32 v20, v2
  v_mov_b32 v25, 0
  v_mov_b32 v31, 0
  v_mov_b32 v43, 0
  s_mov_b32 m0, 2
  v_movrels_b32 v7, v18                  // reads v20
  ST v7, 0
  s_mov_b32 m0, 5
  v_movreld_b32 v20, v2                  // writes v25
  ST v25, 1
  s_mov_b32 m0, 1
  v_movrelsd_b32 v30, v19                // v31 = v20
  ST v31, 2
  s_mov_b32 m0, 0x30002                  // destination +3, source +2
  v_movrelsd_2_b32 v40, v18              // v43 = v20
  ST v43, 3
