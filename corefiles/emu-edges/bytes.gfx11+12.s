// byte-lane integer ops (v_lerp_u8, v_msad_u8 + clamp), GFX10+ row permutes (v_permlane16/x16), the realtime message
  LD v2, 0                               // a
  LD v3, 1                               // b
  LD v4, 2                               // c
  v_lerp_u8 v5, v2, v3, v4
  ST v5, 0
  v_msad_u8 v5, v2, v3, v4
  ST v5, 1
  v_msad_u8 v5, v2, v3, v4 clamp
  ST v5, 2
  s_mov_b32 s8, 0x01234567               // lanes 0-7 of each row read lanes 7,6,...,0
  s_mov_b32 s9, 0xfedcba98               // lanes 8-15 read 8..15
  v_permlane16_b32 v5, v2, s8, s9
  ST v5, 3
  s_mov_b32 s8, 0x3f2e1d0c
  s_mov_b32 s9, 0xb4a59687
  v_permlanex16_b32 v5, v2, s8, s9
  ST v5, 4
  s_sendmsg_rtn_b64 s[10:11], sendmsg(MSG_RTN_GET_REALTIME)
  WAIT_MSG
  s_sendmsg_rtn_b64 s[12:13], sendmsg(MSG_RTN_GET_REALTIME)
  WAIT_MSG
  s_sub_u32 s14, s12, s10                // a later reading is larger
  s_cselect_b32 s15, 0, 1                // no borrow
  v_mov_b32 v5, s15
  ST v5, 5
