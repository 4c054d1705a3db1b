// an export in a compute dispatch: expcnt waits are satisfied at once (no export is ever outstanding), and the
// `export` itself stops the wave naming it (no render targets); gfx90a/gfx94x have no export instruction
  s_wait_expcnt 0
  LD v2, 0
  ST v2, 0                               // reached: the expcnt wait did not block
  s_wait_expcnt 0
  export mrt0 v2, v2, v2, v2 done
  ST v2, 1                               // never reached
