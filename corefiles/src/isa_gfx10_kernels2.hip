// Extra kernels used to measure the GFX10+ decoder beyond probe.hip (float/double/half math, DPP,
// wave intrinsics, atomics, LDS). Build: clang-22 -x hip --offload-arch=<gfx> -nogpulib -nogpuinc
// --cuda-device-only --no-gpu-bundle-output -O1|-O3 -ffast-math [-mwavefrontsize64].
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))
typedef _Float16 half;
typedef half half2 __attribute__((ext_vector_type(2)));
typedef short short2 __attribute__((ext_vector_type(2)));
typedef float float4 __attribute__((ext_vector_type(4)));
__device__ inline int tid() { return __builtin_amdgcn_workitem_id_x(); }

__global__ void k_reduce(float *out, const float *in, int n) {
  __shared__ float sm[64];
  int i = tid();
  float v = 0;
  for (int k = i; k < n; k += 256) v += in[k];
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v), 0x111, 0xf, 0xf, false));
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v), 0x112, 0xf, 0xf, false));
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v), 0x114, 0xf, 0xe, false));
  v += __builtin_bit_cast(float, __builtin_amdgcn_update_dpp(0, __builtin_bit_cast(int, v), 0x118, 0xf, 0xc, false));
  v += __builtin_bit_cast(float, __builtin_amdgcn_ds_swizzle(__builtin_bit_cast(int, v), 0x401f));
  v += __builtin_bit_cast(float, __builtin_amdgcn_permlanex16(0, __builtin_bit_cast(int, v), 0x76543210, 0xfedcba98, false, false));
  v += __builtin_bit_cast(float, __builtin_amdgcn_permlane16(0, __builtin_bit_cast(int, v), 0x01234567, 0x89abcdef, true, false));
  if ((i & 31) == 31) sm[i >> 5] = v;
  __builtin_amdgcn_s_barrier();
  if (i == 0) { float s = 0; for (int k = 0; k < 8; ++k) s += sm[k]; out[__builtin_amdgcn_workgroup_id_x()] = s; }
}
__global__ void k_mixed(half2 *a, const half2 *b, float *f, short2 *s, int n) {
  int i = tid();
  half2 x = b[i];
  half2 y = b[i + n];
  float acc = f[i];
#ifndef __gfx1250__
  acc = __builtin_amdgcn_fdot2(x, y, acc, false);
#endif
  s[i] = s[i] + s[i + 1];
  a[i] = __builtin_elementwise_max(x, y) * (half2){(half)0.5f, (half)2.0f} + __builtin_elementwise_fma(x, y, x);
  f[i] = acc + (float)x[0] * (float)y[1] + __builtin_amdgcn_rcpf(acc) + __builtin_amdgcn_fractf(acc);
}
__global__ void k_i64(unsigned long *a, const unsigned long *b, long s) {
  int i = tid();
  unsigned long x = b[i];
  a[i] = x / (unsigned long)(s | 1) + x % 17 + (x << (i & 63)) + __builtin_popcountll(x) + __builtin_ctzll(x | 1);
  a[i + 1] = (long)b[i + 1] >> 7;
}
__global__ void k_atomics(float *f, double *d, unsigned *u, int *lds_out) {
  __shared__ int l[128];
  int i = tid();
  l[i & 127] = i;
  __builtin_amdgcn_s_barrier();
  __hip_atomic_fetch_add(f, 2.0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(f + 1, (float)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(d, 1.0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_fetch_min(u, (unsigned)i, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_xor(u + 1, (unsigned)i, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_exchange(u + 2, (unsigned)i, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
  __atomic_fetch_add(&l[(i * 3) & 127], 1, __ATOMIC_RELAXED);
  __atomic_fetch_max(&l[(i * 5) & 127], i, __ATOMIC_RELAXED);
  lds_out[i] = __atomic_exchange_n(&l[(i * 7) & 127], i, __ATOMIC_RELAXED) + l[(i + 64) & 127] + l[(i + 1) & 127];
}
__global__ void k_math(double *o, const double *in, float *of, int n) {
  int i = tid();
  double x = in[i];
  o[i] = __builtin_sqrt(x) / __builtin_fabs(x + 1.5) + __builtin_ldexp(x, n) + __builtin_trunc(x) + __builtin_copysign(x, -x);
  float y = (float)x;
  of[i] = __builtin_fmaxf(__builtin_fminf(y, 1.0f), -1.0f) + __builtin_amdgcn_rsqf(y) + __builtin_amdgcn_cosf(y)
        + __builtin_amdgcn_ldexpf(y, i) + __builtin_amdgcn_frexp_mantf(y) + (float)__builtin_amdgcn_frexp_expf(y)
        + __builtin_amdgcn_fmed3f(y, 0.25f, 4.0f) + (float)(unsigned char)(y * 255.0f);
}
__global__ void k_misc(unsigned *o, unsigned long long *t) {
  int i = tid();
  o[i] = __builtin_amdgcn_ubfe(o[i], 3, 7) + __builtin_amdgcn_sbfe(o[i + 1], 5, 9) + __builtin_amdgcn_alignbyte(o[i], o[i + 2], 2)
       + __builtin_amdgcn_mbcnt_lo(~0u, 0) + __builtin_amdgcn_lerp(o[i], o[i + 3], 1) + __builtin_amdgcn_msad_u8(o[i], 5, 6)
       + __builtin_amdgcn_readlane(o[i], 5) + __builtin_bitreverse32(o[i]) + __builtin_amdgcn_sad_u8(o[i], o[i+1], 3);
  t[i] = __builtin_readcyclecounter() + __builtin_amdgcn_s_getreg(0x1801);
  __builtin_amdgcn_s_sleep(3);
  __builtin_amdgcn_s_setprio(2);
#if !defined(__gfx1200__) && !defined(__gfx1201__) && !defined(__gfx1250__)
  __builtin_amdgcn_s_waitcnt(0);
#endif
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent");
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
