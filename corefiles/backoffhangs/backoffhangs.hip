// backoffhangs: counting polls whose loop branches on the counter (issue 20, "Spin loops that count"). Each kernel
// polls `go` while it counts, and a branch inside the loop tests the count: a back-off every N polls, a timeout
// that only logs, an exponential back-off with a nested delay loop, a switch on the count. The branch's condition
// changes every iteration, yet it cannot leave the loop: when nothing writes `go` the loop can never end
// (`amddbg run` must say `hang`, not run to its instruction limit), and when the last workgroup writes `go` after
// `writer_n` steps of its own (the twin launches: writer_n > 0) every wave completes.
// Built by build.py (clang-19/22 x gfx90a, gfx942, gfx1100/gfx1200 wave32+wave64 x -O0/-O2), header-free HIP
// (-nogpulib -nogpuinc, as corefiles/oracle). Markers (read by tests/emu/test_backoffhangs.py): @poll (the polling
// load), @loop (the rest of the loop).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

__device__ static inline unsigned tx() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned bx() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline unsigned groups() { return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(); }

// The twin's writer: the last workgroup works `n` steps, then publishes `go` (release, agent scope).
__device__ static inline bool writer(int *go, int *out, int n) {
  if (n <= 0 || bx() != groups() - 1) return false;
  int acc = 0;
  for (int i = 0; i < n; i++) acc += i ^ (int)tx();
  out[bx() * __builtin_amdgcn_workgroup_size_x() + tx()] = acc;
  __hip_atomic_store(go, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  return true;
}

// A back-off every 8 polls: rocPRIM's look-back scan waits on a neighbour's flag with __builtin_amdgcn_s_sleep
// between polls (rocPRIM lookback_scan_state, ROCPRIM_DETAIL_LOOKBACK_SCAN_STATE_USE_SLEEP); here the sleep comes
// only every 8th poll, as a poll that first spins hot and then backs off does.
__global__ void sleep_every_n(int *go, int *out, int writer_n) {
  if (writer(go, out, writer_n)) return;
  unsigned polls = 0;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {  // @poll
    if ((++polls & 7) == 0) __builtin_amdgcn_s_sleep(2);  // @loop
  }
  out[bx() * __builtin_amdgcn_workgroup_size_x() + tx()] = (int)polls;
}

// A timeout that only logs: NCCL's device-side waits count their spins and every NCCL_SPINS_BEFORE_CHECK_ABORT
// (1,000,000) spins do something else (checkAbort in src/device/primitives.h); here the "something" only notes the
// timeout in a local and takes a long nap, so nothing ever ends the wait.
__global__ void timeout_logs(int *go, int *out, int writer_n) {
  if (writer(go, out, writer_n)) return;
  unsigned spins = 0;
  int timed_out = 0;
  while (__hip_atomic_load(go, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0) {  // @poll
    if (++spins == 1000000u) {  // @loop
      timed_out = 1;  // @loop
      __builtin_amdgcn_s_sleep(127);  // @loop
    }
  }
  out[bx() * __builtin_amdgcn_workgroup_size_x() + tx()] = timed_out;
}

// Exponential back-off with a nested delay loop: the CUDA C++ Programming Guide's __nanosleep mutex doubles its
// sleep up to a cap after each failed attempt (`if (ns < 256) ns *= 2;`); here every 4th poll runs a delay loop
// of `delay` naps, `delay = min(delay * 2, 64)`.
__global__ void backoff_nested(int *go, int *out, int writer_n) {
  if (writer(go, out, writer_n)) return;
  unsigned polls = 0, delay = 1;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {  // @poll
    if ((++polls & 3) == 0) {  // @loop
      for (unsigned i = 0; i < delay; i++) __builtin_amdgcn_s_sleep(1);  // @loop
      delay = delay * 2 < 64u ? delay * 2 : 64u;  // @loop
    }
  }
  out[bx() * __builtin_amdgcn_workgroup_size_x() + tx()] = (int)(polls + delay);
}

// A poll that counts in a switch on its count (a state machine stepped once per poll, the shape of a polling loop
// that rotates between hot spins, a short nap and a yield, as the Linux kernel's `spin_until_cond` callers
// and hand-written GPU back-offs do).
__global__ void switch_count(int *go, int *out, int writer_n) {
  if (writer(go, out, writer_n)) return;
  unsigned polls = 0, naps = 0, hot = 0;
  while (__hip_atomic_load(go, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0) {  // @poll
    switch (++polls % 5) {  // @loop
    case 0:
      __builtin_amdgcn_s_sleep(1);  // @loop
      naps += 1;  // @loop
      break;
    case 3:
      __builtin_amdgcn_s_sleep(3);  // @loop
      naps += 3;  // @loop
      break;
    default:
      hot += polls;  // @loop
    }
  }
  out[bx() * __builtin_amdgcn_workgroup_size_x() + tx()] = (int)(naps ^ hot);
}
