// scalarhangs: cross-workgroup polls that clang -O2 compiles to scalar loads (s_load), which read through the scalar
// data cache (GFX9/CDNA: a scalar L1 shared by 2 CUs; GFX10+: a scalar L0 per WGP). That cache is not coherent with
// vector stores and nothing but s_dcache_inv (or the start of the next dispatch) drops its lines, so a poll that
// filled its line before the writer's store keeps reading the old value for ever (LLVM AMDGPUUsage, "Memory Model
// GFX942": "The scalar memory operations access a scalar L1 cache shared by all wavefronts on a group of CUs. The
// scalar and vector L1 caches are not coherent."; "Scalar memory operations are only used to access memory that is
// proven to not change during the execution of the kernel dispatch"). clang selects s_load for a plain (non-atomic,
// non-volatile) uniform load it can prove no store of the function clobbers; a workgroup-scope fence in the loop
// (__threadfence_block()) keeps the load in the loop but does not stop that selection. Each hang has a twin whose poll
// is an atomic load at agent scope: clang emits a vector load with the agent-scope cache bits and the loop ends.
// Header-free HIP, built by build.py (clang-19/22 x gfx90a, gfx942 wave64, gfx1100, gfx1200 wave32 x -O0/-O2).
// Markers (read by tests/replay/test_scalarhangs.py): @poll (the polling load), @write (the store it waits for).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

__device__ static inline unsigned tx() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned bx() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline void fence_block() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup"); }
__device__ static inline void late() {  // more work before the write: the pollers read the flag first
  __builtin_amdgcn_s_sleep(127);
  __builtin_amdgcn_s_sleep(127);
}

// ============================================================================ a hand-made grid barrier
// Every workgroup counts itself in with an agent-scope release RMW on `arrived`; the one that arrives last opens the
// barrier with an agent-scope release store to `go`, and the others poll `go` with a plain load and
// __threadfence_block() (the cross-block spin barrier of flagos-ai/FlagTree#1051 and ROCm/hip-tests#412, with the
// flag read as a plain variable). The counter and the flag are __restrict__ arguments, so clang proves the RMW does
// not clobber `go` and selects a scalar load for the poll. Grid 256 (four workgroups), block 64; the last workgroup
// is late (arithmetic, not s_sleep: a sleep on the pollers' path counts as a clobber and keeps a vector load).
__device__ static inline unsigned busy(unsigned x) {
#pragma clang loop unroll(disable)
  for (int k = 0; k < 400; k++) x = x * 1664525u + 1013904223u;
  return x;
}
__global__ void sgrid_barrier(unsigned *__restrict__ arrived, unsigned *__restrict__ go, unsigned nblocks,
                              int *out) {
  unsigned work = bx() == nblocks - 1 ? busy(tx()) : 0;
  unsigned old = 0;
  if (tx() == 0) old = __hip_atomic_fetch_add(arrived, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  old = __builtin_amdgcn_readfirstlane(old);
  unsigned seen = 1;
  if (old == nblocks - 1) {
    if (tx() == 0) __hip_atomic_store(go, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
  } else {
    do {
      fence_block();
      seen = *go;  // @poll
    } while (seen == 0);
  }
  out[bx() * 64 + tx()] = (int)(seen + work);
}

__global__ void sgrid_barrier_atomic(unsigned *__restrict__ arrived, unsigned *__restrict__ go, unsigned nblocks,
                                     int *out) {
  unsigned work = bx() == nblocks - 1 ? busy(tx()) : 0;
  unsigned old = 0;
  if (tx() == 0) old = __hip_atomic_fetch_add(arrived, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  old = __builtin_amdgcn_readfirstlane(old);
  unsigned seen = 1;
  if (old == nblocks - 1) {
    if (tx() == 0) __hip_atomic_store(go, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
  } else {
    do {
      fence_block();
      seen = __hip_atomic_load(go, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);  // @poll
    } while (seen == 0);
  }
  out[bx() * 64 + tx()] = (int)(seen + work);
}

// ============================================================================ a slot between two workgroups
// Workgroup 0 computes a value and publishes it correctly (data, then the ready flag with an agent-scope release
// store, in a helper); workgroup 1 waits for the flag with a plain load in a do/while (the producer/consumer between
// blocks of the CUDA "Memory Fences" lessons). Grid 128, block 64.
struct Slot {
  int data;
  int ready;
};

__device__ static inline void publish(Slot *s, int v) {
  s->data = v;
  __hip_atomic_store(&s->ready, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
}

__global__ void sslot_poll(Slot *slot, const int *in, int *out) {
  unsigned t = tx();
  if (bx() == 0) {
    int acc = 0;
#pragma clang loop unroll(disable)
    for (int k = 0; k < 16; k++) acc += in[(t + k) & 63];
    out[t] = acc;
    late();
    if (t == 0) publish(slot, acc);  // @write
  } else {
    int r;
    do {
      fence_block();
      r = slot->ready;  // @poll
    } while (r == 0);
    out[64 + t] = r;
  }
}

__global__ void sslot_poll_atomic(Slot *slot, const int *in, int *out) {
  unsigned t = tx();
  if (bx() == 0) {
    int acc = 0;
#pragma clang loop unroll(disable)
    for (int k = 0; k < 16; k++) acc += in[(t + k) & 63];
    out[t] = acc;
    late();
    if (t == 0) publish(slot, acc);  // @write
  } else {
    int r;
    do {
      fence_block();
      r = __hip_atomic_load(&slot->ready, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  // @poll
    } while (r == 0);
    out[64 + t] = r;
  }
}

// The same slot when the reader comes late: the writer publishes at once and the reader does its own work first, so
// under the default schedule its first read already sees the flag. The hang needs a scalar line filled before the
// write (by an earlier read of the CU pair's or WGP's scalar cache): `amddbg run --explore` finds it in the
// schedules that start with the buffers' lines cached (seeds 4, 8, ...). Grid 128, block 64.
__global__ void sslot_late_reader(Slot *slot, const int *in, int *out) {
  unsigned t = tx();
  if (bx() == 0) {
    if (t == 0) publish(slot, in[0]);  // @write
  } else {
    unsigned work = busy(t);
    int r;
    do {
      fence_block();
      r = slot->ready;  // @poll
    } while (r == 0);
    out[64 + t] = r + (int)work;
  }
}

// ============================================================================ a __device__ global flag
// A go flag in a __device__ global (its address comes from the code, not the kernel arguments): workgroup 0 sets it
// with an agent-scope release store after its work; the other workgroups wait with a plain read. Grid 192, block 64.
__device__ int g_go;

__global__ void sglobal_flag(int *out) {
  if (bx() == 0) {
    late();
    if (tx() == 0) __hip_atomic_store(&g_go, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
  } else {
    int go;
    do {
      fence_block();
      go = g_go;  // @poll
    } while (go == 0);
    out[bx() * 64 + tx()] = go;
  }
}

__global__ void sglobal_flag_atomic(int *out) {
  if (bx() == 0) {
    late();
    if (tx() == 0) __hip_atomic_store(&g_go, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);  // @write
  } else {
    int go;
    do {
      fence_block();
      go = __hip_atomic_load(&g_go, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);  // @poll
    } while (go == 0);
    out[bx() * 64 + tx()] = go;
  }
}
