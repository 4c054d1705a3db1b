// Hand-made grid barriers, cross-workgroup flags and barrier deadlocks whose missing waves spin: the shapes real bug
// reports show, each in the loop shapes clang emits for a poll (signed/unsigned compares, a fence or a sleep in the
// loop, -O0 reloads). Built by build.py for every emulated target; tests/replay/test_gridhangs.py runs each kernel
// with `amddbg run ... --core` and checks what `amddbg explain` says about the core.
// Header-free HIP (built with -nogpulib -nogpuinc, as corefiles/oracle). Launch: block 128, grid 4 workgroups.
// Markers for the tests: @poll (the polling load), @loop (the rest of its loop), @write (the write the poll waits
// for), @maybe (a store the code cannot tell from it), @barrier (a __syncthreads() call), @helper:NAME (the line a
// helper's code is attributed to).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define WAVE GRIDHANGS_WAVE

__device__ static inline unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned wgid() { return __builtin_amdgcn_workgroup_id_x(); }
// HIP's __threadfence_block(), __threadfence(), __syncthreads() and atomicAdd()
__device__ static inline void threadfence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }  // @helper:fence
__device__ static inline void syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();  // @helper:barrier
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ static inline int atomic_add(int *p, int v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  // @helper:atomic_add
}

// The last workgroup (of n) works longer before it arrives or publishes, so the others poll before its write.
__device__ static inline void late(unsigned n) {
  if (wgid() == n - 1) {
    __builtin_amdgcn_s_sleep(127);
    __builtin_amdgcn_s_sleep(127);
  }
}

// ---------------------------------------------------------------------------------------------- grid barriers
// Thread 0 of each workgroup counts itself in and polls the count until every workgroup arrived; the rest of the
// workgroup waits at __syncthreads(). The count is read with a load that does not reach the other CUs' writes.

// plain load, signed compare, __threadfence_block() in the loop (the fence keeps clang from hoisting the load)
__global__ void gb_fence_block(int *count, int *out, int n) {
  late(n);
  if (tid() == 0) {
    atomic_add(count, 1);  // @write
    while (*count < n) {  // @poll
      threadfence_block();  // @loop
    }
  }
  syncthreads();  // @barrier
  out[wgid() * 128 + tid()] = 1;
}

// plain load, unsigned compare, __threadfence_block()
__global__ void gb_fence_block_unsigned(unsigned *count, int *out, unsigned n) {
  late(n);
  if (tid() == 0) {
    __hip_atomic_fetch_add(count, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  // @write
    while (*count < n) {  // @poll
      threadfence_block();  // @loop
    }
  }
  syncthreads();  // @barrier
  out[wgid() * 128 + tid()] = 1;
}

// a relaxed atomic poll at workgroup scope with s_sleep in the loop (no fence)
__global__ void gb_relaxed_sleep(int *count, int *out, int n) {
  late(n);
  if (tid() == 0) {
    atomic_add(count, 1);  // @write
    while (__hip_atomic_load(count, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP) < n) {  // @poll
      __builtin_amdgcn_s_sleep(2);  // @loop
    }
  }
  syncthreads();  // @barrier
  out[wgid() * 128 + tid()] = 1;
}

// the arrival count's return value decides who releases the others: a generation counter, workgroup-scope acquire
__global__ void gb_generation(int *count, int *gen, int *out, int n) {
  late(n);
  if (tid() == 0) {
    int g = __hip_atomic_load(gen, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    if (atomic_add(count, 1) == n - 1) {
      __hip_atomic_store(count, 0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  // @maybe
      __hip_atomic_store(gen, g + 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
    } else {
      while (__hip_atomic_load(gen, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == g) {  // @poll
      }
    }
  }
  syncthreads();  // @barrier
  out[wgid() * 128 + tid()] = 1;
}

// sense reversal: the last arriver resets the count and flips the sense; the others poll the sense with a plain
// load and __threadfence_block()
__global__ void gb_sense(int *count, int *sense, int *out, int n) {
  late(n);
  if (tid() == 0) {
    int s = 1 - *sense;
    if (atomic_add(count, 1) == n - 1) {
      *count = 0;  // @maybe
      __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
      *sense = s;  // @write
    } else {
      while (*sense != s) {  // @poll
        threadfence_block();  // @loop
      }
    }
  }
  syncthreads();  // @barrier
  out[wgid() * 128 + tid()] = 1;
}

// the fixed twin: a volatile poll (every target's volatile load goes past the CU's cache) and __threadfence():
// slow, never stuck
__global__ void gb_volatile(int *count, int *out, int n) {
  late(n);
  if (tid() == 0) {
    atomic_add(count, 1);  // @write
    while (*(volatile int *)count < n) {  // @poll
      __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent");  // @loop
    }
  }
  syncthreads();  // @barrier
  out[wgid() * 128 + tid()] = 1;
}

// ---------------------------------------------------------------------------------------------- cross-workgroup flags
// Workgroup 0 publishes `flag` (after summing `data`); the other workgroups wait for it.

// relaxed poll at workgroup scope against a signed bound
__global__ void xwg_relaxed_signed(int *flag, const int *data, int *out, int want) {
  if (wgid() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid()] = sum;
    if (tid() == 0) __hip_atomic_store(flag, want, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP) < want) {  // @poll
    }
    out[wgid() * 128 + tid()] = 1;
  }
}

// acquire at workgroup scope, unsigned bound, __threadfence_block() in the loop
__global__ void xwg_acquire_unsigned(unsigned *flag, const int *data, int *out, unsigned want) {
  if (wgid() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid()] = sum;
    if (tid() == 0) __hip_atomic_store(flag, want, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);  // @write
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) < want) {  // @poll
      threadfence_block();  // @loop
    }
    out[wgid() * 128 + tid()] = 1;
  }
}

// acquire at workgroup scope, != compare, s_sleep in the loop
__global__ void xwg_acquire_sleep(int *flag, const int *data, int *out, int want) {
  if (wgid() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid()] = sum;
    if (tid() == 0) __hip_atomic_store(flag, want, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);  // @write
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) != want) {  // @poll
      __builtin_amdgcn_s_sleep(1);  // @loop
    }
    out[wgid() * 128 + tid()] = 1;
  }
}

// ---------------------------------------------------------------------------------------------- barrier deadlocks
// The first wave of the workgroup waits at __syncthreads() and sets the flag only after it; the other waves poll
// the flag before they reach the barrier: each side waits for the other.

// global flag, acquire at workgroup scope
__global__ void bd_global_flag(int *flag, int *out) {
  if (tid() < WAVE) {
    syncthreads();  // @barrier
    __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);  // @write
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) == 0) {  // @poll
    }
    syncthreads();  // @barrier
  }
  out[wgid() * 128 + tid()] = 1;
}

// volatile global flag polled with s_sleep, plain store after the barrier
__global__ void bd_volatile_flag(int *flag, int *out) {
  if (tid() < WAVE) {
    syncthreads();  // @barrier
    *(volatile int *)flag = 1;  // @write
  } else {
    while (*(volatile int *)flag == 0) {  // @poll
      __builtin_amdgcn_s_sleep(1);  // @loop
    }
    syncthreads();  // @barrier
  }
  out[wgid() * 128 + tid()] = 1;
}

// LDS counter: the waiter publishes how many items are ready; the others wait for it with a signed compare
__global__ void bd_lds_count(int *out, int want) {
  __shared__ int ready;
  if (tid() == 0) ready = 0;
  syncthreads();
  if (tid() < WAVE) {
    syncthreads();  // @barrier
    __hip_atomic_store(&ready, want, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);  // @write
  } else {
    while (__hip_atomic_load(&ready, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP) < want) {  // @poll
      __builtin_amdgcn_s_sleep(1);  // @loop
    }
    syncthreads();  // @barrier
  }
  out[wgid() * 128 + tid()] = 1;
}
