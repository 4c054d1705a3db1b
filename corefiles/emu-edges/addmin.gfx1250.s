// GFX12.5 add-then-min/max (v_add_{min,max}_{i32,u32}, v_pk_add_{min,max}_{i16,u16}), the f64 minimumNumber /
// maximumNumber atomics ({global,flat}_atomic_{min,max}_num_f64, returning and not), v_cvt_pk_bf16_f32 and
// s_get_shader_cycles_u64. Inputs: slots 0/1 = M (f64 lo/hi, memory's value), 2/3 = D (f64, the atomic's data),
// 4, 5, 6 = a, b, c (32-bit). Outputs: slots 0..7 = four f64 regions of M after an atomic each (8 bytes a lane),
// 8/9 and 10/11 = the returned old values, 12.. = the VALU results.
  LD v2, 0
  LD v3, 1
  LD v4, 2
  LD v5, 3
  v_lshlrev_b32 v10, 3, v0                 // lane * 8: a lane's f64 in a region
  v_mov_b32 v11, 0
  global_store_b64 v10, v[2:3], s[6:7]
  global_store_b64 v10, v[2:3], s[6:7] offset:256
  global_store_b64 v10, v[2:3], s[6:7] offset:512
  global_store_b64 v10, v[2:3], s[6:7] offset:768
  s_wait_storecnt 0
  global_atomic_min_num_f64 v[8:9], v10, v[4:5], s[6:7] th:TH_ATOMIC_RETURN
  global_atomic_max_num_f64 v10, v[4:5], s[6:7] offset:256
  v_add_nc_u64 v[12:13], s[6:7], v[10:11]   // the flat address of the lane's f64 in region 0
  flat_atomic_min_num_f64 v[12:13], v[4:5] offset:512
  flat_atomic_max_num_f64 v[14:15], v[12:13], v[4:5] offset:768 th:TH_ATOMIC_RETURN
  s_wait_loadcnt 0
  s_wait_storecnt 0
  ST v8, 8
  ST v9, 9
  ST v14, 10
  ST v15, 11
  LD v16, 4
  LD v17, 5
  LD v18, 6
  v_add_min_i32 v19, v16, v17, v18
  ST v19, 12
  v_add_max_i32 v19, v16, v17, v18
  ST v19, 13
  v_add_min_u32 v19, v16, v17, v18
  ST v19, 14
  v_add_max_u32 v19, v16, v17, v18
  ST v19, 15
  v_pk_add_min_u16 v19, v16, v17, v18
  ST v19, 16
  v_pk_add_max_i16 v19, v16, v17, v18
  ST v19, 17
  v_pk_add_min_i16 v19, v16, v17, v18
  ST v19, 18
  v_pk_add_max_u16 v19, v16, v17, v18 op_sel:[1,0,0] op_sel_hi:[0,1,1]   // S0's high half to the low result
  ST v19, 19
  v_add_min_u32 v19, v16, 5, v18            // an inline constant as S1
  ST v19, 20
  v_cvt_pk_bf16_f32 v19, v16, v17
  ST v19, 21
  s_get_shader_cycles_u64 s[8:9]
  s_get_shader_cycles_u64 s[10:11]
  s_sub_nc_u64 s[10:11], s[10:11], s[8:9]   // the counter does not go back
  v_mov_b32 v19, s11
  ST v19, 22
