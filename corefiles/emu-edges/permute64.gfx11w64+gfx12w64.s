// ds_bpermute_b32 / ds_permute_b32 in wave64 on GFX11/GFX12: GFX10+ permute within each 32-lane half (the lane
// index is taken modulo 32 inside the issuing lane's own half), where GFX9 permutes across all 64 lanes.
// Slot 0: the data; slot 1: per-lane byte addresses, chosen to point into the other half for many lanes.
  LD v2, 0
  LD v3, 1
  ds_bpermute_b32 v4, v3, v2
  ds_permute_b32 v5, v3, v2
  ds_bpermute_b32 v6, v3, v2 offset:128
  v_mov_b32 v7, 0
  s_mov_b32 exec_lo, 0xffff00ff
  s_mov_b32 exec_hi, 0xffff0000
  ds_bpermute_b32 v7, v3, v2
  s_mov_b64 exec, -1
  WAIT_DS
  ST v4, 0
  ST v5, 1
  ST v6, 2
  ST v7, 3
