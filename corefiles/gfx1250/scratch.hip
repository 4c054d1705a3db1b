// gfx1250 globally accessible scratch through flat pointers (corefiles/gfx1250/build.py; tests/emu/test_gfx1250_oracle.py).
// own_slot: each lane reads its own stack array through a generic pointer (what -O0 code does everywhere).
// lane0_slot: every lane reads lane 0's stack array through lane 0's generic pointer (legal on GFX12.5: another
// lane's scratch is addressable). next_lane_store: each lane writes into the next lane's stack through its
// pointer, then reads its own. other_wave_slot: two waves swap stack pointers through LDS and read each other's.
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

static __attribute__((device)) inline uintptr_t lane_shuffle(uintptr_t q, int from) {
  uint32_t lo = __builtin_amdgcn_ds_bpermute(from * 4, (int)(uint32_t)q);
  uint32_t hi = __builtin_amdgcn_ds_bpermute(from * 4, (int)(uint32_t)(q >> 32));
  return (uintptr_t)hi << 32 | lo;
}

// out[l] = 200 + (l + 31) % 32: the value the previous lane wrote into this lane's x[1]
extern "C" __global__ void next_lane_store(int *out) {
  volatile int x[4];
  int l = __builtin_amdgcn_workitem_id_x();
  x[1] = -1;
  volatile int *next = (volatile int *)lane_shuffle((uintptr_t)x, (l + 1) % 32);
  next[1] = 200 + l;
  out[l] = x[1];
}

// 64 work-items (two waves): out[t] = 1000 + (t ^ 32), read from the other wave's stack; out[64 + t] =
// 2000 + (t ^ 32), what the other wave stored into this lane's stack
extern "C" __global__ void other_wave_slot(int *out) {
  __attribute__((shared)) uintptr_t ptrs[64];
  volatile int x[4];
  int t = __builtin_amdgcn_workitem_id_x();
  x[0] = 1000 + t;
  ptrs[t] = (uintptr_t)x;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  volatile int *p = (volatile int *)ptrs[t ^ 32];
  out[t] = p[0];
  p[1] = 2000 + t;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();  // the other wave's stack stays live until both have read and written
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  out[64 + t] = x[1];
}

// 32 work-items: every lane adds 1 + its lane number to lane 0's counter on lane 0's stack with an atomic through
// lane 0's pointer; lane 0 then reads it: out[0] = 1000 + 32 + (0 + 1 + ... + 31) = 1528, out[l > 0] = l.
extern "C" __global__ void lane0_atomic(int *out) {
  volatile int c[2];
  int l = __builtin_amdgcn_workitem_id_x();
  c[0] = 1000;
  int *p = (int *)lane_shuffle((uintptr_t)c, 0);
  __hip_atomic_fetch_add(p, 1 + l, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT);
  out[l] = l == 0 ? c[0] : l;
}
