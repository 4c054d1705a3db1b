// freshhangs: a held-out style check of `amddbg explain` (issue 20). Hangs written after the explainer, modelled on
// public bug reports and forum threads (each kernel cites its source), in shapes the other corpora do not have:
// member-function and noinline helpers, struct-wrapped flags, a __device__ global, 2-D grids and blocks, nested
// and do/for(;;) loop forms, a template. The expected verdict, kind, cause and lines come from the semantics (the
// AMDGPU memory model as docs/emulator.md emulates it), written down in score.py before amddbg was run on them.
// Built by build.py (clang-19/22 x gfx90a, gfx942, gfx1100/gfx1200 wave32+wave64 x -O0/-O2).
// Header-free HIP (built with -nogpulib -nogpuinc, as corefiles/oracle). Markers (read by score.py):
//   @poll (the polling load / the call that spins), @loop (the rest of its loop), @write (the write the poll waits
//   for, or the call that makes it), @release (a lock's release), @barrier (a __syncthreads() call), @trap, @fault,
//   @helper:NAME (a helper's own line, named by the call sites above).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define WAVE FRESHHANGS_WAVE

__device__ static inline unsigned tx() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned ty() { return __builtin_amdgcn_workitem_id_y(); }
__device__ static inline unsigned bx() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline unsigned by() { return __builtin_amdgcn_workgroup_id_y(); }
__device__ static inline unsigned bdx() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ static inline unsigned bdy() { return __builtin_amdgcn_workgroup_size_y(); }
// HIP's __syncthreads() and __threadfence_block()
__device__ static inline void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();  // @helper:barrier
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ static inline void fence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }  // @helper:fence

// ============================================================================ SIMT locks inside one wave

// A lock word in a struct, taken by atomic exchange in a member function (the shape of the lock in
// kokkos/kokkos#4377 "Dead lock in desul atomics": `while (atomic_fetch_or(this, 1) != 0) {}`, and of
// NVIDIA/warp#1958, where the CAS spinlock test deadlocks on ROCm because the winning lane must leave the loop
// while its siblings still spin).
struct Mutex {
  int word;
  int holder;
  __device__ void lock() {
    while (__hip_atomic_exchange(&word, 1, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) != 0) {  // @helper:mutex_lock
    }
  }
  __device__ void unlock() { __hip_atomic_store(&word, 0, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT); }  // @helper:mutex_unlock
};

__global__ void lock_member(Mutex *m, int *hist) {
  unsigned t = tx();
  m->lock();  // @poll
  hist[t & 7] += 1;
  m->holder = (int)t;
  m->unlock();  // @release
}

// Test-and-test-and-set (llvm/llvm-project#98846 "[libc] add a simple TTAS spin lock", whose review notes that spin
// locks do not work on the GPU without independent forward progress): an inner read-only wait with a back-off, then
// a CAS in a helper; a 2-D block (32 x 2).
__device__ static inline bool try_lock(int *l) {
  int expected = 0;
  return __hip_atomic_compare_exchange_strong(l, &expected, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED,  // @helper:try_lock
                                              __HIP_MEMORY_SCOPE_AGENT);
}

__global__ void ttas_lock_2d(int *lock, float *acc, const float *val) {
  unsigned i = ty() * bdx() + tx();
  for (;;) {
    while (__hip_atomic_load(lock, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) != 0)  // @poll
      __builtin_amdgcn_s_sleep(1);  // @loop
    if (try_lock(lock)) break;  // @poll
  }
  acc[0] += val[i];
  __hip_atomic_store(lock, 0, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @release
}

// A ticket lock as a template (ROCm/rocm-xio#63 "hang-prone CAS contention" under multi-lane contention): every
// lane draws a ticket, the lane holding the served one leaves the loop, the wave keeps looping for the others.
template <typename T>
__global__ void ticket_tmpl(T *next, T *serving, T *out) {
  T mine = __hip_atomic_fetch_add(next, (T)1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (__hip_atomic_load(serving, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) != mine) {  // @poll
  }
  out[tx()] = mine;
  __hip_atomic_fetch_add(serving, (T)1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @release
}
template __global__ void ticket_tmpl<unsigned>(unsigned *, unsigned *, unsigned *);

// The lock in a noinline function with a do/while CAS loop, then a workgroup barrier: the first wave's lanes fight
// over the lock, the other waves wait at the barrier for a wave that is spinning (not "halted"). (The
// "lock ... then tl.debug_barrier()" question in xlite-dev/LeetCUDA#391, with the barrier outside the lock.)
__device__ __attribute__((noinline)) void spin_acquire(int *l) {
  int old;
  do {
    int expected = 0;
    __hip_atomic_compare_exchange_strong(l, &expected, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED,  // @helper:spin_acquire
                                         __HIP_MEMORY_SCOPE_AGENT);
    old = expected;
  } while (old != 0);
}

__global__ void lock_then_sync(int *lock, int *tile) {
  unsigned t = tx();
  if (t < WAVE) {
    spin_acquire(lock);  // @poll
    tile[0] += 1;
    __hip_atomic_store(lock, 0, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @release
  }
  sync_threads();  // @barrier
  tile[1 + t] = (int)t;
}

// ============================================================================ spin loops that count

// A lock-free queue's consumer with no producer: it polls the head index in a struct, compares it with the tail, and
// counts its polls with a back-off every 16 (pytorch/FBGEMM#5714 adds exactly such a counter to a spin-wait that
// hung on MI300). Nothing writes the queue: the machine state never repeats, the exit condition never changes.
struct Queue {
  unsigned head;
  unsigned tail;
  int items[62];
};

__global__ void queue_pop_counting(Queue *q, int *out, unsigned *polls_out) {
  unsigned t = tx();
  unsigned polls = 0;
  unsigned h;
  for (;;) {
    h = __hip_atomic_load(&q->head, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);  // @poll
    if (h != __hip_atomic_load(&q->tail, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) break;  // @poll
    ++polls;  // @loop
    if ((polls & 15) == 0) __builtin_amdgcn_s_sleep(8);  // @loop
  }
  out[t] = q->items[h % 62];
  polls_out[t] = polls;
}

// The fixed twin of a counting poll: a deadline on the cycle counter (stew675/llama-cpp-rdna-boosts#6 bounds an
// in-kernel peer-arrival spin with a clock64() budget). Nothing writes `go`, but every wave gives up: it completes.
__global__ void deadline_poll(int *go, int *timed_out, unsigned long budget) {
  unsigned t = tx();
  unsigned long t0 = __builtin_readcyclecounter();
  int late = 0;
  while (__hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {  // @poll
    if (__builtin_readcyclecounter() - t0 > budget) {
      late = 1;
      break;
    }
  }
  timed_out[t] = late;
}

// ============================================================================ publications other workgroups cannot see

// A producer/consumer slot between the two workgroups of a 2-D grid (grid 64 x 2, block 64): the producer writes the
// data, a workgroup fence, the ready flag (a volatile store, in a helper); the consumer re-reads the flag with a
// plain load after __threadfence_block() in a do/while (the producer/consumer-between-blocks pattern of the
// "Memory Fences" CUDA lesson, learn.sidhant.pro, with the workgroup-scope fence the bug reports use instead of
// __threadfence()).
struct Slot {
  int data;
  int ready;
};

__device__ static inline void publish(Slot *s, int v) {
  s->data = v;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  *(volatile int *)&s->ready = 1;  // @helper:publish
}

__global__ void xwg_slot_2d(Slot *slot, const int *in, int *out) {
  unsigned t = tx();
  if (by() == 0) {
    int acc = 0;
#pragma clang loop unroll(disable)
    for (int k = 0; k < 48; k++) acc += in[(t + k) & 63];
    out[t] = acc;
    __builtin_amdgcn_s_sleep(127);  // (more work: the consumer reads the flag first)
    __builtin_amdgcn_s_sleep(127);
    if (t == 0) publish(slot, acc);  // @write
  } else {
    int r;
    do {
      fence_block();  // @loop
      r = slot->ready;  // @poll
    } while (r == 0);  // @loop
    out[64 + t] = slot->data;
  }
}

// A hand-made grid barrier in a helper, for a 2-D grid of workgroups (grid 128 x 2, block 64: four workgroups):
// thread 0 counts its workgroup in and polls the count with a relaxed load at wavefront scope and
// __threadfence_block() (flagos-ai/FlagTree#1051: a cross-block spin barrier that deadlocks with one late block;
// ROCm/hip-tests#412: a grid-sync test that hangs on MI200). The last workgroup arrives late.
struct GridBar {
  unsigned arrived;
  unsigned pad[15];
};

__device__ static inline void grid_sync(GridBar *b, unsigned nblocks) {
  sync_threads();
  if (tx() == 0) {
    __hip_atomic_fetch_add(&b->arrived, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @helper:grid_arrive
    while (__hip_atomic_load(&b->arrived, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT) < nblocks) {  // @helper:grid_poll
      fence_block();  // @helper:grid_loop
    }
  }
  sync_threads();  // @helper:grid_barrier
}

__global__ void grid_sync_2d(GridBar *bar, float *data) {
  unsigned gx = __builtin_amdgcn_grid_size_x() / bdx();
  unsigned nb = gx * (__builtin_amdgcn_grid_size_y() / bdy());
  unsigned g = by() * gx + bx();
  if (g == nb - 1) {
    __builtin_amdgcn_s_sleep(127);
    __builtin_amdgcn_s_sleep(127);
  }
  data[g * 64 + tx()] *= 2.0f;
  grid_sync(bar, nb);  // @poll @barrier
  data[g * 64 + tx()] += data[((g + 1) % nb) * 64 + tx()];
}

// ============================================================================ a poll the compiler hoisted

// A plain __device__ global flag (the "without volatile the compiler caches flag in a register" warning of the CUDA
// lesson above, and the OpenCL spin on a non-volatile flag that never sees the other warp's write, blog.csdn.net
// u010264950/8813567). The loop counts its spins in a volatile float (no alias with an int), so -O2 reads g_go once,
// before the loop (the volatile access keeps the loop: an infinite loop that only stores is undefined behaviour,
// which clang deletes).
__device__ int g_go;

__global__ void hoist_device_global(const int *in, int *out, float *ticks) {
  unsigned t = tx();
  if (bx() == 0) {
    int acc = 0;
#pragma clang loop unroll(disable)
    for (int k = 0; k < 48; k++) acc += in[(t + k) & 63];
    out[t] = acc;
    __builtin_amdgcn_s_sleep(127);  // (more work: the other workgroup reads the flag first)
    __builtin_amdgcn_s_sleep(127);
    if (t == 0) g_go = 1;  // @write
  } else {
    while (g_go == 0) {  // @poll
      *(volatile float *)&ticks[t] += 1.0f;  // @loop
    }
    out[64 + t] = 2;
  }
}

// ============================================================================ conditions that can never become true

// Every lane publishes its own ready bit, then waits until a 64-bit ballot of the bits is all ones: on wave32 the
// upper half is always 0 (ORNL/HeCBench#177: code written for one wave size hangs on the other; llvm/llvm-project
// #211493: ballot widths other than the wave size). The comparison is in a helper; the loop counts its spins.
__device__ static inline bool all_lanes(bool p) {
  return __builtin_amdgcn_ballot_w64(p) == 0xffffffffffffffffull;  // @helper:all_lanes
}

__global__ void ballot_ready_lanes(int *ready, int *out) {
  unsigned t = tx();
  __hip_atomic_store(&ready[t], 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  int spins = 0;
  while (!all_lanes(__hip_atomic_load(&ready[t], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) != 0)) {  // @poll
    spins++;
  }
  out[t] = spins;
}

// Every work-item of a 2-D block (16 x 4) checks in, then waits for one more arrival than the block has (an
// off-by-one in a hand-made block barrier; the arrival count is final at 64, the loop waits for 65).
__global__ void arrive_off_by_one_2d(unsigned *arrived, int *out) {
  unsigned i = ty() * bdx() + tx();
  __hip_atomic_fetch_add(arrived, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  const unsigned expected = bdx() * bdy() + 1;
  while (__hip_atomic_load(arrived, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) < expected) {  // @poll
    __builtin_amdgcn_s_sleep(2);  // @loop
  }
  out[i] = 1;
}

// ============================================================================ a barrier deadlock whose missing waves spin

// A two-stage hand-off in one workgroup (block 128): the first 64 work-items produce, meet at __syncthreads(), and
// only then signal the stage (atomic exchange in a helper); the other 64 spin on the stage in a for(;;)/break loop
// before any barrier. The waiter is the writer the spinners wait for (the Ocelot "barrier deadlock" report of
// stackoverflow.com/questions/14340938, a __syncthreads() only some threads reach).
struct Handoff {
  int stage;
  int value;
};

__device__ static inline void signal_stage(Handoff *h, int s) {
  __hip_atomic_exchange(&h->stage, s, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @helper:signal
}

__global__ void bd_handoff(Handoff *h, int *out) {
  unsigned t = tx();
  if (t < 64) {
    out[t] = (int)t * 3;
    sync_threads();  // @barrier
    if (t == 0) signal_stage(h, 1);  // @write
  } else {
    for (;;) {
      if (__hip_atomic_load(&h->stage, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 1) break;  // @poll
      __builtin_amdgcn_s_sleep(1);  // @loop
    }
    out[t] = out[t - 64] + 1;
  }
}

// ============================================================================ no invented hangs (these complete)

// Excess work-items return before an LDS tree reduction with __syncthreads() in its loop (the question of
// stackoverflow.com/questions/6666382, "__syncthreads() after having dropped threads"): on AMD hardware the waves
// that ended drop out of the workgroup barrier, and the partly-returned wave still arrives. Block 256, n = 100.
__global__ void early_return_reduce(const float *in, float *out, unsigned n) {
  __shared__ float part[256];
  unsigned t = tx();
  if (t >= n) return;
  part[t] = in[t];
  sync_threads();  // @barrier
  for (unsigned s = 64; s > 0; s >>= 1) {
    if (t < s && t + s < n) part[t] += part[t + s];
    sync_threads();  // @barrier
  }
  if (t == 0) out[bx()] = part[0];
}

// __syncthreads() in both arms of a branch that splits the block by waves (the if/else barrier of the PMPP chapter-4
// notes and lesleylai's __syncthreads note): AMD has one barrier per workgroup, so the two arms meet. Block 128.
__global__ void divergent_sync_arms(int *out) {
  __shared__ int lds[128];
  unsigned t = tx();
  if (t < 64) {
    lds[t] = (int)t;
    sync_threads();  // @barrier
    out[t] = lds[127 - t];
  } else {
    lds[t] = -(int)t;
    sync_threads();  // @barrier
    out[t] = lds[127 - t];
  }
}

// A grid barrier whose poll is an atomic read-modify-write (fetch_add of 0) at agent scope, with one late workgroup:
// the polling read always reaches L2, so it completes (the "vector atomic" variant of flagos-ai/FlagTree#1051 that
// completes). Grid 256, block 64 (four workgroups).
__global__ void grid_rmw_poll(unsigned *count, int *out) {
  unsigned nb = __builtin_amdgcn_grid_size_x() / bdx();
  if (bx() == nb - 1) {
    __builtin_amdgcn_s_sleep(127);
    __builtin_amdgcn_s_sleep(127);
  }
  sync_threads();
  if (tx() == 0) {
    __hip_atomic_fetch_add(count, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    while (__hip_atomic_fetch_add(count, 0u, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) < nb) {  // @poll
      __builtin_amdgcn_s_sleep(1);
    }
  }
  sync_threads();  // @barrier
  out[bx() * 64 + tx()] = 1;
}

// ============================================================================ traps and faults

// A bounds check in an inlined helper traps (HIP's assert is __builtin_trap on this toolchain): block 16 x 4, the
// index table is iota and n = 60, so the last four work-items (lanes 60-63 of the wave holding them) trap.
__device__ static inline void check_index(bool ok) {
  if (!ok) __builtin_trap();  // @helper:check
}

__global__ void assert_bounds_2d(const int *idx, float *dst, int n) {
  unsigned i = ty() * bdx() + tx();
  int j = idx[i];
  check_index(j < n);  // @trap
  dst[j] = 1.0f;
}

// A row table whose rows were never allocated (all NULL): every lane loads through rows[by()] (a 2-D grid of
// workgroups, 64 x 2). The shape of the "null weights pointer" reports (tenstorrent-style table of buffers).
__global__ void fault_null_row(float *const *rows, float *out) {
  const float *row = rows[by()];
  out[by() * 64 + tx()] = row[tx()] * 2.0f;  // @fault
}
