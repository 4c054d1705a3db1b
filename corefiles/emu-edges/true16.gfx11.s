// GFX11 true16 readers of a `.h` source that issue 22's audit found reading the low half, and the 16-bit ops it
// found without semantics. in: slot 0 x, 1 y, 2 z (each two 16-bit halves); out: one result per slot
  LD v2, 0
  LD v3, 1
  LD v4, 2
  v_mov_b32 v5, 0x5a5a5a5a
  v_min3_i16 v5.l, v2.h, v3.l, v4.h        // 0: min(x.h, y.l, z.h) signed, high half kept
  ST v5, 0
  v_mov_b32 v5, 0x5a5a5a5a
  v_max3_u16 v5.h, v2.l, v3.h, v4.l        // 1: max(x.l, y.h, z.l) unsigned, into the high half
  ST v5, 1
  v_mov_b32 v5, 0x5a5a5a5a
  v_med3_i16 v5.l, v2.l, v3.h, v4.h        // 2: median(x.l, y.h, z.h) signed
  ST v5, 2
  v_cvt_i32_i16_e32 v5, v2.h               // 3: sext(x.h)
  ST v5, 3
  v_cvt_u32_u16_e32 v5, v3.h               // 4: zext(y.h)
  ST v5, 4
  v_alignbit_b32 v5, v2, v3, v4.h          // 5: ({x, y} >> (z.h & 31))
  ST v5, 5
  v_alignbyte_b32 v5, v2, v3, v4.h         // 6: ({x, y} >> 8 * (z.h & 3))
  ST v5, 6
  v_mov_b32 v5, 0
  v_ldexp_f16 v5.l, v2.l, v3.h             // 7: f16(x.l) * 2 ** sext(y.h)
  ST v5, 7
  v_cmp_class_f16_e64 s8, v2.l, v4.h       // 8: class of f16(x.l) in the mask z.h
  v_cndmask_b32_e64 v5, 0, 1, s8
  ST v5, 8
