// GFX11 true16 v_swap_b16: the named halves are exchanged, the other halves kept (in: slot 0 x, 1 y)
  LD v2, 0
  LD v3, 1
  v_swap_b16 v2.h, v3.l
  ST v2, 0
  ST v3, 1
  v_swap_b16 v2.l, v3.l
  ST v2, 2
  ST v3, 3
