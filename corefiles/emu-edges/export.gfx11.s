// an export in a compute dispatch: expcnt waits are satisfied at once (no export is ever outstanding), and the
// `exp` itself stops the wave naming it (no render targets); gfx90a/gfx94x have no export instruction
  s_waitcnt expcnt(0)
  LD v2, 0
  ST v2, 0                               // reached: the expcnt wait did not block
  s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)
  exp mrt0 v2, v2, v2, v2 done
  ST v2, 1                               // never reached
