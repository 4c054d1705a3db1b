// explorehangs: kernels for `amddbg run --explore` and the emulator's hang detection (docs/emulator.md).
// Three classes: spin loops that count while they poll a flag no one writes (the machine state never repeats, the
// loop's exit condition does), waves that leave a workgroup before its barrier (complete on AMD hardware: an
// ended wave drops out of the workgroup barrier), and a publication at the wrong scope whose hang depends on
// the schedule (the reader caches the flag's line only when it reads before the writer writes).
// Built by build.py (corefiles/oracle/build.py's 24 configurations); EXPLOREHANGS_WAVE is the wave size.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

__device__ static inline unsigned tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned group_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline unsigned blockDim_x() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ static inline void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// ---- spin loops that count: each polls `go`, which nothing in the dispatch writes ----

// An atomic poll that counts its spins (the shape of a poll with a timeout that was never added).
__global__ void count_atomic(int *go, int *out) {
  unsigned t = tid_x();
  int spins = 0;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) spins += 1;
  out[t] = spins;
}

// A volatile poll that counts in a 64-bit counter.
__global__ void count_volatile(volatile int *go, long *out) {
  unsigned t = tid_x();
  long spins = 0;
  while (*go == 0) spins += 3;
  out[t] = spins;
}

// A poll that sleeps and counts its sleeps.
__global__ void count_sleep(int *go, int *out) {
  unsigned t = tid_x();
  unsigned naps = 0;
  while (__hip_atomic_load(go, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0) {
    __builtin_amdgcn_s_sleep(2);
    naps++;
  }
  out[t] = (int)naps;
}

// Exponential back-off: an inner delay loop that doubles up to a cap, and a count of the polls.
__global__ void count_backoff(int *go, int *out) {
  unsigned t = tid_x();
  int polls = 0;
  unsigned delay = 1;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {
    for (unsigned i = 0; i < delay; i++) __builtin_amdgcn_s_sleep(1);
    if (delay < 8) delay *= 2;
    polls++;
  }
  out[t] = polls;
}

// The twin with a real timeout: it gives up after `limit` polls, so it completes (no invented hang).
__global__ void count_timeout(int *go, int *out, int limit) {
  unsigned t = tid_x();
  int spins = 0;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0 && spins < limit) spins += 1;
  out[t] = spins;
}

// A poll that counts and reports its count to global memory every iteration (a heartbeat): the store goes to
// the same word each time and nothing reads it, so the loop still can never end.
__global__ void count_heartbeat(int *go, int *progress) {
  unsigned t = tid_x();
  int spins = 0;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {
    spins += 1;
    __hip_atomic_store(&progress[t], spins, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
}

// The pollers count; the first wave of workgroup 0 counts to `n` first and then sets `go`: no hang (the writer's
// loop makes progress, so no proof covers every live wave).
__global__ void late_writer(int *go, int *out, int n) {
  unsigned t = tid_x();
  if (group_x() == 0 && t < EXPLOREHANGS_WAVE) {
    int acc = 0;
    for (int i = 0; i < n; i++) acc += i ^ (int)t;
    out[t] = acc;
    if (t == 0) __hip_atomic_store(go, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    return;
  }
  int spins = 0;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) spins += 1;
  out[group_x() * blockDim_x() + t] = spins > 0;
}

// A poll with a timeout on the clock: it gives up once `ticks` clocks have passed (no hang: the clock read is
// in the exit condition).
__global__ void clock_timeout(int *go, int *out, unsigned long ticks) {
  unsigned t = tid_x();
  unsigned long t0 = __builtin_readcyclecounter();
  int spins = 0;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0 &&
         __builtin_readcyclecounter() - t0 < ticks)
    spins += 1;
  out[t] = spins > 0;
}

// ---- waves that leave before the barrier: these complete on AMD hardware ----

// Whole waves return before the barrier (the first wave of each workgroup stays): the ended waves drop out.
__global__ void early_return(int *out) {
  unsigned t = tid_x();
  __shared__ int tile[256];
  if (t >= EXPLOREHANGS_WAVE) return;
  tile[t] = (int)t;
  sync_threads();
  out[group_x() * EXPLOREHANGS_WAVE + t] = tile[EXPLOREHANGS_WAVE - 1 - t];
}

// Waves at or past `keep` return after some work of their own; the others wait at two barriers.
__global__ void early_return_late(int *out, int n, unsigned keep) {
  unsigned t = tid_x();
  int acc = 0;
  for (int i = 0; i < n; i++) acc += (int)(t * (unsigned)i);
  if (t >= keep) {
    out[t] = acc;
    return;
  }
  sync_threads();
  acc += 1;
  sync_threads();
  out[t] = acc;
}

// A barrier inside a divergent branch: the lanes below `half` of each workgroup take it (whole waves skip it and
// end); one barrier object per workgroup, so the waves that reach it complete it among themselves.
__global__ void divergent_barrier(int *out, unsigned half) {
  __shared__ int tile[256];
  unsigned t = tid_x();
  tile[t] = (int)t;
  if (t < half) {
    sync_threads();
    out[t] = tile[half - 1 - t];
  } else {
    out[t] = -1;
  }
}

// A barrier under a condition that splits every wave's lanes (odd lanes take it): each wave still executes the
// barrier once, with part of its lanes active.
__global__ void divergent_barrier_lanes(int *out) {
  __shared__ int tile[256];
  unsigned t = tid_x();
  tile[t] = (int)t * 2;
  if (t & 1) {
    sync_threads();
    out[t] = tile[t ^ 1];
  } else {
    out[t] = 0;
  }
}

// ---- a racy hang: a publication at workgroup scope between workgroups ----

// Workgroup 0 publishes `flag` at workgroup scope; the other workgroups do `work` steps and then poll it with a
// relaxed wavefront-scope load (a plain load on every target: GFX11's workgroup-scope `glc` would bypass GL1). When the writer runs first the readers fill their line after the write and finish; when a
// reader polls first it caches the old line and, with nothing acquiring at agent scope, keeps reading it.
__global__ void racy_publish(int *flag, int *out, int work) {
  unsigned t = tid_x();
  if (group_x() == 0) {
    if (t == 0) __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
    out[t] = 0;
    return;
  }
  int acc = 0;
  for (int i = 0; i < work; i++) acc += i ^ (int)t;
  while (__hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT) == 0) __builtin_amdgcn_s_sleep(1);
  out[group_x() * blockDim_x() + t] = acc;
}
