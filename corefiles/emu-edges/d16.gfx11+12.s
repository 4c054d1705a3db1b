// every sub-dword and d16 load/store spelling of GFX11/12 global memory (issue 22). in: slot 0 x; out slots 0-3
// stores, 4-13 loads into a preset 0x11112222
  LD v2, 0
  global_store_b8 v1, v2, s[6:7] offset:0*128
  global_store_b16 v1, v2, s[6:7] offset:1*128
  global_store_d16_hi_b8 v1, v2, s[6:7] offset:2*128
  global_store_d16_hi_b16 v1, v2, s[6:7] offset:3*128
.macro LDX op, off, slot
  v_mov_b32 v3, 0x11112222
  \op v3, v1, s[4:5] offset:\off
  WAIT_LOAD
  ST v3, \slot
.endm
  LDX global_load_u8, 1, 4
  LDX global_load_i8, 1, 5
  LDX global_load_u16, 2, 6
  LDX global_load_i16, 2, 7
  LDX global_load_d16_u8, 1, 8
  LDX global_load_d16_hi_u8, 1, 9
  LDX global_load_d16_i8, 1, 10
  LDX global_load_d16_hi_i8, 1, 11
  LDX global_load_d16_b16, 2, 12
  LDX global_load_d16_hi_b16, 2, 13
