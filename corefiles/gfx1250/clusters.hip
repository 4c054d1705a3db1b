// GFX12.5 workgroup clusters, cluster and named barriers, and async copies to LDS, in real clang-22 code
// (tests/emu/test_gfx1250_clusters.py runs each through `amddbg run`, writes cores and explains them).
// Header-free HIP (built with -nogpulib -nogpuinc by build.py, as corefiles/oracle).
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define CLUSTER(x, y, z) __attribute__((cluster_dims(x, y, z)))
typedef int int4v __attribute__((ext_vector_type(4)));
typedef __attribute__((address_space(1))) int gint;
typedef __attribute__((address_space(3))) int lint;
typedef __attribute__((address_space(1))) int4v gint4;
typedef __attribute__((address_space(3))) int4v lint4;

static __attribute__((device)) inline unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
static __attribute__((device)) inline unsigned wave() { return tid() / __builtin_amdgcn_wavefrontsize(); }
static __attribute__((device)) inline void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
static __attribute__((device)) inline void cluster_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "cluster");
  __builtin_amdgcn_s_cluster_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "cluster");
}

// cluster_ids (2x2 clusters): per workgroup, where the hardware says it is. out[4 * flat workgroup + k]:
// k = 0 workgroup id x | y << 8, 1 cluster id x | y << 8, 2 position in the cluster x | y << 8,
// 3 flat position | max flat id << 8 | (max id x + 1) << 16 | (max id y + 1) << 24.
__global__ void CLUSTER(2, 2, 1) cluster_ids(unsigned *out) {
  unsigned g = __builtin_amdgcn_workgroup_id_x() + __builtin_amdgcn_workgroup_id_y() * 4u;
  if (tid() == 0) {
    out[4 * g + 0] = __builtin_amdgcn_workgroup_id_x() | __builtin_amdgcn_workgroup_id_y() << 8;
    out[4 * g + 1] = __builtin_amdgcn_cluster_id_x() | __builtin_amdgcn_cluster_id_y() << 8;
    out[4 * g + 2] = __builtin_amdgcn_cluster_workgroup_id_x() | __builtin_amdgcn_cluster_workgroup_id_y() << 8;
    out[4 * g + 3] = __builtin_amdgcn_cluster_workgroup_flat_id() | __builtin_amdgcn_cluster_workgroup_max_flat_id() << 8
                   | (__builtin_amdgcn_cluster_workgroup_max_id_x() + 1) << 16
                   | (__builtin_amdgcn_cluster_workgroup_max_id_y() + 1) << 24;
  }
}

// launch_ids (no __cluster_dims__: `--cluster` at launch, or none): the workgroup id the compiler rebuilds from
// the cluster registers when HW_REG_IB_STS2 says the dispatch is clustered. out[g] = workgroup id x.
__global__ void launch_ids(unsigned *out) {
  if (tid() == 0)
    out[__builtin_amdgcn_workgroup_id_x()] = __builtin_amdgcn_workgroup_id_x() | __builtin_amdgcn_cluster_id_x() << 16;
}

// cluster_reduce (clusters of 4 along x, 64 work-items a workgroup): each workgroup sums its 64 inputs into
// part[g]; after the cluster barrier the cluster's first workgroup adds its cluster's four parts.
// out[c] = sum of in[256 c .. 256 c + 255].
__global__ void CLUSTER(4, 1, 1) cluster_reduce(const int *in, int *part, int *out) {
  __shared__ int s[64];
  unsigned g = __builtin_amdgcn_workgroup_id_x();
  s[tid()] = in[g * 64 + tid()];
  __syncthreads();
  if (tid() == 0) {
    int acc = 0;
    for (int k = 0; k < 64; ++k)
      acc += s[k];
    __hip_atomic_store(&part[g], acc, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
  cluster_sync();
  if (__builtin_amdgcn_cluster_workgroup_id_x() == 0 && tid() == 0) {
    int acc = 0;
    for (int k = 0; k < 4; ++k)
      acc += __hip_atomic_load(&part[g + k], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    out[__builtin_amdgcn_cluster_id_x()] = acc;
  }
}

// cluster_skip (a bug: clusters of 2): only the cluster's first workgroup arrives at the cluster barrier (the
// arrival is guarded by the position in the cluster), yet every wave waits on it: the cluster never completes.
__global__ void CLUSTER(2, 1, 1) cluster_skip(int *out) {
  out[__builtin_amdgcn_workgroup_id_x() * 64 + tid()] = 1;
  if (wave() == 0 && __builtin_amdgcn_cluster_workgroup_id_x() == 0)
    __builtin_amdgcn_s_barrier_signal(-3);
  __builtin_amdgcn_s_barrier_wait(-3);
  out[__builtin_amdgcn_workgroup_id_x() * 64 + tid()] = 2;
}

// named_short (a bug): a named barrier set up for three waves, but only waves 0 and 1 join and arrive.
__global__ void named_short(int *out) {
  __shared__ __amdgpu_named_workgroup_barrier_t trio;
  unsigned w = wave();
  if (w == 0)
    __builtin_amdgcn_s_barrier_init(&trio, 3);
  __syncthreads();
  if (w < 2) {
    __builtin_amdgcn_s_barrier_join(&trio);
    __builtin_amdgcn_s_barrier_signal_var(&trio, 3);
    __builtin_amdgcn_s_barrier_wait(1);
  }
  out[tid()] = (int)w;
}

// async_tile (128 work-items): each lane copies 16 bytes of `in` into the LDS tile with one async load, waits for
// its copies (s_wait_asynccnt 0), meets the workgroup, then reads another wave's part: out[i] = in[(i + 32) % 512]
// with i over the 512 ints (four per lane).
__global__ void async_tile(const int *in, int *out) {
  __shared__ int4v tile[128];
  unsigned i = tid();
  __builtin_amdgcn_global_load_async_to_lds_b128((gint4 *)(in + 4 * i), (lint4 *)&tile[i], 0, 0);
  __builtin_amdgcn_s_wait_asynccnt(0);
  __syncthreads();
  int4v v = tile[(i + 8) % 128];
  for (int k = 0; k < 4; ++k)
    out[4 * i + k] = v[k];
}

// async_race (a bug): as async_tile with b32 copies, but the wait for the copies is missing. Another wave's part of
// the tile may still hold the marker written before the copies: a lane that reads it traps (s_trap 2).
__global__ void async_race(const int *in, int *out) {
  __shared__ int tile[128];
  unsigned i = tid();
  tile[i] = -1;
  __syncthreads();
  __builtin_amdgcn_global_load_async_to_lds_b32((gint *)(in + i), (lint *)&tile[i], 0, 0);
  __syncthreads();
  int v = tile[(i + 32) % 128];
  if (v == -1)
    __builtin_trap();
  out[i] = v;
}

// async_store (128 work-items): the tile is written by ds stores, the workgroup meets, then each lane copies a tile
// element to `out` with an async store from LDS (its offset, 16 bytes, moves both addresses) and waits for it:
// out[i + 4] = tile[(i + 1) % 128 + 4] = 3 * ((i + 1) % 128 + 4); out[0..3] stay 0.
__global__ void async_store(int *out) {
  __shared__ int tile[132];
  unsigned i = tid();
  tile[i] = 3 * (int)i;
  if (i < 4)
    tile[128 + i] = 3 * (int)(128 + i);
  __syncthreads();
  __builtin_amdgcn_global_store_async_from_lds_b32((gint *)(out + i), (lint *)&tile[(i + 1) % 128], 16, 0);
  __builtin_amdgcn_s_wait_asynccnt(0);
}
