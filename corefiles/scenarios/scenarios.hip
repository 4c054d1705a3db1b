// Scenario kernels: each ends in a known way when run by `amddbg run` (see make_scenarios.py).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

__device__ static inline unsigned lane_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline void workgroup_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// barrier-deadlock: wave 0 of the workgroup waits at a barrier before it sets the flag; the other waves
// poll the flag first, so they never reach the barrier and the flag is never set.
__global__ void barrier_deadlock(int *flag, int *out) {
  unsigned lane = lane_x();
  if (lane < 64) {
    workgroup_barrier();
    __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == 0) {
      __builtin_amdgcn_s_sleep(1);
    }
    workgroup_barrier();
  }
  out[lane] = (int)lane;
}

// spin-no-writer: every wave polls a flag nothing in the dispatch ever writes.
__global__ void spin_no_writer(int *flag, int *out) {
  unsigned lane = lane_x();
  while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {
    __builtin_amdgcn_s_sleep(1);
  }
  out[lane] = 1;
}

// memory-fault: lanes past `n` write far outside the buffer.
__global__ void memory_fault(int *out, int n) {
  unsigned lane = lane_x();
  unsigned index = lane < (unsigned)n ? lane : lane * 1048576u;
  out[index] = (int)lane;
}

// assert-trap: a data-dependent assertion fails for the lanes holding a negative value.
__global__ void assert_trap(const int *in, int *out) {
  unsigned lane = lane_x();
  int v = in[lane];
  if (v < 0) {
    __builtin_trap();
  }
  out[lane] = v * 2;
}

// spin-wrong-scope: workgroup 0 publishes a flag that workgroup 1 waits for, but both sides use
// workgroup scope, so nothing makes the store visible to the other compute unit: the consumer keeps reading its
// stale cached copy. spin-right-scope is the fixed twin (agent scope on both sides).
__global__ void spin_wrong_scope(int *flag, int *data, int *out) {
  unsigned lane = lane_x();
  if (__builtin_amdgcn_workgroup_id_x() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[lane] = sum;
    if (lane == 0) __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == 0) {
      __builtin_amdgcn_s_sleep(1);
    }
    out[64 + lane] = 1;
  }
}

__global__ void spin_right_scope(int *flag, int *data, int *out) {
  unsigned lane = lane_x();
  if (__builtin_amdgcn_workgroup_id_x() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[lane] = sum;
    if (lane == 0) __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {
      __builtin_amdgcn_s_sleep(1);
    }
    out[64 + lane] = 1;
  }
}

// spin-cycle: two workgroups each wait for the other's flag before setting their own: a cycle through flags
// (each spinning wave's only writer is itself spinning).
__global__ void spin_cycle(int *a, int *b, int *out) {
  unsigned lane = lane_x();
  if (__builtin_amdgcn_workgroup_id_x() == 0) {
    while (__hip_atomic_load(a, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) __builtin_amdgcn_s_sleep(1);
    __hip_atomic_store(b, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  } else {
    while (__hip_atomic_load(b, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) __builtin_amdgcn_s_sleep(1);
    __hip_atomic_store(a, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  }
  out[lane] = 1;
}

// slow-loop: every lane runs a long but finite loop; a core taken part-way is slow, not stuck.
__global__ void slow_loop(int *out, int n) {
  unsigned lane = lane_x();
  int acc = 0;
#pragma clang loop unroll(disable)
  for (int i = 0; i < n; i++) acc = acc * 3 + (int)(lane ^ i);
  out[lane] = acc;
}

// handshake-wrong-scope: a request/acknowledge pair between two workgroups, both at workgroup scope: the reader
// of the request keeps its stale line (and the acknowledgement would never be seen either).
__global__ void handshake_wrong_scope(int *req, int *ack, int *out) {
  unsigned lane = lane_x();
  if (__builtin_amdgcn_workgroup_id_x() == 0) {
    if (lane == 0) __hip_atomic_store(req, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
    while (__hip_atomic_load(ack, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == 0) __builtin_amdgcn_s_sleep(1);
  } else {
    while (__hip_atomic_load(req, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == 0) __builtin_amdgcn_s_sleep(1);
    if (lane == 0) __hip_atomic_store(ack, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
  }
  out[lane] = 1;
}

// lds-spin: the second wave of the workgroup polls a flag in LDS that nothing sets.
__global__ void lds_spin(int *out) {
  __shared__ int flag;
  unsigned lane = lane_x();
  if (lane == 0) flag = 0;
  __builtin_amdgcn_s_barrier();
  if (lane >= 64) {
    while (__hip_atomic_load(&flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == 0) __builtin_amdgcn_s_sleep(1);
  }
  out[lane] = 1;
}

// trap-in-callee: the assertion fails in a function the kernel calls.
__device__ __attribute__((noinline)) void check_positive(int v) {
  if (v > 40) __builtin_trap();
}
__global__ void trap_in_callee(const int *in, int *out) {
  unsigned lane = lane_x();
  check_positive(in[lane]);
  out[lane] = in[lane] + 1;
}
