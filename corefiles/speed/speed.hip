// Kernels of the emulator speed bench (bench/emu_vs_tinygrad.py, issue 22 section 5): one per kernel kind the
// issue names (integer loop, f32 FMA/packed math, f32 divide/sqrt, LDS + barriers, small launches).
// Header-free HIP (built with -nogpulib -nogpuinc by build.py): only clang builtins, no runtime headers, no
// hidden kernel arguments (block size fixed at 256 work-items), no stack, no globals, so the same bytes run on
// any emulator that is handed the kernel-argument pointer alone.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define BLOCK 256

typedef unsigned int u32;

__device__ static inline u32 tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline u32 gid_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline u32 gtid() { return gid_x() * BLOCK + tid_x(); }
__device__ static inline void __syncthreads() {  // what HIP's __syncthreads() is
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// integer loop: a per-item hash (multiply, xor, shift, rotate) iterated `rounds` times
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(BLOCK, BLOCK)))
void int_hash(const u32 *in, u32 *out, u32 rounds) {
  u32 i = gtid();
  u32 h = in[i];
  for (u32 r = 0; r < rounds; r++) {
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h = (h << 5 | h >> 27) + r;
  }
  out[i] = h;
}

// f32 FMA / packed math: four fma chains on float2 pairs (clang packs these into v_pk_fma_f32 on gfx90a/gfx942,
// dual-issue VOPD on GFX11/12), a multiply and an add each round
typedef float float2 __attribute__((ext_vector_type(2)));
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(BLOCK, BLOCK)))
void f32_fma(const float *in, float *out, u32 rounds) {
  u32 i = gtid();
  float x = in[i];
  float2 a = {x, x + 1.0f}, b = {x * 0.5f, x - 1.0f};
  const float2 m = {0.999f, 1.001f}, c = {0.25f, -0.125f};
  for (u32 r = 0; r < rounds; r++) {
    a = __builtin_elementwise_fma(a, m, c);
    b = __builtin_elementwise_fma(b, m, a);
    a = a * m + b * c;  // (-ffp-contract=off: separate v_pk_mul/v_pk_add)
  }
  out[i] = a.x + a.y + b.x + b.y;
}

// f32 divide / sqrt: Newton iterations for the square root with IEEE division and sqrtf (v_div_scale,
// v_div_fmas, v_div_fixup, v_sqrt_f32 and their scaling)
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(BLOCK, BLOCK)))
void f32_newton(const float *in, float *out, u32 rounds) {
  u32 i = gtid();
  float a = in[i], x = a;
  for (u32 r = 0; r < rounds; r++) x = 0.5f * (x + a / x);
  out[i] = x + __builtin_sqrtf(a) / (x + 1.0f);
}

// LDS + barriers: a block sum through an LDS tree, `rounds` times over a value that changes each round
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(BLOCK, BLOCK)))
void lds_reduce(const u32 *in, u32 *out, u32 rounds) {
  __shared__ u32 s[BLOCK];
  u32 t = tid_x();
  u32 v = in[gtid()], acc = 0;
  for (u32 r = 0; r < rounds; r++) {
    s[t] = v + r;
    __syncthreads();
    for (u32 k = BLOCK / 2; k > 0; k >>= 1) {
      if (t < k) s[t] += s[t + k];
      __syncthreads();
    }
    acc += s[0] ^ t;
    __syncthreads();
  }
  out[gtid()] = acc;
}

// small launches: an element-wise add, launched many times on a few waves
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(BLOCK, BLOCK)))
void vadd(const float *a, const float *b, float *c) {
  u32 i = gtid();
  c[i] = a[i] + b[i];
}
