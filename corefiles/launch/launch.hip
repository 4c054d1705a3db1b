// Launch shapes real HIP programs use (issue 22, section 3): dynamic LDS (hipLaunchKernelGGL's sharedMemBytes for
// `extern __shared__`), structs passed by value, `__device__`/`__constant__` globals the host sets with
// hipMemcpyToSymbol, and sequences of launches sharing buffers (a two-pass scan). Built for every emulated target by
// build.py; tests/emu/test_launch.py runs them through `amddbg run` and checks each result against numpy.
// Header-free HIP (built with -nogpulib -nogpuinc, as corefiles/oracle).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
typedef unsigned int u32;
typedef unsigned long long u64;

__device__ static inline u32 tid() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline u32 bid() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline u32 bdim() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ static inline void sync() {  // __syncthreads()
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// -- dynamic LDS: every `extern __shared__` array starts at the dispatch's dynamic LDS
extern __shared__ float dyn_f32[];
extern __shared__ int dyn_i32[];

// Tree reduction of one block in dynamic LDS (sharedMemBytes = blockDim * 4); one sum per block.
__global__ void reduce_sum(const float *in, float *block_sums, u32 n) {
  u32 t = tid(), i = bid() * bdim() + t;
  dyn_f32[t] = i < n ? in[i] : 0.0f;
  sync();
  for (u32 s = bdim() / 2; s > 0; s >>= 1) {
    if (t < s) dyn_f32[t] += dyn_f32[t + s];
    sync();
  }
  if (t == 0) block_sums[bid()] = dyn_f32[0];
}

// Two-pass scan, pass 1 (also used on the block sums): an inclusive Hillis-Steele scan of each block, double-buffered
// in dynamic LDS (sharedMemBytes = 2 * blockDim * 4), and each block's total.
__global__ void scan_blocks(const int *in, int *out, int *block_sums, u32 n) {
  u32 t = tid(), b = bdim(), i = bid() * b + t;
  int *a = dyn_i32, *c = dyn_i32 + b;
  a[t] = i < n ? in[i] : 0;
  sync();
  for (u32 off = 1; off < b; off <<= 1) {
    c[t] = t >= off ? a[t] + a[t - off] : a[t];
    sync();
    int *x = a;
    a = c;
    c = x;
  }
  if (i < n) out[i] = a[t];
  if (t == b - 1 || i == n - 1) block_sums[bid()] = a[t];
}

// Two-pass scan, pass 2: add the scanned total of the blocks before this one.
__global__ void add_block_offsets(int *out, const int *scanned_sums, u32 n) {
  u32 i = bid() * bdim() + tid();
  if (bid() > 0 && i < n) out[i] += scanned_sums[bid() - 1];
}

// Static and dynamic LDS together: the dynamic array starts after the static one.
__shared__ int static_tag[4];
__global__ void static_and_dynamic(int *out) {
  u32 t = tid();
  if (t < 4) static_tag[t] = 1000 * (int)(t + 1);
  dyn_i32[t] = (int)t * 3;
  sync();
  out[bid() * bdim() + t] = dyn_i32[bdim() - 1 - t] + static_tag[t & 3];
}

// -- __constant__ tables set by the host (hipMemcpyToSymbol)
namespace dsp {
__constant__ float fir_taps[8];
}
__constant__ int sbox[256];

__global__ void fir_filter(const float *in, float *out, u32 n) {
  u32 i = bid() * bdim() + tid();
  if (i >= n) return;
  float acc = 0.0f;
  for (u32 k = 0; k < 8; ++k) {
    float x = i >= k ? in[i - k] : 0.0f;
    acc += dsp::fir_taps[k] * x;
  }
  out[i] = acc;
}

__global__ void substitute(const u32 *in, int *out, int key, u32 n) {
  u32 i = bid() * bdim() + tid();
  if (i < n) out[i] = sbox[in[i] & 255] ^ key;
}

// -- __device__ globals: counters the kernels update, a scale with an initial value in the code object
__device__ u32 hit_count;
__device__ int histogram[16];
__device__ float scale_factor = 2.0f;
__device__ u64 running_total;

__global__ void histogram16(const u32 *in, u32 n) {
  u32 i = bid() * bdim() + tid();
  if (i < n) {
    __hip_atomic_fetch_add(&histogram[in[i] & 15], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    __hip_atomic_fetch_add(&hit_count, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
}

__global__ void scale_by_global(float *data, u32 n) {
  u32 i = bid() * bdim() + tid();
  if (i < n) data[i] *= scale_factor;
}

__global__ void accumulate(const u32 *in, u32 n) {
  u32 i = bid() * bdim() + tid();
  if (i < n) __hip_atomic_fetch_add(&running_total, (u64)in[i], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// -- structs by value
struct Params {  // 24 bytes, 8-aligned: f32 at 0, i32 at 4, f32 at 8, u8 at 12, f64 at 16
  float scale;
  int n;
  float bias;
  unsigned char negate;
  double offset;
};
__global__ void affine_params(Params p, const float *x, float *y) {
  u32 i = bid() * bdim() + tid();
  if ((int)i >= p.n) return;
  float v = x[i] * p.scale + p.bias;
  if (p.negate & 1) v = -v;
  y[i] = (float)((double)v + p.offset);
}

struct Vec3 {  // 12 bytes, 4-aligned
  float x, y, z;
};
__global__ void vec3_scale(const float *in, float *out, Vec3 s, u32 n) {
  u32 i = bid() * bdim() + tid();
  if (i < n) {
    out[3 * i] = in[3 * i] * s.x;
    out[3 * i + 1] = in[3 * i + 1] * s.y;
    out[3 * i + 2] = in[3 * i + 2] * s.z;
  }
}

struct Span {  // a pointer inside a struct: 16 bytes
  int *data;
  u32 count;
  int value;
};
__global__ void span_fill(short tag, Span s) {
  u32 i = bid() * bdim() + tid();
  if (i < s.count) s.data[i] = s.value + (int)tag * (int)i;
}

struct Quad {  // 16 bytes, 4-aligned: right after a 4-byte scalar, at kernarg offset 4
  u32 a, b, c, d;
};
__global__ void quad_mix(u32 k, Quad q, u32 *out) {
  u32 i = tid();
  out[i] = k * i + q.a + (q.b << 4) + (q.c << 8) + (q.d << 12);
}
