// freshhangs2: a second held-out style check of `amddbg explain` (issue 20), written after freshhangs and in shapes
// it does not have: a persistent kernel's work queue with a tail counter, a split-K semaphore per tile, a stream-K
// fixup flag, a decoupled look-back scan, a reader-writer lock upgrade, per-bucket locks, a ring buffer, a
// sense-reversing barrier counted with atomicInc, a wave-wide vote spin, a block-wide OR in a loop, an early exit
// before a grid barrier, a poll through a pointer argument that -O2 hoists. Each kernel cites the public report or
// thread it is modelled on. The expected verdict, kind, cause, waves and lines come from the semantics (the AMDGPU
// memory model as docs/emulator.md emulates it, the causes of docs/explain.md), written down in score.py before
// amddbg was run on them. Built by build.py (clang-19/22 x gfx90a, gfx942, gfx1100/gfx1200 wave32+wave64 x -O0/-O2).
// Header-free HIP (built with -nogpulib -nogpuinc, as corefiles/oracle). Markers (read by score.py, the same as
// freshhangs'): @poll (the polling load / the call that spins), @loop (the rest of its loop), @write (the write the
// poll waits for), @release (a lock's release), @barrier (a __syncthreads() call), @helper:NAME (a helper's line).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define WAVE FRESHHANGS2_WAVE

__device__ static inline unsigned tx() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned bx() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline unsigned bdx() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ static inline unsigned nblocks() { return __builtin_amdgcn_grid_size_x() / bdx(); }
// HIP's __syncthreads()
__device__ static inline void sync_threads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();  // @helper:barrier
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ static inline void late() {  // more work before a publication: the readers get there first
  __builtin_amdgcn_s_sleep(127);
  __builtin_amdgcn_s_sleep(127);
}

// ============================================================================ hangs: final values no wave can change

// A persistent kernel's work queue (kokkos/kokkos#988, "Workgraph test hangs": at the hang the queue's begin and end
// are equal and short of the total, "everyone is waiting for more" work that was never pushed). Workgroup 0 pushes
// one item per work-item and bumps the tail; the persistent workers of workgroups 1 and 2 each claim an index from
// the head and wait until the tail passes it. 128 claims, 64 pushes: the workers that claimed 64..127 wait for a
// tail that is final at 64 (grid 192, block 64).
struct WorkQueue {
  unsigned head;
  unsigned tail;
  int items[64];
};

__global__ void persistent_queue_tail(WorkQueue *q, int *out) {
  unsigned t = tx();
  if (bx() == 0) {
    q->items[t] = (int)t * 7;
    __hip_atomic_fetch_add(&q->tail, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
    return;
  }
  unsigned idx = __hip_atomic_fetch_add(&q->head, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (idx >= __hip_atomic_load(&q->tail, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)) {  // @poll
    __builtin_amdgcn_s_sleep(1);  // @loop
  }
  out[idx] = q->items[idx & 63];
}

// A bounded ring buffer whose consumers are fewer than its items (counters that can never meet, as in
// martinus/oans#138's progress loop; the head/tail ring of ROCm/rocm-systems#11136). Work-item 0 of workgroup 0
// produces 64 items in order: for each it waits for room (slot - tail < 16), then publishes the item's sequence
// number; workgroup 1's first 16 work-items each wait for their item, take it and bump the tail. The tail is final
// at 16: the producer waits for room for item 32 forever (grid 128, block 64).
struct Ring {
  unsigned head;
  unsigned tail;
  int seq[16];
};

__global__ void ring_buffer_full(Ring *r, int *out) {
  unsigned t = tx();
  if (bx() == 0) {
    if (t != 0) return;
#pragma clang loop unroll(disable)
    for (unsigned slot = 0; slot < 64; slot++) {
      while ((int)(slot - __hip_atomic_load(&r->tail, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)) >= 16) {  // @poll
        __builtin_amdgcn_s_sleep(1);  // @loop
      }
      __hip_atomic_store(&r->seq[slot & 15], (int)slot + 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
      __hip_atomic_store(&r->head, slot + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    }
  } else if (t < 16) {
    while (__hip_atomic_load(&r->seq[t], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) != (int)t + 1) {
      __builtin_amdgcn_s_sleep(1);
    }
    out[t] = (int)t;
    __hip_atomic_fetch_add(&r->tail, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
  }
}

// A grid barrier after an early exit (hw-native-sys/simpler#1074: a barrier spin waiting for acks from threads that
// had already left; stackoverflow.com/questions/15146886, "Conditional __syncthreads() deadlock or not": returning
// before a block-wide barrier is fine, before a grid-wide one it is not). Workgroups past the tile count return;
// the others count themselves in and every work-item waits for the whole grid (cooperative-groups style). Grid 256,
// block 64, ntiles 3: the count is final at 3, the loop waits for 4.
__global__ void early_exit_grid_sync(unsigned *arrived, float *data, unsigned ntiles) {
  unsigned t = tx();
  if (bx() >= ntiles) return;
  data[bx() * 64 + t] *= 2.0f;
  sync_threads();
  if (t == 0) __hip_atomic_fetch_add(arrived, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  while (__hip_atomic_load(arrived, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) < nblocks()) {  // @poll
    __builtin_amdgcn_s_sleep(2);  // @loop
  }
  data[bx() * 64 + t] += 1.0f;
}

// A sense-reversing grid barrier counted with atomicInc (the fetch-increment barrier of stevengong.co's
// "Fetch Increment Barrier" notes, whose last arrival flips the flag; the grid barrier of CUDA's cooperative groups,
// forums.developer.nvidia.com "Possible race in CUDA Cooperative Groups"). The bug: atomicInc's limit is the block
// count, not block count - 1, so the count does not wrap to 0 on the last arrival. The first barrier passes (the
// arrival that read nb - 1 flips the sense); the second finds the count at nb, wraps it on the first arrival, and
// no arrival reads nb - 1: every workgroup waits for a sense nobody flips (grid 256, block 64).
struct SenseBar {
  unsigned count;
  unsigned sense;
};

__device__ static inline void sense_barrier(SenseBar *b, unsigned nb) {
  sync_threads();
  if (tx() == 0) {
    unsigned mine = __hip_atomic_load(&b->sense, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    unsigned old = __builtin_amdgcn_atomic_inc32(&b->count, nb, __ATOMIC_ACQ_REL, "agent");
    if (old == nb - 1) {
      __hip_atomic_store(&b->sense, 1u - mine, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @helper:flip
    } else {
      while (__hip_atomic_load(&b->sense, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == mine) {  // @helper:sense_poll
        __builtin_amdgcn_s_sleep(1);  // @helper:sense_loop
      }
    }
  }
  sync_threads();  // @helper:sense_sync
}

__global__ void atomicinc_barrier(SenseBar *bar, float *data) {
  unsigned nb = nblocks();
  unsigned i = bx() * 64 + tx();
  data[i] += 1.0f;
  sense_barrier(bar, nb);
  data[i] *= 2.0f;
  sense_barrier(bar, nb);  // @poll @barrier
  data[i] -= 1.0f;
}

// ============================================================================ hangs: nobody writes the flag

// A wave-wide vote spin (the per-wave inbox/outbox polls of llvm's GPU RPC, reviews.llvm.org/D159276, where the lanes
// of a wave must agree before they move on): every lane of the consumer workgroup waits until no lane of its wave
// sees an empty job slot. The producer fills the first n slots only (n = 48 of 64): the waves holding lanes 48..63
// spin, each lane of them kept in the loop by the vote (grid 128, block 64).
#if WAVE == 64
#define BALLOT(p) __builtin_amdgcn_ballot_w64(p)
#else
#define BALLOT(p) __builtin_amdgcn_ballot_w32(p)
#endif

__global__ void vote_spin_any(int *slot, int *out, int n) {
  unsigned t = tx();
  if (bx() == 0) {
    late();
    if ((int)t < n) __hip_atomic_store(&slot[t], (int)t + 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  } else {
    while (BALLOT(__hip_atomic_load(&slot[t], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) != 0) {  // @poll
      __builtin_amdgcn_s_sleep(1);  // @loop
    }
    out[t] = slot[t];
  }
}

// ============================================================================ SIMT locks inside one wave

// A reader-writer lock whose reader upgrades to writer (the read-then-write upgrade of the GPU reader-writer lock
// notes, "nv items reader writer"; the intra-warp lock hazard of stackoverflow.com/questions/45723726, "Thread/warp
// local lock in cuda"). Every work-item takes a read lock; work-item 0 then waits to be the only reader. On a CPU the
// other readers would release; on the GPU they are lanes of work-item 0's wave, which keeps looping, so their
// read-unlock never runs (block 64: on wave32 the second wave unlocks, the first cannot).
struct RWLock {
  int state;  // readers, or -1 for a writer
  int data;
};

__global__ void rwlock_upgrade(RWLock *rw, int *out) {
  unsigned t = tx();
  __hip_atomic_fetch_add(&rw->state, 1, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
  int v = rw->data;
  if (t == 0) {
    int expected = 1;
    while (!__hip_atomic_compare_exchange_strong(&rw->state, &expected, -1, __ATOMIC_ACQUIRE,  // @poll
                                                 __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {  // @poll
      expected = 1;  // @loop
    }
    rw->data = v + 1;
    __hip_atomic_store(&rw->state, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  }
  out[t] = v;
  __hip_atomic_fetch_sub(&rw->state, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @release
}

// Per-bucket locks of a hash table (the CUDA forums' "atomicCAS lock warp" threads: one lock per bucket, and lanes of
// one warp that hash to the same bucket): the first 32 work-items hash key & 3 (keys are iota), so each bucket's
// lock is taken by one lane and wanted by seven others of the same wave.
__global__ void bucket_locks(int *locks, int *table, const int *keys) {
  unsigned t = tx();
  if (t >= 32) return;
  int key = keys[t];
  int b = key & 3;
  int expected = 0;
  while (!__hip_atomic_compare_exchange_strong(&locks[b], &expected, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED,  // @poll
                                               __HIP_MEMORY_SCOPE_AGENT)) {
    expected = 0;  // @loop
  }
  table[b] += key;
  __hip_atomic_store(&locks[b], 0, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @release
}

// ============================================================================ publications other workgroups cannot see

// A stream-K fixup flag (ROCm/rocm-libraries#8726, "Fix gfx1250 StreamK fixup flag coherence": "the VMEM flag load
// has no glc, its global_inv ran only once after the spin (not per poll) ... A consumer could re-read a stale cached
// flag forever and deadlock"). Workgroup 1 finishes a partial tile late and publishes it with an agent-scope release;
// the tile's owner, workgroup 0, polls the flag with a relaxed wavefront-scope load (no glc) and fences once after
// the loop (grid 128, block 64).
__global__ void streamk_fixup_flag(int *flags, float *partials, const float *a, float *c) {
  unsigned t = tx();
  float acc = 0.0f;
#pragma clang loop unroll(disable)
  for (int k = 0; k < 32; k++) acc += a[(bx() * 32 + k) * 64 + t];
  if (bx() == 1) {
    late();
    partials[t] = acc;
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
    if (t == 0) __hip_atomic_store(&flags[0], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  // @write
  } else {
    while (__hip_atomic_load(&flags[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WAVEFRONT) == 0) {  // @poll
    }
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");  // @loop
    c[t] = acc + partials[t];
  }
}

// A decoupled look-back scan (JuliaGPU/AcceleratedKernels.jl#98, "Fix DecoupledLookback cross-block coherence": the
// flags read with an L1-cacheable load; b0nes164/Decoupled-Fallback-Paper#12 on "blocking" tiles that deadlock).
// Each tile sums its 64 inputs; tile 0 publishes its inclusive prefix (status P) late; the other tiles publish their
// aggregate (status A) and look back, thread 0 polling each predecessor's flag. The look-back is a helper templated
// on the poll's scope: at workgroup scope (this kernel, 2 tiles) tile 1 keeps the stale line it read before tile 0
// published; at agent scope (lookback_scan_agent below, 4 tiles) the scan completes.
template <int SCOPE>
__device__ static inline unsigned look_back(unsigned *flags, unsigned tile) {
  unsigned prefix = 0;
  for (int p = (int)tile - 1; p >= 0; --p) {
    unsigned s;
    do {
      s = __hip_atomic_load(&flags[p], __ATOMIC_RELAXED, SCOPE);  // @helper:lookback_poll
    } while ((s >> 30) == 0u);  // @helper:lookback_loop
    prefix += s & 0x3fffffffu;
    if ((s >> 30) == 2u) break;
  }
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
  return prefix;
}

template <int SCOPE>
__device__ static inline void scan_tile(unsigned *flags, const unsigned *in, unsigned *out, unsigned *part) {
  unsigned t = tx();
  unsigned tile = bx();
  part[t] = in[tile * 64 + t];
  sync_threads();
  if (t == 0) {
    unsigned agg = 0;
#pragma clang loop unroll(disable)
    for (int k = 0; k < 64; k++) agg += part[k];
    unsigned prefix = 0;
    if (tile == 0) {
      late();
      __hip_atomic_store(&flags[0], (2u << 30) | agg, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @helper:publish_p
    } else {
      __hip_atomic_store(&flags[tile], (1u << 30) | agg, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
      prefix = look_back<SCOPE>(flags, tile);  // @helper:look_back
      __hip_atomic_store(&flags[tile], (2u << 30) | (prefix + agg), __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    }
    part[64] = prefix;
  }
  sync_threads();  // @helper:scan_sync
  out[tile * 64 + t] = part[64] + part[t];
}

__global__ void lookback_scan_narrow(unsigned *flags, const unsigned *in, unsigned *out) {
  __shared__ unsigned part[65];
  scan_tile<__HIP_MEMORY_SCOPE_WORKGROUP>(flags, in, out, part);  // @poll @write @barrier
}

// ============================================================================ a poll the compiler hoisted

// A stop flag read through a pointer argument (the "volatile flag" threads: without volatile or an atomic the
// compiler keeps the flag in a register, e.g. forums.developer.nvidia.com "kernel hangs in while loop waiting for a
// flag"; the OpenCL spin of blog.csdn.net u010264950/8813567): workgroup 0 sets *done late, workgroup 1 spins on it,
// counting in a volatile float, so -O2 (type-based alias rules: a float store cannot change an int) reads *done once
// before the loop (grid 128, block 64).
__global__ void hoist_done_arg(int *done, const int *in, int *out, float *ticks) {
  unsigned t = tx();
  if (bx() == 0) {
    int acc = 0;
#pragma clang loop unroll(disable)
    for (int k = 0; k < 48; k++) acc += in[(t + k) & 63];
    out[t] = acc;
    late();
    if (t == 0) *done = 1;  // @write
  } else {
    while (*done == 0) {  // @poll
      *(volatile float *)&ticks[t] += 1.0f;  // @loop
    }
    out[64 + t] = 2;
  }
}

// ============================================================================ no invented hangs (these complete)

// Serial split-K with a semaphore per tile (NVIDIA/cutlass#1296, "serial splitK gemm, semaphore deadlock", reported
// while porting to AMD; cutlass's Semaphore::wait/release): slice k of the tile waits (thread 0, agent-scope acquire)
// until the semaphore says k, adds its partial, and releases k + 1. Slice 0 is late: the other slices wait, then run
// in order. Grid 192 (three slices of one tile), block 64.
__global__ void splitk_semaphore(int *sem, float *c, const float *a) {
  unsigned k = bx();
  unsigned t = tx();
  float acc = 0.0f;
#pragma clang loop unroll(disable)
  for (int i = 0; i < 16; i++) acc += a[(k * 16 + i) * 64 + t];
  if (k == 0) late();
  if (t == 0) {
    while (__hip_atomic_load(sem, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) != (int)k) {  // @poll
      __builtin_amdgcn_s_sleep(1);
    }
  }
  sync_threads();
  c[t] = (k == 0 ? 0.0f : c[t]) + acc;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
  sync_threads();
  if (t == 0) __hip_atomic_store(sem, (int)k + 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
}

// The look-back scan polling at agent scope: it completes (grid 256: four tiles, block 64).
__global__ void lookback_scan_agent(unsigned *flags, const unsigned *in, unsigned *out) {
  __shared__ unsigned part[65];
  scan_tile<__HIP_MEMORY_SCOPE_AGENT>(flags, in, out, part);
}

// A ticket lock taken by one leader per workgroup (the "Threadblock-Level Locking: let one thread per block acquire
// the lock, then use __syncthreads()" advice given for warp deadlocks with CUDA mutexes): four workgroups, each sums
// its inputs in LDS, thread 0 adds the sum to a global total under the lock; it completes (grid 256, block 64).
__global__ void ticket_lock_leader(unsigned *next, unsigned *serving, int *total, const int *in) {
  __shared__ int sum;
  unsigned t = tx();
  if (t == 0) sum = 0;
  sync_threads();
  __hip_atomic_fetch_add(&sum, in[bx() * 64 + t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  sync_threads();
  if (t == 0) {
    unsigned mine = __hip_atomic_fetch_add(next, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    while (__hip_atomic_load(serving, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) != mine) {  // @poll
      __builtin_amdgcn_s_sleep(1);
    }
    *total += sum;
    __hip_atomic_store(serving, mine + 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @release
  }
  sync_threads();
}

// __syncthreads_or() in a loop (a convergence loop: every work-item iterates until none wants more; CUDA's
// __syncthreads_or, built here as HIP does, an LDS vote between barriers): work-items need 0..7 iterations, the
// barriers are uniform, it completes (block 128; the divergent-loop deadlock of the PV197 notes, pitik3u.codeberg.page,
// does not arise because the vote is block-wide).
__device__ static inline int block_or(int p, int *votes) {
  if (tx() == 0) *votes = 0;
  sync_threads();
  if (p) __hip_atomic_fetch_or(votes, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  sync_threads();
  int any = *votes;
  sync_threads();
  return any;
}

__global__ void syncthreads_or_loop(const int *need, int *iters) {
  __shared__ int votes;
  unsigned t = tx();
  int it = 0;
  int more;
  do {
    ++it;
    more = it < (need[t] & 7);
  } while (block_or(more, &votes));  // @barrier
  iters[t] = it;
}
