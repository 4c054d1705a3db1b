// GFX12.5 `scale_offset`: the 32-bit VGPR offset of a SADDR global access (and the SGPR soffset of SMEM) counts
// elements of the access size; the immediate offset stays in bytes. v0 = lane id (an element index).
  global_load_b32 v2, v0, s[4:5] scale_offset              // in[lane]
  s_wait_loadcnt 0
  ST v2, 0
  global_load_b32 v2, v0, s[4:5] offset:128 scale_offset   // in[32 + lane]: the immediate is not scaled
  s_wait_loadcnt 0
  ST v2, 1
  global_load_b64 v[2:3], v0, s[4:5] scale_offset          // in[2 * lane], in[2 * lane + 1]
  s_wait_loadcnt 0
  ST v2, 2
  ST v3, 3
  global_load_u16 v2, v0, s[4:5] scale_offset              // halfword `lane` of in
  s_wait_loadcnt 0
  ST v2, 4
  s_mov_b32 s8, 3
  s_load_b32 s9, s[4:5], s8 offset:0x0 scale_offset        // in[3]
  s_wait_kmcnt 0
  v_mov_b32 v2, s9
  ST v2, 5
  s_load_b64 s[10:11], s[4:5], s8 offset:0x4 scale_offset  // bytes 8 * 3 + 4: in[7], in[8]
  s_wait_kmcnt 0
  v_mov_b32 v2, s10
  ST v2, 6
  v_mov_b32 v2, s11
  ST v2, 7
  v_add_nc_u32 v3, 0x100, v0                              // slot 8 of out as an element index: 8 * 32 + lane
  v_mul_lo_u32 v2, v0, 3
  global_store_b32 v3, v2, s[6:7] scale_offset
  v_add_nc_u32 v3, 0x120, v0                              // slot 9 (zero beforehand): atomic add lane + 1
  v_add_nc_u32 v2, 1, v0
  global_atomic_add_u32 v3, v2, s[6:7] scale_offset scope:SCOPE_DEV
  s_wait_storecnt 0
