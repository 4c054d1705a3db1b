// VGPR index mode (s_set_gpr_idx_on/off/idx/mode: DST, SRC0, SRC0+SRC1); gfx90a/gfx942 have no v_movrel*
  LD v2, 0                               // a
  v_mov_b32 v10, 0
  v_mov_b32 v11, 0
  v_mov_b32 v12, 0
  v_mov_b32 v13, 0
  v_mov_b32 v25, 0
  s_mov_b32 s8, 3
  s_set_gpr_idx_on s8, gpr_idx(DST)
  v_mov_b32 v10, v2                      // writes v13
  s_set_gpr_idx_off
  ST v13, 0
  s_set_gpr_idx_on s8, gpr_idx(SRC0)
  v_mov_b32 v5, v10                      // reads v13
  s_set_gpr_idx_off
  ST v5, 1
  s_set_gpr_idx_on s8, gpr_idx(SRC0,SRC1)
  v_add_u32 v5, v10, v10                 // v13 + v13
  s_set_gpr_idx_off
  ST v5, 2
  s_mov_b32 s9, 1
  s_set_gpr_idx_on s9, gpr_idx(DST)
  s_set_gpr_idx_idx s8                   // index 3
  s_set_gpr_idx_mode gpr_idx(SRC0)       // sources, not the destination
  v_mov_b32 v6, v10                      // reads v13
  s_set_gpr_idx_off
  ST v6, 3
