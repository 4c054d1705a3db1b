// Differential-oracle kernels: real computations whose outputs corefiles/oracle/twins.py recomputes on the host.
// Header-free HIP (built with -nogpulib -nogpuinc by build.py): only clang builtins, no runtime headers.
// Every kernel takes its input buffers first, then its output buffers (then scalars), and writes results only.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define NOINLINE __attribute__((noinline))
#define ALWAYS_INLINE __attribute__((always_inline))

typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;

__device__ static inline u32 tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline u32 tid_y() { return __builtin_amdgcn_workitem_id_y(); }
__device__ static inline u32 gid_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline u32 gid_y() { return __builtin_amdgcn_workgroup_id_y(); }
__device__ static inline void barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#define BLOCK 64

// LDS tree reduction (sum, max) and Hillis-Steele inclusive scan over one workgroup of BLOCK work-items.
extern "C" __global__ void lds_reduce_scan(const u32 *in, u32 *scan, u32 *sums) {
  __shared__ u32 red[BLOCK];
  __shared__ u32 mx[BLOCK];
  __shared__ u32 buf[2][BLOCK];
  u32 t = tid_x();
  u32 g = gid_x() * BLOCK + t;
  u32 v = in[g];
  red[t] = v;
  mx[t] = v;
  buf[0][t] = v;
  barrier();
  for (u32 s = BLOCK / 2; s > 0; s >>= 1) {
    if (t < s) {
      red[t] += red[t + s];
      mx[t] = mx[t] > mx[t + s] ? mx[t] : mx[t + s];
    }
    barrier();
  }
  u32 src = 0;
  for (u32 off = 1; off < BLOCK; off <<= 1) {
    u32 x = buf[src][t];
    if (t >= off) x += buf[src][t - off];
    buf[src ^ 1][t] = x;
    src ^= 1;
    barrier();
  }
  scan[g] = buf[src][t];
  if (t == 0) {
    sums[2 * gid_x()] = red[0];
    sums[2 * gid_x() + 1] = mx[0];
  }
}

// Bitonic sorting network over BLOCK signed keys per workgroup, in LDS.
extern "C" __global__ void bitonic_sort(const i32 *in, i32 *out) {
  __shared__ i32 keys[BLOCK];
  u32 t = tid_x();
  u32 base = gid_x() * BLOCK;
  keys[t] = in[base + t];
  barrier();
  for (u32 k = 2; k <= BLOCK; k <<= 1) {
    for (u32 j = k >> 1; j > 0; j >>= 1) {
      u32 p = t ^ j;
      if (p > t) {
        i32 a = keys[t], b = keys[p];
        bool up = (t & k) == 0;
        if ((a > b) == up) {
          keys[t] = b;
          keys[p] = a;
        }
      }
      barrier();
    }
  }
  out[base + t] = keys[t];
}

// Histograms with scoped atomics: 16 bins in LDS (workgroup scope), merged into global bins (agent scope);
// fetch-and-add results, 64-bit atomics and a compare-and-swap loop, all with order-independent totals.
extern "C" __global__ void histogram(const u32 *in, u32 *bins, u32 *lds_bins, u32 *stats, u64 *stats64,
                                     u32 *lds_stats) {
  __shared__ u32 h[16];
  __shared__ u32 ticket;
  __shared__ u32 lcas, land, lor;
  __shared__ i32 lmin, lmax;
  __shared__ u64 l64;
  u32 t = tid_x();
  u32 g = gid_x() * BLOCK + t;
  if (t < 16) h[t] = 0;
  if (t == 0) {
    ticket = 0;
    lcas = 0;
    land = ~0u;
    lor = 0;
    lmin = 0x7FFFFFFF;
    lmax = -0x7FFFFFFF - 1;
    l64 = 0;
  }
  barrier();
  u32 v = in[g];
  __hip_atomic_fetch_add(&h[v & 15], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  u32 mine = __hip_atomic_fetch_add(&ticket, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_max(&stats[3], mine, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(&stats[4], mine, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  // LDS atomics of every kind the compiler emits: compare-and-swap loop, 64-bit add, signed min/max, and/or
  u32 lc = __hip_atomic_load(&lcas, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  while ((t & 7) == 0 && !__hip_atomic_compare_exchange_strong(&lcas, &lc, lc + v % 5 + 1, __ATOMIC_RELAXED,
                                                                __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP)) {
  }
  __hip_atomic_fetch_add(&l64, (u64)v << 24, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_min(&lmin, (i32)v - 300000, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_max(&lmax, (i32)v - 300000, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_and(&land, v | 0xFFF00000u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_or(&lor, v << 8, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  barrier();
  if (t == 0) {
    u32 *ls = lds_stats + 8 * gid_x();
    ls[0] = lcas;
    ls[1] = (u32)l64;
    ls[2] = (u32)(l64 >> 32);
    ls[3] = (u32)lmin;
    ls[4] = (u32)lmax;
    ls[5] = land;
    ls[6] = lor;
  }
  if (t < 16) {
    lds_bins[gid_x() * 16 + t] = h[t];
    __hip_atomic_fetch_add(&bins[t], h[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
  u32 old = __hip_atomic_fetch_add(&stats[0], v, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_xor(&stats[1], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(&stats[2], v, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  // the old value each lane gets back depends on the order the lanes were served in; that every one of them is
  // below the final total does not
  if (old > 0xFFFFFFF0u) stats[5] = 1;
  __hip_atomic_fetch_add(&stats64[0], (u64)v << 20, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_or(&stats64[1], 1ull << (v & 63), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(&stats64[2], (u64)v << 33, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min((i64 *)&stats64[3], ((i64)v - 500000) * 1000003, __ATOMIC_RELAXED,
                        __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_sub(&stats[7], v & 0xFF, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  // compare-and-swap loop: stats[6] accumulates (v % 7 + 1) over every 8th work-item
  u32 cur = __hip_atomic_load(&stats[6], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while ((t & 7) == 0 && !__hip_atomic_compare_exchange_strong(&stats[6], &cur, cur + v % 7 + 1, __ATOMIC_RELAXED,
                                                                __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
  }
}

// Tiled transpose of a W x H matrix on a 2-D grid (8 x 8 tiles, padded LDS rows).
#define TILE 8
extern "C" __global__ void transpose(const u32 *in, u32 *out, int width, int height) {
  __shared__ u32 tile[TILE][TILE + 1];
  u32 x = gid_x() * TILE + tid_x();
  u32 y = gid_y() * TILE + tid_y();
  if (x < (u32)width && y < (u32)height) tile[tid_y()][tid_x()] = in[y * width + x] * 3u + 1u;
  barrier();
  u32 tx = gid_y() * TILE + tid_x();
  u32 ty = gid_x() * TILE + tid_y();
  if (tx < (u32)height && ty < (u32)width) out[ty * height + tx] = tile[tid_x()][tid_y()];
}

// Call chains, recursion and scratch: non-inlined functions, a doubly recursive function (not a loop), a
// local array indexed by data.
__device__ NOINLINE int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
__device__ NOINLINE int ackermann_small(int m, int n) {
  if (m == 0) return n + 1;
  if (n == 0) return ackermann_small(m - 1, 1);
  return ackermann_small(m - 1, ackermann_small(m, n - 1));
}
__device__ NOINLINE int fill_and_pick(int *arr, int n, int seed, int pick) {
  for (int i = 0; i < n; i++) arr[i] = seed * (i + 1) ^ (i << 3);
  return arr[pick % n];
}
__device__ NOINLINE int chain3(int x) { return x * 7 - 3; }
__device__ NOINLINE int chain2(int x) { return chain3(x + 1) ^ 0x55; }
__device__ NOINLINE int chain1(int x) { return chain2(x * 2) + chain3(x); }

extern "C" __global__ void calls(const i32 *in, i32 *out) {
  u32 g = gid_x() * 64 + tid_x();
  int v = in[g];
  int local[16];
  int picked = fill_and_pick(local, 16, v, v >> 4);
  int sum = 0;
  for (int i = 0; i < 16; i++) sum += local[(i * 5 + v) & 15];
  out[4 * g + 0] = fib(v & 6);
  out[4 * g + 1] = ackermann_small(1 + (v & 1), v & 2);
  out[4 * g + 2] = picked + sum;
  out[4 * g + 3] = chain1(v);
}

// 32- and 64-bit integer division and remainder, signed and unsigned.
__device__ static inline ALWAYS_INLINE void intdiv_body(i32 x, i32 y, i64 x64, i64 y64, i32 *o32, i64 *o64) {
  o32[0] = x / y;
  o32[1] = x % y;
  o32[2] = (i32)((u32)x / (u32)y);
  o32[3] = (i32)((u32)x % (u32)y);
  o64[0] = x64 / y64;
  o64[1] = x64 % y64;
  o64[2] = (i64)((u64)x64 / (u64)y64);
  o64[3] = (i64)((u64)x64 % (u64)y64);
}

extern "C" __global__ void intdiv(const i32 *a, const i32 *b, const i64 *a64, const i64 *b64, i32 *out32,
                                  i64 *out64) {
  u32 g = gid_x() * 64 + tid_x();
  intdiv_body(a[g], b[g], a64[g], b64[g], out32 + 4 * g, out64 + 4 * g);
}

// The same with operands uniform across the workgroup (indexed by the workgroup id): scalar ALU code.
extern "C" __global__ void intdiv_uniform(const i32 *a, const i32 *b, const i64 *a64, const i64 *b64, i32 *out32,
                                          i64 *out64) {
  u32 g = gid_x();
  if (tid_x() == 0) intdiv_body(a[g], b[g], a64[g], b64[g], out32 + 4 * g, out64 + 4 * g);
}

// Bit operations: popcount, clz/ctz, bit reverse, funnel shifts, byte permutes, bitfield extract/insert,
// 64-bit shifts, mul_hi, 24-bit multiplies, 64-bit multiply-add.
#define NBIT 25
__device__ static inline ALWAYS_INLINE void bitops_body(u32 x, u32 y, u32 *o) {
  u32 s = y & 31;
  u64 x64 = ((u64)x << 32) | (x ^ y);
  o[0] = __builtin_popcount(x);
  o[1] = x ? __builtin_clz(x) : 32;
  o[2] = x ? __builtin_ctz(x) : 32;
  o[3] = __builtin_bitreverse32(x);
  o[4] = __builtin_amdgcn_alignbit(x, y, s);
  o[5] = s ? (x << s) | (y >> (32 - s)) : x;
  o[6] = __builtin_amdgcn_perm(x, y, 0x05010400u + (y & 0x03030303u));
  o[7] = __builtin_amdgcn_ubfe(x, y & 15, (y >> 8) & 15);
  o[8] = (u32)__builtin_amdgcn_sbfe((int)x, y & 15, (y >> 8) & 15);
  o[9] = (x & ~0x00FF00F0u) | (y & 0x00FF00F0u);
  o[10] = (u32)(((u64)x * y) >> 32);
  o[11] = (u32)(((i64)(i32)x * (i32)y) >> 32);
  o[12] = (x & 0xFFFFFFu) * (y & 0xFFFFFFu);
  o[13] = (u32)((i32)(x << 8) >> 8) * (u32)((i32)(y << 8) >> 8);
  u64 sh = x64 << (y & 63);
  o[14] = (u32)sh;
  o[15] = (u32)(sh >> 32);
  u64 shr = x64 >> ((y >> 6) & 63);
  o[16] = (u32)shr ^ (u32)(shr >> 32);
  i64 sar = (i64)x64 >> ((y >> 12) & 63);
  o[17] = (u32)sar ^ (u32)(sar >> 32);
  u64 mad = (u64)x * y + x64;
  o[18] = (u32)mad;
  o[19] = (u32)(mad >> 32);
  o[20] = (u32)__builtin_popcountll(x64 * 0x9E3779B97F4A7C15ull);
  u64 q = x64 >> (y & 31);
  o[21] = q ? (u32)__builtin_clzll(q) : 64;
  u64 rot = (x64 << (s + 1)) | (x64 >> (63 - s));
  o[22] = (u32)rot + (u32)(rot >> 32);
  o[23] = (x > y ? x - y : y - x) + (((i32)x < (i32)y) ? 1u : 0u);
  o[24] = (x & (1u << (y & 31))) ? 0xAAAAu : 0x5555u;  // a single-bit test (s_bitcmp1_b32 in scalar code)
}

extern "C" __global__ void bitops(const u32 *a, const u32 *b, u32 *out) {
  u32 g = gid_x() * 64 + tid_x();
  bitops_body(a[g], b[g], out + NBIT * g);
}

extern "C" __global__ void bitops_uniform(const u32 *a, const u32 *b, u32 *out) {
  u32 g = gid_x();
  if (tid_x() == 0) bitops_body(a[g], b[g], out + NBIT * g);
}

// 64-bit integer arithmetic and comparisons in a data-dependent loop (carry chains, 64-bit compares).
__device__ static inline ALWAYS_INLINE void int64_body(u64 x, u64 y, u64 *o) {
  u64 acc = 0x0123456789ABCDEFull;
  for (u32 i = 0; i < (u32)(x & 7) + 1; i++) {
    acc = acc * 6364136223846793005ull + y;
    acc ^= acc >> 29;
    acc -= x << (i & 15);
  }
  o[0] = acc;
  o[1] = x + y;
  o[2] = x - y;
  o[3] = (i64)x < (i64)y ? (u64)(i64)x : y;
  o[4] = x > y ? x : y;
  o[5] = (u64)((i64)x >> 3) * 3u + (x == y);
}

extern "C" __global__ void int64_ops(const u64 *a, const u64 *b, u64 *out) {
  u32 g = gid_x() * 64 + tid_x();
  int64_body(a[g], b[g], out + 6 * g);
}

extern "C" __global__ void int64_uniform(const u64 *a, const u64 *b, u64 *out) {
  u32 g = gid_x();
  if (tid_x() == 0) int64_body(a[g], b[g], out + 6 * g);
}

// f32 math: + - * / sqrt fma min max, conversions, rounding.
#define NF32 20
extern "C" __global__ void fmath32(const float *a, const float *b, float *out, i32 *iout) {
  u32 g = gid_x() * 64 + tid_x();
  float x = a[g], y = b[g];
  float *o = out + NF32 * g;
  o[0] = x + y;
  o[1] = x - y;
  o[2] = x * y;
  o[3] = x / y;
  o[4] = __builtin_sqrtf(__builtin_fabsf(x));
  o[5] = __builtin_fmaf(x, y, 1.5f);
  o[6] = __builtin_fminf(x, y);
  o[7] = __builtin_fmaxf(x, y);
  o[8] = __builtin_floorf(x);
  o[9] = __builtin_ceilf(x);
  o[10] = __builtin_truncf(x);
  o[11] = __builtin_rintf(x);
  o[12] = __builtin_roundf(y);
  o[13] = (float)(i32)(x * 100.0f);
  o[14] = (float)(u32)__builtin_fabsf(y * 1000.0f);
  o[15] = (x * y - x) / (y + 3.25f);
  o[16] = __builtin_fabsf(x) * -2.0f;
  o[17] = __builtin_copysignf(y, x);
  o[18] = (float)(double)x * 0.1f;
  o[19] = (float)((i64)(x * 1.0e6f));
  iout[2 * g + 0] = (i32)(y * 77.0f);
  iout[2 * g + 1] = (i32)(u32)__builtin_fabsf(x * 4096.0f);
}

// f64 math.
#define NF64 14
extern "C" __global__ void fmath64(const double *a, const double *b, double *out, i64 *iout) {
  u32 g = gid_x() * 64 + tid_x();
  double x = a[g], y = b[g];
  double *o = out + NF64 * g;
  o[0] = x + y;
  o[1] = x - y;
  o[2] = x * y;
  o[3] = x / y;
  o[4] = __builtin_sqrt(__builtin_fabs(x));
  o[5] = __builtin_fma(x, y, -0.75);
  o[6] = __builtin_fmin(x, y);
  o[7] = __builtin_fmax(x, y);
  o[8] = __builtin_floor(x);
  o[9] = __builtin_ceil(x);
  o[10] = __builtin_trunc(x);
  o[11] = __builtin_rint(y);
  o[12] = (double)(i32)(x * 1000.0);
  o[13] = (double)(float)y;
  iout[2 * g + 0] = (i64)(x * 1.0e9);
  iout[2 * g + 1] = (i64)(u64)__builtin_fabs(y * 1.0e12);
}

// f16 math: _Float16 arithmetic and conversions.
#define NF16 10
extern "C" __global__ void fmath16(const _Float16 *a, const _Float16 *b, _Float16 *out, float *fout) {
  u32 g = gid_x() * 64 + tid_x();
  _Float16 x = a[g], y = b[g];
  _Float16 *o = out + NF16 * g;
  o[0] = x + y;
  o[1] = x - y;
  o[2] = x * y;
  o[3] = __builtin_fmaf16(x, y, (_Float16)0.5f);
  o[4] = x < y ? x : y;
  o[5] = x > y ? x : y;
  o[6] = (_Float16)(i32)(x * (_Float16)4.0f);
  o[7] = (_Float16)((float)x * 0.3f);
  o[8] = -x;
  o[9] = (_Float16)(u32)(g * 3u);
  fout[2 * g + 0] = (float)x * (float)y;
  fout[2 * g + 1] = (float)(x + y);
}

// Wave intrinsics: ballot, readfirstlane, readlane, ds_bpermute/ds_permute/ds_swizzle, DPP moves, mbcnt.
#define NWAVE 8
extern "C" __global__ void wave_ops(const u32 *in, u32 *out, u64 *masks) {
  u32 t = tid_x();
  u32 g = gid_x() * 64 + t;
  u32 v = in[g];
  u32 ws = __builtin_amdgcn_wavefrontsize();
  u32 lane = __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#if ORACLE_WAVE == 32  // build.py defines the wave size: ballot_w32 only compiles for wave32 code
  u64 ball = __builtin_amdgcn_ballot_w32((v & 3) == 1);
#else
  u64 ball = __builtin_amdgcn_ballot_w64((v & 3) == 1);
#endif
  u32 first = __builtin_amdgcn_readfirstlane(v);
  u32 l5 = __builtin_amdgcn_readlane(v, 5);
  u32 rot = (u32)__builtin_amdgcn_ds_bpermute((int)(((lane + 1) % ws) * 4), (int)v);
  u32 dpp = (u32)__builtin_amdgcn_mov_dpp((int)v, 0x111, 0xF, 0xF, true);        // row_shr:1, bound_ctrl
  u32 upd = (u32)__builtin_amdgcn_update_dpp((int)0x77, (int)v, 0x101, 0xF, 0xF, false);  // row_shl:1
  u32 push = (u32)__builtin_amdgcn_ds_permute((int)(((lane + 1) % ws) * 4), (int)v);  // lane l+1 gets v[l]
  u32 swz = (u32)__builtin_amdgcn_ds_swizzle((int)v, 0x041F);                        // bitmask mode: lane ^ 1
  u32 *o = out + NWAVE * g;
  o[6] = push;
  o[7] = swz;
  o[0] = lane;
  o[1] = first;
  o[2] = l5;
  o[3] = rot;
  o[4] = dpp;
  o[5] = upd;
  if (lane == 0) masks[g / ws] = ball;
}

// Narrow and wide memory accesses: 8/16-bit signed and unsigned loads and stores (global and LDS), 128-bit
// structure copies (dwordx4 / ds b128).
struct __attribute__((aligned(16))) V4 {
  u32 x, y, z, w;
};
extern "C" __global__ void narrow_mem(const unsigned char *b8, const short *s16, const V4 *v4, unsigned char *o8,
                                      short *o16, V4 *ov4, i32 *o32) {
  __shared__ unsigned char lb[64];
  __shared__ short ls[64];
  __shared__ V4 lv[64];
  u32 t = tid_x();
  u32 g = gid_x() * 64 + t;
  unsigned char c = b8[g];
  signed char sc = (signed char)b8[g ^ 1];
  short h = s16[g];
  unsigned short uh = (unsigned short)s16[g ^ 3];
  V4 q = v4[g];
  lb[t] = (unsigned char)(c + 1);
  ls[t] = (short)(h * 3);
  lv[t] = q;
  barrier();
  unsigned char c2 = lb[(t + 5) & 63];
  signed char sc2 = (signed char)lb[(t + 17) & 63];
  short h2 = ls[(t + 9) & 63];
  unsigned short uh2 = (unsigned short)ls[(t + 33) & 63];
  V4 q2 = lv[63 - t];
  o8[g] = (unsigned char)(c2 ^ (unsigned char)sc);
  o16[g] = (short)(h2 + (short)uh);
  V4 r = {q2.x + (u32)(i32)sc, q2.y ^ (u32)(i32)h, q2.z - c, q2.w * 3u};
  ov4[g] = r;
  o32[4 * g + 0] = sc2;
  o32[4 * g + 1] = h2;
  o32[4 * g + 2] = uh2;
  o32[4 * g + 3] = (i32)c2 - (i32)sc;
}

// Wrapping increment/decrement atomics and exchange (global at agent scope, LDS at workgroup scope).
extern "C" __global__ void atomics_misc(u32 *c, u32 *lds_out) {
  __shared__ u32 li, ld, lx, lfirst;
  u32 t = tid_x();
  if (t == 0) {
    li = 0;
    ld = 0;
    lx = 5;
    lfirst = 0;
  }
  barrier();
  __builtin_amdgcn_atomic_inc32(&c[0], 50u, __ATOMIC_RELAXED, "agent");
  __builtin_amdgcn_atomic_dec32(&c[1], 40u, __ATOMIC_RELAXED, "agent");
  u32 old = __hip_atomic_exchange(&c[2], 0xABCDu, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(&c[3], old == 0x1234u ? 1u : 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __builtin_amdgcn_atomic_inc32(&li, 20u, __ATOMIC_RELAXED, "workgroup");
  __builtin_amdgcn_atomic_dec32(&ld, 30u, __ATOMIC_RELAXED, "workgroup");
  u32 lold = __hip_atomic_exchange(&lx, 9u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_add(&lfirst, lold == 5u ? 1u : 0u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  barrier();
  if (t == 0) {
    u32 *o = lds_out + 4 * gid_x();
    o[0] = li;
    o[1] = ld;
    o[2] = lx;
    o[3] = lfirst;
  }
}

// Address arithmetic: negative and large immediate offsets on global, LDS (a 40 KiB array) and private memory.
#define BIG 10240
extern "C" __global__ void offsets(const i32 *in, i32 *out, u64 *out64) {
  __shared__ i32 big[BIG];
  u32 t = tid_x();
  u32 g = gid_x() * 64 + t;
  const i32 *p = in + 64 + g;  // in[] has 64 guard elements on each side of the 64 * groups used ones
  i32 s = p[-64] + p[-17] * 3 + p[-1] * 5 + p[0] * 7 + p[1] * 11 + p[63] * 13;
  for (u32 i = t; i < BIG; i += 64) big[i] = (i32)(i * 7u) ^ s;
  barrier();
  i32 l = big[BIG - 1 - t] + big[t + 8192] - big[(t * 37u) % BIG];
  i32 priv[12];
  for (int i = 0; i < 12; i++) priv[i] = p[i - 6] + i;
  i32 pv = priv[(u32)s % 12u] - priv[11 - (t % 12u)];
  out[3 * g + 0] = s;
  out[3 * g + 1] = l;
  out[3 * g + 2] = pv;
  // a 64-bit compare-and-swap loop on every 8th work-item (adding: the total does not depend on the order)
  if ((t & 7) == 0) {
    u64 cur = __hip_atomic_load(&out64[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    while (!__hip_atomic_compare_exchange_strong(&out64[0], &cur, cur + (u64)(u32)s * 0x100000001ull, __ATOMIC_RELAXED,
                                                 __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT)) {
    }
  }
}
