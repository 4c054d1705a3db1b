// MUBUF d16 loads and stores (GFX11/12 spelling): buffer resources over `out` (s[8:11]) and `in` (s[12:15]),
// stride 0, num_records all ones, dword3 0 (the emulator reads only its swizzle/add_tid fields). in: slot 0 x;
// out: 0 store_d16_hi_b8, 1 store_d16_hi_b16, 2-7 loads into a preset 0x11112222
  LD v2, 0
  s_mov_b32 s8, s6
  s_and_b32 s9, s7, 0xffff
  s_mov_b32 s10, -1
  s_mov_b32 s11, 0
  s_mov_b32 s12, s4
  s_and_b32 s13, s5, 0xffff
  s_mov_b32 s14, -1
  s_mov_b32 s15, 0
  s_mov_b32 s16, 0
  buffer_store_d16_hi_b8 v2, v1, s[8:11], s16 offen offset:0
  buffer_store_d16_hi_b16 v2, v1, s[8:11], s16 offen offset:128
.macro LDB op, off, slot
  v_mov_b32 v3, 0x11112222
  \op v3, v1, s[12:15], s16 offen offset:\off
  WAIT_LOAD
  ST v3, \slot
.endm
  LDB buffer_load_d16_u8, 1, 2
  LDB buffer_load_d16_hi_u8, 1, 3
  LDB buffer_load_d16_i8, 1, 4
  LDB buffer_load_d16_hi_i8, 1, 5
  LDB buffer_load_d16_b16, 2, 6
  LDB buffer_load_d16_hi_b16, 2, 7
