// round toward +inf (MODE.FP_ROUND f32 = 1): only round-to-nearest-even is emulated, so the add must stop
  LD v2, 0
  s_round_mode 1
  v_add_f32 v4, v2, v2
  ST v4, 0
