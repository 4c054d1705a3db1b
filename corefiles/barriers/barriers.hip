// Barrier, wait-counter and trap kernels for the emulator's tests (tests/emu/test_barriers.py, test_waits.py).
// Built by build.py with clang-22 -O2 -g for gfx90a, gfx1100, gfx1200 and (named barriers) gfx1250.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

__device__ static inline unsigned lane_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned wave_id() { return lane_x() / __builtin_amdgcn_wavefrontsize(); }
__device__ static inline void workgroup_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// barrier_rounds (blocks of 256): `rounds` times, every work-item publishes a value in LDS, the workgroup
// meets at a barrier, and each reads the value of work-item i ^ 64 (another wave); a second barrier keeps the
// next round's writes after this round's reads. out[i] = sum over r of ((i ^ 64) + r).
__global__ void barrier_rounds(int *out, int rounds) {
  __shared__ int stage[256];
  unsigned i = lane_x();
  int acc = 0;
  for (int r = 0; r < rounds; ++r) {
    stage[i] = (int)i + r;
    workgroup_barrier();
    acc += stage[i ^ 64u];
    workgroup_barrier();
  }
  out[__builtin_amdgcn_workgroup_id_x() * 256u + i] = acc;
}

// drop_on_end: the waves after the first two end at once; the first two still meet at the barrier,
// because an ending wave drops the workgroup barrier. out[i] = the value of the other wave's lane.
__global__ void drop_on_end(int *out) {
  __shared__ int stage[128];
  unsigned i = lane_x();
  unsigned ws = __builtin_amdgcn_wavefrontsize();
  if (wave_id() >= 2)
    return;
  stage[i] = (int)i * 10;
  workgroup_barrier();
  out[i] = stage[(i + ws) % (2 * ws)];
}

// wait_chain: a global load feeds a store, so the store's wave must wait for the load (vmcnt/loadcnt).
__global__ void wait_chain(const int *in, int *out, int k) {
  unsigned i = lane_x();
  out[i] = in[i] * k + 1;
}

// assert_trap: the lanes whose input is negative fail an assertion (s_trap 2).
__global__ void assert_trap(const int *in, int *out) {
  unsigned i = lane_x();
  int v = in[i];
  if (v < 0) {
    __builtin_trap();
  }
  out[i] = v * 2;
}

// memory_fault: lanes at and past `n` store far past the end of the buffer (an unmapped page).
__global__ void memory_fault(int *out, int n) {
  unsigned i = lane_x();
  unsigned index = i < (unsigned)n ? i : i * 1048576u;
  out[index] = (int)i;
}

#if defined(__GFX12__)
// split_barrier (GFX12): wave 0 signals the workgroup barrier at once, records that it was first
// (s_barrier_signal_isfirst) and ends without waiting: arrive-then-drop, a misuse. The other waves signal
// after a chain of dependent loads, then wait. Wave 0's arrival still counts, so waves 1 and 2 complete
// the barrier (expected 3 after the drop) without wave 3, whose arrival opens a second phase (it is that
// phase's first: first[0] = 4) that completes only when waves 1 and 2 end and drop the barrier.
__global__ void split_barrier(const int *in, int *first, int *out) {
  unsigned w = wave_id();
  int acc = 0;
  if (w != 0) {
    for (int k = 0; k < 8; ++k)
      acc = in[(acc & 31) + k];
  }
  if (__builtin_amdgcn_s_barrier_signal_isfirst(-1))
    first[0] = (int)w + 1;
  if (w == 0)
    return;
  __builtin_amdgcn_s_barrier_wait(-1);
  out[lane_x()] = acc + (int)w;
}

// wait_unsignaled (GFX12): wave 1 waits on the workgroup barrier without signalling it (a misuse); the
// barrier expects all four waves, so the other three wait for an arrival that never comes: a hang.
__global__ void wait_unsignaled(int *out) {
  unsigned w = wave_id();
  if (w != 1)
    __builtin_amdgcn_s_barrier_signal(-1);
  __builtin_amdgcn_s_barrier_wait(-1);
  out[lane_x()] = (int)w;
}
#endif

#if defined(__gfx1250__)
// named_pairs (GFX12.5 named barriers): wave 0 sets up a named barrier for two waves; waves 0 and 1 join
// it, meet there and leave; wave 2 waits on a named barrier without joining one (a misuse); wave 3 only
// meets the others at the workgroup barrier. Byte `wave` of out[0] counts the barriers it got through.
__global__ void named_pairs(int *out) {
  __shared__ __amdgpu_named_workgroup_barrier_t pair;
  unsigned w = wave_id();
  int passed = 0;
  if (w == 0)
    __builtin_amdgcn_s_barrier_init(&pair, 2);
  __builtin_amdgcn_s_barrier_signal(-1);
  __builtin_amdgcn_s_barrier_wait(-1);
  ++passed;
  if (w < 2) {
    __builtin_amdgcn_s_barrier_join(&pair);
    __builtin_amdgcn_s_barrier_signal_var(&pair, 2);
    __builtin_amdgcn_s_barrier_wait(1);
    __builtin_amdgcn_s_barrier_leave(1);
    ++passed;
  } else if (w == 2) {
    __builtin_amdgcn_s_barrier_wait(1);
  }
  if (lane_x() % __builtin_amdgcn_wavefrontsize() == 0)
    __hip_atomic_fetch_add(out, passed << (8 * w), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// named_short (GFX12.5): a named barrier expects three waves, only two join and arrive: they wait forever.
__global__ void named_short(int *out) {
  __shared__ __amdgpu_named_workgroup_barrier_t trio;
  unsigned w = wave_id();
  if (w == 0)
    __builtin_amdgcn_s_barrier_init(&trio, 3);
  __builtin_amdgcn_s_barrier_signal(-1);
  __builtin_amdgcn_s_barrier_wait(-1);
  if (w < 2) {
    __builtin_amdgcn_s_barrier_join(&trio);
    __builtin_amdgcn_s_barrier_signal_var(&trio, 3);
    __builtin_amdgcn_s_barrier_wait(1);
  }
  if (lane_x() % __builtin_amdgcn_wavefrontsize() == 0)
    __hip_atomic_fetch_add(out, 1 << (8 * w), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
#endif
