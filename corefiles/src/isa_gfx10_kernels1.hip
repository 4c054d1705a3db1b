// Extra kernels used to measure the GFX10+ decoder beyond probe.hip (float/double/half math, DPP,
// wave intrinsics, atomics, LDS). Build: clang-22 -x hip --offload-arch=<gfx> -nogpulib -nogpuinc
// --cuda-device-only --no-gpu-bundle-output -O1|-O3 -ffast-math [-mwavefrontsize64].
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))
typedef _Float16 half;
__device__ inline int tid() { return __builtin_amdgcn_workitem_id_x(); }

__global__ void k_float(float *a, const float *b, float s, int n) {
  int i = tid();
  float x = b[i];
  for (int k = 0; k < n; ++k) x = __builtin_fmaf(x, s, b[k]) / (1.0f + __builtin_fabsf(x));
  a[i] = __builtin_sqrtf(x) + __builtin_expf(x) * __builtin_logf(s) + __builtin_sinf(x);
}
__global__ void k_double(double *a, const double *b, double s, int n) {
  int i = tid();
  double x = b[i];
  for (int k = 0; k < n; ++k) x = __builtin_fma(x, s, b[k]) / (3.0 + x);
  a[i] = __builtin_sqrt(x) + __builtin_floor(x * 0.5) + (double)(long)x;
}
__global__ void k_half(half *a, const half *b, half s, int n) {
  int i = tid();
  half x = b[i];
  for (int k = 0; k < n; ++k) x = x * s + b[k];
  a[i] = x > (half)1.0 ? x : (half)0.25f;
}
typedef half half2 __attribute__((ext_vector_type(2)));
__global__ void k_half2(half2 *a, const half2 *b, half2 s) {
  int i = tid();
  a[i] = b[i] * s + b[i + 1];
}
__global__ void k_wave(int *a, const int *b) {
  int i = tid();
  int v = b[i];
  v += __builtin_amdgcn_ds_bpermute((i ^ 1) << 2, v);
  v += __builtin_amdgcn_mov_dpp(v, 0x111, 0xf, 0xf, false);
  v += __builtin_amdgcn_update_dpp(0, v, 0x1b, 0xf, 0xf, true);
  v += __builtin_amdgcn_readfirstlane(v);
  unsigned long long m = __builtin_amdgcn_read_exec();
  a[i] = v + (int)__builtin_popcountll(m);
}
__global__ void k_atomic(int *a, unsigned *u, float *f, int n) {
  __shared__ int lds[256];
  int i = tid();
  lds[i] = i * n;
  __builtin_amdgcn_s_barrier();
  __atomic_fetch_add(&a[0], lds[(i + 1) & 255], __ATOMIC_RELAXED);
  __atomic_fetch_max(&a[1], i, __ATOMIC_SEQ_CST);
  __atomic_fetch_and(u, (unsigned)i, __ATOMIC_ACQUIRE);
  int e = 0;
  __atomic_compare_exchange_n(&a[2], &e, i, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
  __hip_atomic_fetch_add(f, 1.0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __atomic_fetch_add(&lds[i & 3], 5, __ATOMIC_RELAXED);
  a[i + 3] = lds[(i * 7) & 255] + __atomic_load_n(&a[5], __ATOMIC_ACQUIRE);
}
__global__ void k_int(long *a, const long *b, int n) {
  int i = tid();
  long x = b[i];
  for (int k = 0; k < n; ++k) x = x * b[k] / (k + 3) + (x >> 3) % 7;
  a[i] = x ^ __builtin_clzll(x) ^ (unsigned)x / 13u;
}
