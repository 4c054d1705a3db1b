// Kernels behind issue 22's wrong results and LDS bounds, in the shapes third-party samples have them.
// Header-free HIP (built with -nogpulib -nogpuinc by build.py): only clang builtins, no runtime headers.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

typedef unsigned int u32;
typedef int i32;

__device__ static inline u32 tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline u32 gid_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline void __syncthreads() {  // what HIP's __syncthreads() is
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// A relaxed agent-scope spin between two workgroups: workgroup 1 publishes, workgroup 0 waits for it. Relaxed
// agent-scope atomics are coherent at agent scope (GFX11: `glc` sends the load past the L0 and the GL1), so this
// completes on every target.
extern "C" __global__ void relaxed_spin(u32 *flag, u32 *out) {
  if (tid_x() != 0) return;
  if (gid_x() == 1) {
    for (int i = 0; i < 20; i++) __builtin_amdgcn_s_sleep(10);  // publish after the reader has polled
    __hip_atomic_store(flag, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    out[1] = 1;
  } else {
    u32 n = 0;
    while (__hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) == 0) n++;
    out[0] = n > 0 ? 2 : 1;
  }
}

// A 1-D stencil through an LDS tile with a halo of R on each side, two phases separated by __syncthreads (the
// HeCBench/rocm-examples shape): load the tile and its halo, sum 2R+1 neighbours, write the sums back into the
// tile, then each item adds its right neighbour's sum.
#define TILE 256
#define R 3
extern "C" __global__ void lds_stencil(const i32 *in, i32 *out, u32 n) {
  __shared__ i32 tile[TILE + 2 * R];
  u32 t = tid_x();
  i32 g = (i32)(gid_x() * TILE + t);
  tile[t + R] = (u32)g < n ? in[g] : 0;
  if (t < R) {
    i32 l = g - R;
    tile[t] = l >= 0 ? in[l] : 0;
    u32 r = (u32)g + TILE;
    tile[t + TILE + R] = r < n ? in[r] : 0;
  }
  __syncthreads();
  i32 s = 0;
  for (i32 k = -R; k <= R; k++) s += tile[(i32)t + R + k];
  __syncthreads();
  tile[t + R] = s;
  __syncthreads();
  i32 right = t + 1 < TILE ? tile[t + R + 1] : 0;
  if ((u32)g < n) out[g] = s + right;
}

// Past a __shared__ array. lds_read_past: item t reads buf[t + 1]; the last item's read is past the array and its
// result is not used (the sample's bug that does not crash). lds_write_past: item t writes buf[t + 1], the last one
// past the array (and past the workgroup's LDS when the array fills its allocation).
#define BLOCK 64
extern "C" __global__ void lds_read_past(const u32 *in, u32 *out) {
  __shared__ u32 buf[BLOCK];
  u32 t = tid_x();
  buf[t] = in[t];
  __syncthreads();
  u32 next = buf[t + 1];
  out[t] = t + 1 < BLOCK ? next - buf[t] : 0;
}

extern "C" __global__ void lds_write_past(const u32 *in, u32 *out, u32 stride) {
  __shared__ u32 buf[128];
  u32 t = tid_x();
  buf[t] = 0;
  buf[t + 64] = 0;
  __syncthreads();
  buf[t * stride + 1] = in[t];
  __syncthreads();
  out[t] = buf[t];
}

// The stencil as HIP's headers give it at -O0: the work-item/workgroup ids, the block size and __syncthreads come
// from functions that are not inlined (device-library calls at -O0), and the block size is read from the dispatch
// packet, not a constant.
__attribute__((noinline)) __device__ u32 ocl_local_id() { return __builtin_amdgcn_workitem_id_x(); }
__attribute__((noinline)) __device__ u32 ocl_group_id() { return __builtin_amdgcn_workgroup_id_x(); }
__attribute__((noinline)) __device__ u32 ocl_local_size() {
  const unsigned short *p = (const unsigned short *)__builtin_amdgcn_dispatch_ptr();
  return p[2];
}
__attribute__((noinline)) __device__ void work_group_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

extern "C" __global__ void lds_stencil_calls(const float *in, float *out, i32 n) {
  __shared__ float tile[TILE + 2 * R];
  i32 t = (i32)ocl_local_id();
  i32 bs = (i32)ocl_local_size();
  i32 g = (i32)(ocl_group_id() * bs) + t;
  tile[t + R] = g < n ? in[g] : 0.0f;
  if (t < R) {
    tile[t] = g - R >= 0 ? in[g - R] : 0.0f;
    tile[t + bs + R] = g + bs < n ? in[g + bs] : 0.0f;
  }
  work_group_barrier();
  float s = 0.0f;
  for (i32 k = -R; k <= R; k++) s += tile[t + R + k];
  work_group_barrier();
  tile[t + R] = s;
  work_group_barrier();
  float right = t + 1 < bs ? tile[t + R + 1] : 0.0f;
  if (g < n) out[g] = s + right;
}
