// row_bcast:15 into row 0 (no previous row): the hardware result is not defined here, so the emulator must stop
  LD v2, 0
  v_mov_b32 v4, 0xdeadbeef
  v_mov_b32_dpp v4, v2 row_bcast:15 row_mask:0xf bank_mask:0xf
  ST v4, 0
