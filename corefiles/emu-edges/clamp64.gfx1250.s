// Clamp on the gfx1250 integer forms llvm-mc-22 accepts it on (LLVM never emits them): each must stop the wave
// naming clamp, never run as if the bit were clear. in[0] (lane 0 of slot 0) picks the form; slot 1 feeds it.
  LD v2, 0
  LD v3, 1
  v_mov_b32 v4, -1
  v_mov_b32 v5, -1
  v_readfirstlane_b32 s8, v2
  s_cmp_eq_u32 s8, 0
  s_cbranch_scc1 .Ladd64
  s_cmp_eq_u32 s8, 1
  s_cbranch_scc1 .Lsub64
  s_cmp_eq_u32 s8, 2
  s_cbranch_scc1 .Lmadu
  s_cmp_eq_u32 s8, 3
  s_cbranch_scc1 .Lmadi
  s_cmp_eq_u32 s8, 4
  s_cbranch_scc1 .Laddmax
  s_cmp_eq_u32 s8, 5
  s_cbranch_scc1 .Lpkaddmin
  v_add_nc_u64 v[6:7], v[4:5], v[2:3]
  s_branch .Lstore
.Ladd64:
  v_add_nc_u64 v[6:7], v[4:5], v[2:3] clamp
  s_branch .Lstore
.Lsub64:
  v_sub_nc_u64 v[6:7], v[2:3], v[4:5] clamp
  s_branch .Lstore
.Lmadu:
  v_mad_nc_u64_u32 v[6:7], v3, v4, v[4:5] clamp
  s_branch .Lstore
.Lmadi:
  v_mad_nc_i64_i32 v[6:7], v3, v4, v[4:5] clamp
  s_branch .Lstore
.Laddmax:
  v_add_max_i32 v6, v4, v3, v2 clamp
  v_mov_b32 v7, 0
  s_branch .Lstore
.Lpkaddmin:
  v_pk_add_min_u16 v6, v4, v3, v2 clamp
  v_mov_b32 v7, 0
.Lstore:
  ST v6, 0
  ST v7, 1
