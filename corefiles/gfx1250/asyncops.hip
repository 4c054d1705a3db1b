// GFX12.5 asynchronous operations whose effect no public source pins down, in real clang-22 code
// (tests/emu/test_gfx1250_asyncops.py): the emulator must stop each naming the capability it lacks, never run it
// as something else. Header-free HIP (built with -nogpulib -nogpuinc by build.py, as corefiles/oracle).
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define CLUSTER(x, y, z) __attribute__((cluster_dims(x, y, z)))
typedef int int4v __attribute__((ext_vector_type(4)));
typedef int int8v __attribute__((ext_vector_type(8)));
typedef __attribute__((address_space(1))) int gint;
typedef __attribute__((address_space(3))) int lint;
typedef __attribute__((address_space(3))) long lbar;

static __attribute__((device)) inline unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }
static __attribute__((device)) inline unsigned wg() { return __builtin_amdgcn_workgroup_id_x(); }

// A multicast copy: each lane's word of `in` into tile[lane] of both workgroups of the cluster (mask 3), then
// every lane reads its word back after the wait.
__global__ void CLUSTER(2, 1, 1) cluster_multicast(const int *in, int *out) {
  __shared__ int tile[32];
  unsigned t = tid();
  __builtin_amdgcn_cluster_load_async_to_lds_b32((gint *)(in + t), (lint *)(tile + t), 0, 0, 3);
  __builtin_amdgcn_s_wait_asynccnt(0);
  out[wg() * 32 + t] = tile[t];
}

// A tensor data mover load of a 32-word row into LDS, described by two descriptor groups.
__global__ void tensor_load(const int *in, int *out, int4v g0, int8v g1) {
  __shared__ int tile[32];
  (void)in;
  __builtin_amdgcn_tensor_load_to_lds(g0, g1, (int4v){0, 0, 0, 0}, (int4v){0, 0, 0, 0}, 0);
  __builtin_amdgcn_s_wait_tensorcnt(0);
  out[tid()] = tile[tid()];
}

// The way back: a tensor data mover store of LDS to global memory.
__global__ void tensor_store(int *out, int4v g0, int8v g1) {
  __shared__ int tile[32];
  tile[tid()] = (int)tid();
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_tensor_store_from_lds(g0, g1, (int4v){0, 0, 0, 0}, (int4v){0, 0, 0, 0}, 0);
  __builtin_amdgcn_s_wait_tensorcnt(0);
  out[32 + tid()] = 1;
}

// An arrive on an LDS barrier object once this wave's async copies are done.
__global__ void async_arrive(const int *in, int *out) {
  __shared__ long bar;
  __shared__ int tile[32];
  unsigned t = tid();
  __builtin_amdgcn_global_load_async_to_lds_b32((gint *)(in + t), (lint *)(tile + t), 0, 0);
  __builtin_amdgcn_ds_atomic_async_barrier_arrive_b64((lbar *)&bar);
  __builtin_amdgcn_s_wait_asynccnt(0);
  out[t] = tile[t];
}

// s_wait_tensorcnt with no tensor operation in flight: nothing to wait for, the kernel completes.
__global__ void tensor_wait_only(const int *in, int *out) {
  __builtin_amdgcn_s_wait_tensorcnt(0);
  out[tid()] = in[tid()] + 1;
}
