// lanehangs: polls whose exit condition goes through a cross-lane operation (issue 20: loop proofs on shapes
// outside the explorehangs corpus). Each lane polls its own word of `go` (nothing in the dispatch writes it) and
// the wave combines the lanes' values with HIP's __shfl / __shfl_xor (ds_bpermute), DPP row shifts and readlane
// (a wave reduction, as rocprim's), or ds_swizzle and readfirstlane; the loop counts its spins, so the machine
// state never repeats and only a proof from the exit condition finds the hang. The twins must not be called
// hangs: a timeout read through a shuffle of the counter, and a late writer one lane of the reduction sees.
// Built by build.py (corefiles/oracle/build.py's 24 configurations); LANEHANGS_WAVE is the wave size.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

__device__ static inline unsigned tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned group_x() { return __builtin_amdgcn_workgroup_id_x(); }

// HIP's __lane_id, __shfl and __shfl_xor (amd_warp_functions.h), for a whole-wave width.
__device__ static inline int lane_id() {
#if LANEHANGS_WAVE == 64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}
__device__ static inline int shfl(int var, int src_lane) {
  int self = lane_id();
  int index = src_lane + (self & ~(LANEHANGS_WAVE - 1));
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ static inline int shfl_xor(int var, int lane_mask) {
  int self = lane_id();
  int index = self ^ lane_mask;
  index = index >= ((self + LANEHANGS_WAVE) & ~(LANEHANGS_WAVE - 1)) ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ static inline int poll(int *go, unsigned t) {
  return __hip_atomic_load(go + (t & 3), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// ---- hangs: the combined value can never change, the counter does ----

// __shfl: lane 0's poll decides for the whole wave.
__global__ void shfl_poll(int *go, int *out) {
  unsigned t = tid_x();
  int spins = 0;
  while (shfl(poll(go, t), 0) == 0) spins += 1;
  out[t] = spins;
}

// __shfl_xor butterfly: a wave sum of every lane's poll, in the spin condition.
__global__ void xor_reduce_poll(int *go, int *out) {
  unsigned t = tid_x();
  int spins = 0;
  for (;;) {
    int v = poll(go, t);
    for (int m = LANEHANGS_WAVE / 2; m > 0; m >>= 1) v += shfl_xor(v, m);
    if (v != 0) break;
    spins += 1;
  }
  out[t] = spins;
}

// DPP row shifts (a row's inclusive OR) and readlane of the row's last lane, as a wave reduction does.
__global__ void dpp_reduce_poll(int *go, int *out) {
  unsigned t = tid_x();
  int spins = 0;
  for (;;) {
    int v = poll(go, t);
    v |= __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false);  // row_shr:1
    v |= __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, false);  // row_shr:2
    v |= __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, false);  // row_shr:4
    v |= __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, false);  // row_shr:8
    if (__builtin_amdgcn_readlane(v, 15) != 0) break;
    spins += 1;
  }
  out[t] = spins;
}

// ds_swizzle (swap adjacent lanes) and readfirstlane.
__global__ void swizzle_poll(int *go, int *out) {
  unsigned t = tid_x();
  int spins = 0;
  for (;;) {
    int v = poll(go, t);
    v |= __builtin_amdgcn_ds_swizzle(v, 0x041F);  // bit mode: and 0x1f, or 0, xor 1
    if (__builtin_amdgcn_readfirstlane(v) != 0) break;
    spins += 1;
  }
  out[t] = spins;
}

// ---- not hangs ----

// The timeout comes through a shuffle of lane 1's counter: the exit condition changes every iteration.
__global__ void shfl_timeout(int *go, int *out, int limit) {
  unsigned t = tid_x();
  int spins = 0;
  while (shfl(poll(go, t), 0) == 0 && shfl(spins, 1) < limit) spins += 1;
  out[t] = spins;
}

// Every wave polls through a DPP reduction while the first wave of workgroup 1 counts to n and then sets go[3]
// (lanes 3, 7, 11, 15 of each row poll it; the row's OR reaches lane 15): the pollers' condition changes when it
// lands; the run completes.
__global__ void dpp_late_writer(int *go, int *out, int n) {
  unsigned t = tid_x();
  if (group_x() == 1 && t < LANEHANGS_WAVE) {
    int acc = 0;
    for (int i = 0; i < n; i++) acc += i ^ (int)t;
    out[t] = acc;
    if (t == 0) __hip_atomic_store(go + 3, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    return;
  }
  for (;;) {
    int v = poll(go, t);
    v |= __builtin_amdgcn_update_dpp(0, v, 0x111, 0xf, 0xf, false);
    v |= __builtin_amdgcn_update_dpp(0, v, 0x112, 0xf, 0xf, false);
    v |= __builtin_amdgcn_update_dpp(0, v, 0x114, 0xf, 0xf, false);
    v |= __builtin_amdgcn_update_dpp(0, v, 0x118, 0xf, 0xf, false);
    if (__builtin_amdgcn_readlane(v, 15) != 0) break;
  }
}
