// Hangs and traps inside always-inline helpers: every view must name the line the user wrote (the kernel's call
// site), with the helper's line as detail. Markers `@name` name lines the tests look up (never hard-coded).
// Built by build.py (clang-19/22, gfx90a/gfx942/gfx1100/gfx1200, wave32/64, -O0/-O2); cores are written at test
// time with `amddbg run --core` (tests/replay/test_inlinehangs.py gives each kernel's launch).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define INLINE __device__ static inline __attribute__((always_inline))
#define WAVE INLINEHANGS_WAVE
#define AGENT __HIP_MEMORY_SCOPE_AGENT

INLINE unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }

// HIP's __syncthreads(), spelled out (the build uses no HIP headers)
INLINE void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier(); // @sync-body
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// the user's own barrier helper
INLINE void wg_sync() {
  __syncthreads(); // @wg-sync-body
}

INLINE void wait_ready(int *ready) {
  while (__hip_atomic_load(ready, __ATOMIC_ACQUIRE, AGENT) == 0) { // @poll-body
    __builtin_amdgcn_s_sleep(1);
  }
}

INLINE void lock(int *l) {
  for (;;) {
    while (__hip_atomic_load(l, __ATOMIC_RELAXED, AGENT) != 0) { // @lock-poll
      __builtin_amdgcn_s_sleep(1);
    }
    int expected = 0;
    if (__hip_atomic_compare_exchange_strong(l, &expected, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED, AGENT)) return;
  }
}

INLINE void unlock(int *l) { __hip_atomic_store(l, 0, __ATOMIC_RELEASE, AGENT); }

INLINE void check(bool ok) {
  if (!ok) __builtin_trap(); // @check-trap
}

// five_syncs: the first wave waits at the third __syncthreads() before it sets the flag the other waves poll
// before their fourth: which of the five is the one that hangs?
__global__ void five_syncs(int *flag, int *out) {
  unsigned t = tid();
  out[t] = 1;
  __syncthreads(); // @sync-1
  out[t] += 1;
  __syncthreads(); // @sync-2
  if (t < WAVE) { // @sync-if
    __syncthreads(); // @sync-3
    __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, AGENT);
  } else {
    wait_ready(flag); // @sync-wait
    __syncthreads(); // @sync-4
  }
  __syncthreads(); // @sync-5
  out[t] += 2;
}

// helper_sync: the same deadlock through the user's wg_sync() helper.
__global__ void helper_sync(int *flag, int *out) {
  unsigned t = tid();
  out[t] = 0;
  if (t < WAVE) { // @helper-if
    wg_sync(); // @helper-call
    __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, AGENT);
  } else {
    wait_ready(flag); // @helper-wait
    wg_sync(); // @helper-call-2
  }
  out[t] = 1;
}

// lock_held: the lock is held when the kernel starts (the launch fills it with 1) and nothing releases it: the
// first lane of every wave spins inside lock(), which the kernel calls here.
__global__ void lock_held(int *l, int *counter) {
  unsigned t = tid();
  if (t % WAVE == 0) {
    lock(l); // @lock-call
    counter[t / WAVE] += 1;
    unlock(l);
  }
}

// some_poll: waves 0, 5 and 6 wait in wg_sync() before they set `ready`; waves 1-4 and 7 poll it.
__global__ void some_poll(int *ready, int *out) {
  unsigned t = tid();
  unsigned w = t / WAVE;
  if ((0x61u >> w) & 1) { // @group-if (waves 0, 5, 6)
    wg_sync(); // @group-sync
    __hip_atomic_store(ready, 1, __ATOMIC_RELEASE, AGENT);
  } else {
    wait_ready(ready); // @group-wait
  }
  out[t] = (int)w;
}

// inline_assert: an assert-like helper traps for the lanes holding a negative value.
__global__ void inline_assert(const int *in, int *out) {
  unsigned t = tid();
  int v = in[t];
  check(v >= 0); // @assert-call
  out[t] = v * 2;
}

// null_entry: lanes 0-2 fill table[0..2] with `data`; table[3] stays NULL, and the lanes that read through it fault.
__global__ void null_entry(int **table, int *data, int *out) {
  unsigned t = tid();
  if (t < 3) table[t] = data;
  __syncthreads();
  out[t] = table[t % 4][t]; // @null-load
}

// past_end: the last lane of the wave reads offsets[n], past the n elements the launch gives offsets.
__global__ void past_end(const int *offsets, int *out, int n) {
  unsigned t = tid();
  unsigned i = t + 1 == WAVE ? (unsigned)n : t;
  out[t] = offsets[i]; // @past-load
}
