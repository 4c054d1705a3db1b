// Hang causes real bug reports show (issue 20, section 3): SIMT locks inside one wave, polls the compiler hoisted,
// conditions that can never become true, and publications whose writer's line must be named. Built by build.py
// (clang-19/22, gfx90a, gfx942, gfx1100 and gfx1200 in wave32 and wave64, -O0 and -O2); the tests
// (tests/replay/test_causehangs.py) run each kernel with `amddbg run ... --core` and check `amddbg explain`.
// Header-free HIP (built with -nogpulib -nogpuinc, as corefiles/oracle). Macros, not helpers, so that every line
// the explainer names is a line of the kernel.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define TID() __builtin_amdgcn_workitem_id_x()
#define GROUP() __builtin_amdgcn_workgroup_id_x()
#define SLEEP() __builtin_amdgcn_s_sleep(1)
#define LOAD(p, scope) __hip_atomic_load((p), __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_##scope)
#define STORE(p, v, scope) __hip_atomic_store((p), (v), __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_##scope)
#define ADD(p, v) __hip_atomic_fetch_add((p), (v), __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT)
typedef unsigned long long u64;

__device__ static inline int cas(int *p, int expected, int desired) {
  __hip_atomic_compare_exchange_strong(p, &expected, desired, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED,
                                       __HIP_MEMORY_SCOPE_AGENT);
  return expected;
}

// ---- SIMT locks inside one wave: the lane that takes the lock leaves the loop, but the wave keeps looping for
// the other lanes (EXEC), so the holder never reaches its release.

// lock-outside: the critical section after the spin loop (the textbook CPU lock)
__global__ void lock_outside(int *lock, int *counter) {
  while (cas(lock, 0, 1) != 0) {
  }
  counter[0] += 1;
  STORE(lock, 0, AGENT);
}

// lock-sleep: the same with a back-off in the loop
__global__ void lock_sleep(int *lock, int *counter) {
  while (cas(lock, 0, 1) != 0) {
    SLEEP();
  }
  counter[0] += 1;
  STORE(lock, 0, AGENT);
}

// lock-done: the critical section inside a done-flag loop (the SIMT-safe form; -O2 may move it out of the loop)
__global__ void lock_done(int *lock, int *counter) {
  bool done = false;
  while (!done) {
    if (cas(lock, 0, 1) == 0) {
      counter[0] += 1;
      STORE(lock, 0, AGENT);
      done = true;
    }
  }
}

// ticket-lock: each lane draws a ticket; the lane holding the served ticket leaves the loop, the others spin
__global__ void ticket_lock(int *next, int *serving, int *counter) {
  int mine = ADD(next, 1);
  while (LOAD(serving, AGENT) != mine) {
    SLEEP();
  }
  counter[0] += 1;
  ADD(serving, 1);
}

// lock-barrier: the first 64 work-items take a lock, then the whole workgroup meets at a barrier; the waves past
// lane 63 wait at the barrier for the spinning wave(s)
__global__ void lock_barrier(int *lock, int *counter) {
  unsigned tid = TID();
  if (tid < 64) {
    while (cas(lock, 0, 1) != 0) {
    }
    counter[tid] += 1;
    STORE(lock, 0, AGENT);
  }
  __builtin_amdgcn_s_barrier();
  counter[64 + tid] = 1;
}

// ---- polls the compiler hoisted: a plain (non-atomic) flag read in a loop that -O2 reads once, before the loop
// (nothing in the loop may write the flag as far as the compiler can tell). Workgroup 0 sets the flag after some
// work; workgroup 1 waits for it.

// hoist-restrict: a __restrict__ flag, a back-off in the loop
__global__ void hoist_restrict(int *__restrict__ flag, const int *data, int *out) {
  unsigned tid = TID();
  if (GROUP() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid] = sum;
    if (tid == 0) *flag = 1;
  } else {
    while (*flag == 0) {
      SLEEP();
    }
    out[64 + tid] = 1;
  }
}

// hoist-bool: a bool flag; the loop marks its wait in a volatile int (another type: no alias)
__global__ void hoist_bool(bool *ready, const int *data, int *out) {
  unsigned tid = TID();
  if (GROUP() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid] = sum;
    if (tid == 0) *ready = true;
  } else {
    while (!*ready) {
      *(volatile int *)&out[64 + tid] = 1;
    }
    out[64 + tid] = -1;
  }
}

struct Control {
  int ready;
  float load;
};

// hoist-field: a struct field; the loop counts its spins in another field of the struct (a volatile float), so
// the machine state never repeats (the run ends at its instruction limit)
__global__ void hoist_field(Control *ctl, const int *data, int *out) {
  unsigned tid = TID();
  if (GROUP() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid] = sum;
    if (tid == 0) ctl->ready = 1;
  } else {
    while (ctl->ready != 1) {
      *(volatile float *)&ctl->load += 1.0f;
    }
    out[64 + tid] = 3;
  }
}

// ---- conditions that can never become true, with final, visible values

// ballot-all: wait until every lane of the wave sees the flag, with a 64-bit ballot: on wave32 its upper half is 0
__global__ void ballot_all(int *flag, int *out) {
  unsigned tid = TID();
  if (tid == 0) STORE(flag, 1, AGENT);
  while (__builtin_amdgcn_ballot_w64(LOAD(flag, AGENT) != 0) != ~0ull) {
    SLEEP();
  }
  out[tid] = 1;
}

// ballot-count: the same wait, counting the lanes of a 64-bit ballot against 64
__global__ void ballot_count(int *flag, int *out) {
  unsigned tid = TID();
  if (tid == 0) STORE(flag, 1, AGENT);
  while (__builtin_popcountll(__builtin_amdgcn_ballot_w64(LOAD(flag, AGENT) == 1)) < 64) {
    SLEEP();
  }
  out[tid] = 2;
}

// count-above: every work-item checks in, then waits for twice the block size to have checked in
__global__ void count_above(int *count, int *out) {
  unsigned tid = TID();
  ADD(count, 1);
  while (LOAD(count, AGENT) < 2 * (int)__builtin_amdgcn_workgroup_size_x()) {
    SLEEP();
  }
  out[tid] = 1;
}

// count-const: each wave's first lane checks in; the loop waits for a constant no launch of this size reaches
__global__ void count_const(int *count, int *out) {
  unsigned tid = TID();
  if (tid % 32 == 0) ADD(count, 1);
  while (LOAD(count, AGENT) != 100) {
    SLEEP();
  }
  out[tid] = 1;
}

// ---- publications at workgroup scope (not_visible): the writer's line must be named on every target

// publish-plain: the flag is written with a plain store after the data
__global__ void publish_plain(int *flag, const int *data, int *out) {
  unsigned tid = TID();
  if (GROUP() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid] = sum;
    if (tid == 0) *(volatile int *)flag = 1;
  } else {
    while (LOAD(flag, WORKGROUP) == 0) {
      SLEEP();
    }
    out[64 + tid] = 1;
  }
}

// publish-add: the flag is an atomic counter bumped at workgroup scope
__global__ void publish_add(int *flag, const int *data, int *out) {
  unsigned tid = TID();
  if (GROUP() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid] = sum;
    if (tid == 0) __hip_atomic_fetch_add(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
  } else {
    while (LOAD(flag, WORKGROUP) == 0) {
      SLEEP();
    }
    out[64 + tid] = 1;
  }
}

// publish-wave: both sides at singlethread (wavefront) scope, which some targets compile as workgroup scope
__global__ void publish_wave(int *flag, const int *data, int *out) {
  unsigned tid = TID();
  if (GROUP() == 0) {
    int sum = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 64; i++) sum += data[i];
    out[tid] = sum;
    if (tid == 0) STORE(flag, 1, SINGLETHREAD);
  } else {
    while (LOAD(flag, SINGLETHREAD) == 0) {
      SLEEP();
    }
    out[64 + tid] = 1;
  }
}
