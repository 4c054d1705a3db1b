// Coverage probe: the HIP builtins and idioms kernels commonly use (half/bf16 and f64 math, conversions, bit ops,
// med3/frexp/ldexp, wave permutes and DPP, global and LDS atomics of every width, transcendentals and powf,
// 64-bit integer division, jump tables, function pointers, dynamic private indexing, clocks, packed dot products),
// compiled for every emulated target (gfx1250 too) by build.py; tests/emu/test_builtins.py checks that every
// instruction they compile to has semantics, that every kernel runs to its end, and the integer kernels' results.
// Header-free HIP (built with -nogpulib -nogpuinc, as corefiles/oracle).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define NOINLINE __attribute__((noinline))
typedef _Float16 half;
typedef half half2 __attribute__((ext_vector_type(2)));
typedef __fp16 fp16x2 __attribute__((ext_vector_type(2)));
typedef short short2 __attribute__((ext_vector_type(2)));
typedef __bf16 bf16;
typedef float float3 __attribute__((ext_vector_type(3)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef unsigned int u32;
typedef unsigned long long u64;
typedef long long i64;
__device__ static inline u32 tid() { return __builtin_amdgcn_workitem_id_x(); }

__global__ void k_fdot2(const half2 *a, const half2 *b, float *out) {
  u32 i = tid();
#if defined(__gfx1250__)  // no f16 dot product on GFX12.5 (no dot10-insts): the same sum, each step exact here
  out[i] = (float)a[i].x * (float)b[i].x + (float)a[i].y * (float)b[i].y + out[i];
#else
  out[i] = __builtin_amdgcn_fdot2(a[i], b[i], out[i], false);
#endif
}
__global__ void k_half_math(const half *a, const half *b, half *out) {
  u32 i = tid();
  half x = a[i], y = b[i];
  out[i] = x * y + (x > y ? x : y) - __builtin_fabsf16(x) / (y + (half)1.0f) + __builtin_sqrtf16(__builtin_fabsf16(y));
}
__global__ void k_half2_math(const half2 *a, const half2 *b, half2 *out) {
  u32 i = tid();
  half2 x = a[i], y = b[i];
  out[i] = x * y + x - y;
}
__global__ void k_bf16(const bf16 *a, float *out) {
  u32 i = tid();
  out[i] = (float)a[i] * 2.0f;
}
__global__ void k_bf16_store(const float *a, bf16 *out) {
  u32 i = tid();
  out[i] = (bf16)(a[i] + 1.0f);
}
__global__ void k_bits(const u32 *a, u32 *out) {
  u32 i = tid();
  u32 x = a[i];
  out[i] = __builtin_popcount(x) + __builtin_clz(x | 1) + __builtin_ctz(x | 0x80000000u) + __builtin_bitreverse32(x)
         + (u32)(((u64)x * 0x9E3779B9u) >> 32) + ((x >> 3) & 0x1f) + __builtin_amdgcn_ubfe(x, 4, 7) + __builtin_amdgcn_sbfe(x, 2, 9);
}
__global__ void k_med3(const float *a, float *out) {
  u32 i = tid();
  float x = a[i];
  out[i] = __builtin_fminf(__builtin_fmaxf(x, -1.0f), 1.0f) + __builtin_amdgcn_fmed3f(x, 0.5f, 2.0f)
         + __builtin_amdgcn_frexp_mantf(x) + __builtin_amdgcn_ldexpf(x, 3) + __builtin_amdgcn_fractf(x)
         + (float)__builtin_amdgcn_frexp_expf(x);
}
__global__ void k_f64(const double *a, double *out) {
  u32 i = tid();
  double x = a[i];
  out[i] = __builtin_sqrt(__builtin_fabs(x)) + 1.0 / (x + 3.0) + __builtin_fma(x, x, 1.0) + __builtin_floor(x) + __builtin_trunc(x)
         + __builtin_amdgcn_rcp(x) + __builtin_amdgcn_frexp_mant(x) + __builtin_amdgcn_ldexp(x, 2) + (double)(long long)x;
}
__global__ void k_conv(const float *a, int *o1, unsigned *o2, half *o3, double *o4, long long *o5) {
  u32 i = tid();
  float x = a[i];
  o1[i] = (int)x; o2[i] = (unsigned)x; o3[i] = (half)x; o4[i] = (double)x; o5[i] = (long long)x;
}
__global__ void k_wave(const int *a, int *out) {
  u32 i = tid();
  int x = a[i];
  int y = __builtin_amdgcn_ds_swizzle(x, 0x041f);
  int z = __builtin_amdgcn_mov_dpp(x, 0x111, 0xf, 0xf, false);
  int w = __builtin_amdgcn_update_dpp(0, x, 0x141, 0xf, 0xf, false);
  int r = __builtin_amdgcn_readlane(x, 3) + __builtin_amdgcn_readfirstlane(x);
  int p = __builtin_amdgcn_ds_bpermute((int)(i ^ 1) * 4, x) + __builtin_amdgcn_ds_permute((int)(i ^ 2) * 4, x);
  out[i] = y + z + w + r + p + (int)__builtin_amdgcn_mbcnt_lo(~0u, 0);
}
__global__ void k_atom(int *a, unsigned *u, float *f, u64 *q) {
  u32 i = tid();
  __hip_atomic_fetch_add(a, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(a + 1, (int)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(u, i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_and(u + 1, ~i, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_SYSTEM);
  __hip_atomic_fetch_or(u + 2, i, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_xor(u + 3, i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_exchange(u + 4, i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(f, 1.0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(q, (u64)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(q + 1, (u64)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(f + 1, (float)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(f + 2, (float)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  u32 exp = 0; __hip_atomic_compare_exchange_strong(u + 5, &exp, i, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
}
__global__ void k_lds_atom(int *out) {
  __shared__ int s[64];
  __shared__ float sf[4];
  u32 i = tid();
  if (i < 64) s[i] = 0;
  if (i < 4) sf[i] = 0;
  __builtin_amdgcn_s_barrier();
  __hip_atomic_fetch_add(&s[i % 64], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_max(&s[(i + 1) % 64], (int)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_add(&sf[i % 4], 0.5f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_exchange(&s[(i + 2) % 64], (int)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __builtin_amdgcn_s_barrier();
  out[i] = s[i % 64] + (int)sf[i % 4];
}
#if defined(__gfx90a__) || defined(__gfx942__)
__global__ void k_sdot(const u32 *a, const u32 *b, int *out) {
  u32 i = tid();
  out[i] = __builtin_amdgcn_sdot4((int)a[i], (int)b[i], out[i], false) + (int)__builtin_amdgcn_udot4(a[i], b[i], 0u, true);
}
#endif
__global__ void k_transc(const float *a, float *out) {
  u32 i = tid();
  float x = a[i];
  out[i] = __builtin_expf(x) + __builtin_logf(__builtin_fabsf(x) + 1.0f) + __builtin_sinf(x) + __builtin_cosf(x)
         + __builtin_amdgcn_rsqf(__builtin_fabsf(x) + 1.0f) + __builtin_amdgcn_rcpf(x + 2.0f) + __builtin_powf(__builtin_fabsf(x), 1.5f)
         + __builtin_exp2f(x) + __builtin_log2f(__builtin_fabsf(x) + 1.0f);
}
__global__ void k_i64(const long long *a, long long *out) {
  u32 i = tid();
  long long x = a[i];
  out[i] = x / 7 + x % 13 + (x >> 5) + (long long)((unsigned long long)x >> 3) + x * x + (x < 0 ? -x : x)
         + (long long)__builtin_popcountll((u64)x) + (long long)__builtin_clzll((u64)x | 1);
}
__global__ void k_sat(const int *a, short *o, unsigned char *o2, half *o3) {
  u32 i = tid();
  int x = a[i];
  o[i] = (short)(x > 32767 ? 32767 : x < -32768 ? -32768 : x);
  o2[i] = (unsigned char)(x > 255 ? 255 : x < 0 ? 0 : x);
  o3[i] = (half)(float)x;
}

__global__ void k_clock(u64 *out) {
  u32 i = tid();
  u64 t0 = __builtin_readcyclecounter();
#if defined(__gfx90a__) || defined(__gfx942__)
  t0 += __builtin_amdgcn_s_memtime();
#endif
  out[i] = t0 * 0 + i;
}
__global__ void k_realtime(u64 *out) {
  u32 i = tid();
  u64 t0 = __builtin_readsteadycounter();
  out[i] = t0 * 0 + i;
}
__global__ void k_private_dyn(const int *idx, int *out) {
  u32 i = tid();
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = k * (int)i;
  a[idx[i] & 15] += 7;
  out[i] = a[(idx[i] + 3) & 15];
}
__global__ void k_private_dyn8(const int *idx, float *out) {
  u32 i = tid();
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  out[i] = a[idx[i] & 7] * (float)i;
}
NOINLINE __device__ int f_a(int x) { return x * 3 + 1; }
NOINLINE __device__ int f_b(int x) { return x ^ 0x55; }
__global__ void k_fnptr(const int *sel, int *out) {
  u32 i = tid();
  int (*fp)(int) = (sel[i] & 1) ? f_a : f_b;
  out[i] = fp((int)i);
}
__global__ void k_switch(const int *sel, int *out) {
  u32 i = tid();
  int r;
  switch (sel[i] & 7) {
    case 0: r = 11; break; case 1: r = (int)i * 2; break; case 2: r = 5 - (int)i; break;
    case 3: r = 99; break; case 4: r = (int)i << 3; break; case 5: r = -1; break;
    case 6: r = (int)(i * i); break; default: r = 42;
  }
  out[i] = r;
}
__global__ void k_div(const int *a, const int *b, const unsigned *c, const unsigned *d, int *o, unsigned *o2,
                      i64 *o3, u64 *o4, const i64 *e, const u64 *f) {
  u32 i = tid();
  o[i] = a[i] / (b[i] | 1) + a[i] % (b[i] | 1);
  o2[i] = c[i] / (d[i] | 1) + c[i] % (d[i] | 1);
  o3[i] = e[i] / ((e[i] >> 3) | 1) + e[i] % 17;
  o4[i] = f[i] / ((f[i] >> 7) | 1) + f[i] % ((f[i] >> 40) | 3);
}
__global__ void k_lds_types(const int *in, int *out) {
  __shared__ unsigned char b[256];
  __shared__ unsigned short h[128];
  __shared__ float4 v4[64];
  __shared__ double dd[64];
  __shared__ u64 q[64];
  u32 i = tid();
  b[i] = (unsigned char)in[i]; h[i] = (unsigned short)(in[i] * 3);
  v4[i] = (float4){(float)i, 1.0f, 2.0f, (float)in[i]};
  dd[i] = (double)in[i] * 0.5; q[i] = (u64)in[i] << 33;
  __builtin_amdgcn_s_barrier();
  u64 expected = q[(i + 1) & 63];
  __hip_atomic_compare_exchange_strong(&q[(i + 1) & 63], &expected, expected + 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __builtin_amdgcn_s_barrier();
  float4 w = v4[(i + 5) & 63];
  out[i] = (int)b[(i + 1) & 255] + (int)(signed char)b[(i + 2) & 255] + (int)h[(i + 3) & 127] + (int)(short)h[(i + 4) & 127]
         + (int)(w.x + w.w) + (int)dd[(i + 7) & 63] + (int)(q[(i + 9) & 63] >> 33);
}
__global__ void k_vec3(const float3 *a, float3 *out) {
  u32 i = tid();
  float3 x = a[i];
  out[i] = x * 2.0f + (float3){1.0f, 2.0f, 3.0f};
}
__global__ void k_ntload(const float *a, float *out) {
  u32 i = tid();
  float x = __builtin_nontemporal_load(&a[i]);
  __builtin_nontemporal_store(x * 2.0f, &out[i]);
}
__global__ void k_f16_transc(const half *a, half *out) {
  u32 i = tid();
  half x = a[i];
  out[i] = __builtin_sqrtf16(x) + (half)1.0f / x + __builtin_expf16(x) + __builtin_logf16(x) + __builtin_sinf16(x) + __builtin_floorf16(x) + __builtin_ceilf16(x) + __builtin_truncf16(x) + __builtin_rintf16(x);
}
__global__ void k_conv2(const float *a, int *o1, fp16x2 *o2, float *o3) {
  u32 i = tid();
  float x = a[i];
  o1[i] = (int)__builtin_floorf(x) + (int)__builtin_rintf(x) + (int)__builtin_roundf(x) + (int)__builtin_ceilf(x);
  o2[i] = __builtin_amdgcn_cvt_pkrtz(x, x * 2.0f);
  o3[i] = __builtin_copysignf(x, -1.0f) + __builtin_fmodf(x, 3.0f);
}
__global__ void k_intbits(const u32 *a, u32 *out) {
  u32 i = tid();
  u32 x = a[i];
  out[i] = __builtin_amdgcn_alignbit(x, x >> 3, 7) + __builtin_amdgcn_alignbyte(x, ~x, 2) + __builtin_amdgcn_perm(x, ~x, 0x05040100)
         + __builtin_amdgcn_lerp(x, ~x, i) + __builtin_amdgcn_sad_u8(x, ~x, 5) + __builtin_amdgcn_msad_u8(x, ~x, 5)
         + (u32)__builtin_amdgcn_sad_hi_u8(x, ~x, 5) + __builtin_amdgcn_sad_u16(x, ~x, 3);
}
__global__ void k_scalar(const u32 *a, u32 *out, u32 s, u64 s2) {
  u32 i = tid();
  u32 t = (s * 7) / 5 + (s >> (s & 7)) + __builtin_popcount(s) + __builtin_clz(s | 1) + (u32)(((u64)s * s) >> 32)
        + (s & 0xff00 ? 3u : 9u) + (u32)__builtin_popcountll(s2) + (u32)(s2 / 3) + (u32)(s2 % 1000);
  out[i] = a[i] + t;
}
__global__ void k_permlane(const int *a, int *out) {
  u32 i = tid();
  int x = a[i];
#if defined(__gfx1100__) || defined(__gfx1200__)
  x += __builtin_amdgcn_permlane16(x, x, 0x76543210, 0xfedcba98, false, false);
  x += __builtin_amdgcn_permlanex16(x, x, 0x01234567, 0x89abcdef, false, false);
#endif
  out[i] = x + __builtin_amdgcn_ds_bpermute(((int)i + 1) * 4, x);
}
__global__ void k_wave_reduce(const u32 *a, u32 *out) {
  u32 i = tid();
  out[i] = a[i];
}
__global__ void k_fatomic_global(float *f, double *d) {
  u32 i = tid();
  __hip_atomic_fetch_add(f, 1.0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(d, 1.0, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(d + 1, (double)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(d + 2, (double)i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__global__ void k_sleep_prio(int *out) {
  u32 i = tid();
  __builtin_amdgcn_s_setprio(2);
  __builtin_amdgcn_s_sleep(3);
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_s_setprio(0);
  out[i] = (int)i;
}
