// v_add_min_u32 with clamp: the clamp bit's effect on a saturating add is not modelled, so the wave must stop
// naming the instruction, never run it as if the bit were clear.
  v_add_min_u32 v4, v0, v1, v0 clamp
  ST v4, 0
