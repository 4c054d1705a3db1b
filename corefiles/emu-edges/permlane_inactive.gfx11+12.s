// v_permlanex16_b32 with lanes 16-31 out of EXEC and no FI: the active lanes would read inactive ones
  LD v2, 0
  s_mov_b32 exec_lo, 0xffff
  s_mov_b32 s8, 0
  v_permlanex16_b32 v5, v2, s8, s8
  ST v5, 0
