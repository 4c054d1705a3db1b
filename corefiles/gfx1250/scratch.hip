// gfx1250 globally accessible scratch through flat pointers (corefiles/gfx1250/build.py; tests/emu/test_gfx1250_oracle.py).
// own_slot: each lane reads its own stack array through a generic pointer (what -O0 code does everywhere).
// lane0_slot: every lane reads lane 0's stack array through lane 0's generic pointer: legal on GFX12.5 (another
// lane's scratch is addressable), not emulated yet, so the emulator must stop rather than read the wrong lane.
#include <stdint.h>
#define __global__ __attribute__((global))

extern "C" __global__ void own_slot(int *out) {
  volatile int x[4];
  int l = __builtin_amdgcn_workitem_id_x();
  x[l & 3] = 100 + l;
  volatile int *p = x;
  out[l] = p[l & 3];
}

extern "C" __global__ void lane0_slot(int *out) {
  volatile int x[4];
  int l = __builtin_amdgcn_workitem_id_x();
  x[0] = 100 + l;
  uintptr_t q = (uintptr_t)x;
  uint32_t lo = __builtin_amdgcn_readfirstlane((uint32_t)q);
  uint32_t hi = __builtin_amdgcn_readfirstlane((uint32_t)(q >> 32));
  volatile int *p = (volatile int *)((uintptr_t)hi << 32 | lo);
  out[l] = p[0];
}
