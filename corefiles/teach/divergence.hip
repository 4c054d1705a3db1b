// Kernels whose divergence is known by hand, for `amddbg divergence` and its tests.
// Built without HIP headers (as corefiles/src/probe.hip): see build.py next to this file.

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

__device__ static inline unsigned lane_x() { return __builtin_amdgcn_workitem_id_x(); }

// One lane of 64 takes a branch of straight-line work; the other 63 wait (masked off).
__global__ void one_lane_branch(int *out) {
  unsigned lane = lane_x();
  int v = out[lane];
  if (lane == 5) {
    v = v * 3 + 1;
    v = v ^ 0x55;
    v = v * 7 - 2;
    v = v ^ 0x33;
    v = v * 5 + 4;
    out[64] = v;  // a store: the branch cannot be if-converted into selects
  }
  out[lane] = v;
}

// A loop whose trip count is the lane id: iteration k runs with the lanes above k.
__global__ void lane_loop(int *out) {
  unsigned lane = lane_x();
  int acc = out[lane];
#pragma clang loop unroll(disable)
  for (unsigned i = 0; i < lane; i++) {
    acc = acc * 3 + (int)i;
  }
  out[lane] = acc;
}

// Nested lane-dependent if/else and a loop with per-lane trip counts (the divergence-demo kernel). The
// stores keep the branches real branches (no select), the loads keep the loop a loop.
__global__ void divergence_demo(int *out) {
  unsigned lane = lane_x();
  int v = 0;
  if (lane & 1) {
    if (lane & 2) {
      v = 10;
      out[64 + lane] = v;
    } else {
      v = 20;
      out[64 + lane] = v;
    }
  } else {
    v = 30;
    out[64 + lane] = v;
  }
#pragma clang loop unroll(disable)
  for (unsigned i = 0; i < (lane & 7); i++) {
    v = v * 3 + out[i];
  }
  out[lane] = v;
}
