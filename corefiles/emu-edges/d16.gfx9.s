// every sub-dword and d16 load/store spelling of GFX9 global memory (issue 22: *_store_byte_d16_hi stored four
// bytes of the unshifted register). in: slot 0 x; out slots 0-3 stores, 4-13 loads into a preset 0x11112222
  LD v2, 0
  global_store_byte v1, v2, s[6:7] offset:0*256
  global_store_short v1, v2, s[6:7] offset:1*256
  global_store_byte_d16_hi v1, v2, s[6:7] offset:2*256
  global_store_short_d16_hi v1, v2, s[6:7] offset:3*256
.macro LDX op, off, slot
  v_mov_b32 v3, 0x11112222
  \op v3, v1, s[4:5] offset:\off
  s_waitcnt vmcnt(0)
  ST v3, \slot
.endm
  LDX global_load_ubyte, 1, 4
  LDX global_load_sbyte, 1, 5
  LDX global_load_ushort, 2, 6
  LDX global_load_sshort, 2, 7
  LDX global_load_ubyte_d16, 1, 8
  LDX global_load_ubyte_d16_hi, 1, 9
  LDX global_load_sbyte_d16, 1, 10
  LDX global_load_sbyte_d16_hi, 1, 11
  LDX global_load_short_d16, 2, 12
  LDX global_load_short_d16_hi, 2, 13
  s_waitcnt vmcnt(0)
