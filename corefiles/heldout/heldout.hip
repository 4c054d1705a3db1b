// Held-out proxy corpus: kernels of the kind HPC/ML code really contains, written apart from the emulator and from
// corefiles/oracle/oracle.hip; corefiles/heldout/twins.py recomputes their outputs on the host.
// Header-free HIP (built with -nogpulib -nogpuinc by build.py): the HIP runtime helpers that normally come from
// hip_runtime.h (__shfl_*, __ballot, __syncthreads_count, atomicAdd on float, ...) are written out here the way
// the HIP headers define them (ds_bpermute shuffles, LDS-atomic block votes, compare-and-swap float atomics).
// Transcendentals use clang's builtins (__builtin_expf, __builtin_logf, __builtin_sinf, ...), which the AMDGPU
// backend expands itself (v_exp_f32 / v_log_f32 / v_sin_f32 with range reduction): the device libraries are not
// linked (toolchain.md: the Debian ones do not cover gfx942/gfx11/gfx12 or clang-22).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define NOINLINE __attribute__((noinline))

typedef unsigned char u8;
typedef signed char i8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
typedef _Float16 half;
typedef half half2 __attribute__((ext_vector_type(2)));
typedef half half4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef unsigned uint4 __attribute__((ext_vector_type(4)));

#ifndef HELDOUT_WAVE
#error "build.py defines HELDOUT_WAVE (32 or 64)"
#endif

__device__ static inline u32 tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline u32 tid_y() { return __builtin_amdgcn_workitem_id_y(); }
__device__ static inline u32 gid_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline u32 gid_y() { return __builtin_amdgcn_workgroup_id_y(); }
__device__ static inline u32 ndim_x() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ static inline u32 ngroups_x() { return __builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x(); }
__device__ static inline void syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ static inline u32 lane_id() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
__device__ static inline u32 wave_size() { return __builtin_amdgcn_wavefrontsize(); }

// hip_runtime's shuffles (amd_warp_functions.h): ds_bpermute with the same out-of-segment rules.
__device__ static inline int shfl_xor(int var, int mask, int width = HELDOUT_WAVE) {
  int self = (int)lane_id();
  int index = self ^ mask;
  index = index >= ((self + width) & ~(width - 1)) ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ static inline int shfl_down(int var, u32 delta, int width = HELDOUT_WAVE) {
  int self = (int)lane_id();
  int index = self + (int)delta;
  index = (int)((self & (width - 1)) + delta) >= width ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ static inline int shfl_up(int var, u32 delta, int width = HELDOUT_WAVE) {
  int self = (int)lane_id();
  int index = self - (int)delta;
  index = (index < (self & ~(width - 1))) ? self : index;
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ static inline float shfl_xor_f(float v, int mask, int width = HELDOUT_WAVE) {
  return __builtin_bit_cast(float, shfl_xor(__builtin_bit_cast(int, v), mask, width));
}
__device__ static inline float shfl_down_f(float v, u32 d, int width = HELDOUT_WAVE) {
  return __builtin_bit_cast(float, shfl_down(__builtin_bit_cast(int, v), d, width));
}
__device__ static inline u64 ballot(bool p) {
#if HELDOUT_WAVE == 32
  return __builtin_amdgcn_ballot_w32(p);
#else
  return __builtin_amdgcn_ballot_w64(p);
#endif
}

// 1. Softmax over rows of 64 (one workgroup a row): LDS max and sum trees, expf, logsumexp.
extern "C" __global__ void softmax_rows(const float *x, float *y, float *lse) {
  __shared__ float red[64];
  u32 t = tid_x(), row = gid_x();
  float v = x[row * 64 + t];
  red[t] = v;
  syncthreads();
  for (u32 s = 32; s > 0; s >>= 1) {
    if (t < s) red[t] = __builtin_fmaxf(red[t], red[t + s]);
    syncthreads();
  }
  float m = red[0];
  syncthreads();
  float e = __builtin_expf(v - m);
  red[t] = e;
  syncthreads();
  for (u32 s = 32; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    syncthreads();
  }
  float sum = red[0];
  y[row * 64 + t] = e / sum;
  if (t == 0) lse[row] = __builtin_logf(sum) + m;
}

// 2. LayerNorm over rows of 64: butterfly (shfl_xor) sums within a wave, wave partials through LDS,
// 1/sqrtf (correctly rounded sequences), affine gamma/beta.
extern "C" __global__ void layernorm_rows(const float *x, const float *gamma, const float *beta, float *y,
                                          float *stats) {
  __shared__ float part[2][64 / 32];
  u32 t = tid_x(), row = gid_x();
  u32 w = t / wave_size(), nw = 64 / wave_size();
  float v = x[row * 64 + t];
  float s = v;
  for (int m = 1; m < HELDOUT_WAVE; m <<= 1) s += shfl_xor_f(s, m);
  if (lane_id() == 0) part[0][w] = s;
  syncthreads();
  float tot = 0.0f;
  for (u32 i = 0; i < nw; i++) tot += part[0][i];
  float mean = tot / 64.0f;
  float d = v - mean;
  float q = d * d;
  for (int m = 1; m < HELDOUT_WAVE; m <<= 1) q += shfl_xor_f(q, m);
  if (lane_id() == 0) part[1][w] = q;
  syncthreads();
  float var = 0.0f;
  for (u32 i = 0; i < nw; i++) var += part[1][i];
  var = var / 64.0f;
  float rstd = 1.0f / __builtin_sqrtf(var + 1e-5f);
  y[row * 64 + t] = d * rstd * gamma[t] + beta[t];
  if (t == 0) {
    stats[2 * row] = mean;
    stats[2 * row + 1] = rstd;
  }
}

// 3. Wave reductions and scans with shuffles: shfl_down sum (lane 0 holds the wave total, other lanes partial
// sums), shfl_up inclusive scan, shfl_xor max.
extern "C" __global__ void wave_reduce_scan(const u32 *in, u32 *out) {
  u32 g = gid_x() * 64 + tid_x();
  u32 v = in[g];
  u32 lane = lane_id();
  u32 s = v;
  for (u32 d = HELDOUT_WAVE / 2; d > 0; d >>= 1) s += (u32)shfl_down((int)s, d);
  u32 sc = v;
  for (u32 d = 1; d < HELDOUT_WAVE; d <<= 1) {
    u32 o = (u32)shfl_up((int)sc, d);
    if (lane >= d) sc += o;
  }
  u32 mx = v;
  for (int m = 1; m < HELDOUT_WAVE; m <<= 1) {
    u32 o = (u32)shfl_xor((int)mx, m);
    mx = o > mx ? o : mx;
  }
  out[3 * g] = s;
  out[3 * g + 1] = sc;
  out[3 * g + 2] = mx;
}

// 4. Stream compaction with ballot/popcount/mbcnt ranks, wave offsets through LDS (deterministic order), plus
// ffsll/clzll/popcll of the ballot.
extern "C" __global__ void ballot_compact(const u32 *in, u32 *out, u32 *counts, u32 *info) {
  __shared__ u32 wcnt[128 / 32];
  u32 t = tid_x();
  u32 g = gid_x() * 128 + t;
  u32 v = in[g];
  bool keep = v % 3u == 0u;
  u64 mask = ballot(keep);
  u32 lane = lane_id();
  u32 wave = t / wave_size();
  u64 lt = lane == 0 ? 0ull : (~0ull >> (64 - lane));
  u32 rank = (u32)__builtin_popcountll(mask & lt);
  u32 cnt = (u32)__builtin_popcountll(mask);
  if (lane == 0) wcnt[wave] = cnt;
  syncthreads();
  u32 base = 0, total = 0;
  for (u32 w = 0; w < 128 / wave_size(); w++) {
    if (w < wave) base += wcnt[w];
    total += wcnt[w];
  }
  if (keep) out[gid_x() * 128 + base + rank] = v;
  if (t == 0) counts[gid_x()] = total;
  u32 ffs = (u32)__builtin_ffsll((i64)mask);
  u32 clz = mask ? (u32)__builtin_clzll(mask) : 64u;
  info[g] = ffs | (clz << 8) | (rank << 16) | ((u32)__builtin_popcountll(~mask) << 24);
}

// 5. Tiled f32 GEMM with LDS (8x8 tiles): C = alpha * (A B) + bias[j], products and sums rounded separately.
#define MT 8
extern "C" __global__ void sgemm_tiled(const float *A, const float *B, const float *bias, float *C, int M, int N,
                                       int K, float alpha) {
  __shared__ float As[MT][MT];
  __shared__ float Bs[MT][MT + 1];
  u32 tx = tid_x(), ty = tid_y();
  u32 row = gid_y() * MT + ty, col = gid_x() * MT + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += MT) {
    As[ty][tx] = A[row * K + k0 + tx];
    Bs[ty][tx] = B[(k0 + ty) * N + col];
    syncthreads();
#pragma unroll 4
    for (int k = 0; k < MT; k++) acc += As[ty][k] * Bs[k][tx];
    syncthreads();
  }
  if ((int)row < M && (int)col < N) C[row * N + col] = alpha * acc + bias[col];
}

// 6. Tiled GEMM on half2 (k pairs packed): packed f16 multiply and add, the two halves summed at the end.
extern "C" __global__ void hgemm_half2(const half2 *A, const half2 *BT, half *C, float *Cf, int N, int K2) {
  __shared__ half2 As[MT][MT];
  __shared__ half2 Bs[MT][MT];
  u32 tx = tid_x(), ty = tid_y();
  u32 row = gid_y() * MT + ty, col = gid_x() * MT + tx;
  half2 acc = {(half)0.0f, (half)0.0f};
  for (int k0 = 0; k0 < K2; k0 += MT) {
    As[ty][tx] = A[row * K2 + k0 + tx];
    Bs[ty][tx] = BT[(gid_x() * MT + ty) * K2 + k0 + tx];
    syncthreads();
    for (int k = 0; k < MT; k++) {
      half2 p = As[ty][k] * Bs[tx][k];
      acc = acc + p;
    }
    syncthreads();
  }
  C[row * N + col] = acc.x + acc.y;
  Cf[row * N + col] = (float)acc.x * 0.5f - (float)acc.y;
}

// 7. 2-D 5-point stencil with an LDS tile and a one-cell halo (clamped at the borders).
extern "C" __global__ void stencil5(const float *in, float *out, int W, int H) {
  __shared__ float tile[MT + 2][MT + 2];
  int tx = (int)tid_x(), ty = (int)tid_y();
  int x = (int)gid_x() * MT + tx, y = (int)gid_y() * MT + ty;
  auto at = [&](int xx, int yy) {
    xx = xx < 0 ? 0 : (xx >= W ? W - 1 : xx);
    yy = yy < 0 ? 0 : (yy >= H ? H - 1 : yy);
    return in[yy * W + xx];
  };
  tile[ty + 1][tx + 1] = at(x, y);
  if (tx == 0) tile[ty + 1][0] = at(x - 1, y);
  if (tx == MT - 1) tile[ty + 1][MT + 1] = at(x + 1, y);
  if (ty == 0) tile[0][tx + 1] = at(x, y - 1);
  if (ty == MT - 1) tile[MT + 1][tx + 1] = at(x, y + 1);
  syncthreads();
  float c = tile[ty + 1][tx + 1];
  float ns = tile[ty][tx + 1] + tile[ty + 2][tx + 1];
  float ew = tile[ty + 1][tx] + tile[ty + 1][tx + 2];
  if (x < W && y < H) out[y * W + x] = 0.5f * c + 0.125f * (ns + ew);
}

// 8. CSR SpMV: one row per work-item (y1) and eight lanes per row with a width-8 shfl_down reduction (y2).
extern "C" __global__ void spmv_csr(const int *rowptr, const int *colidx, const float *vals, const float *x, float *y1,
                                   float *y2, int nrows) {
  u32 g = gid_x() * ndim_x() + tid_x();
  if ((int)g < nrows) {
    float acc = 0.0f;
    for (int j = rowptr[g]; j < rowptr[g + 1]; j++) acc += vals[j] * x[colidx[j]];
    y1[g] = acc;
  }
  u32 r = g / 8, l = g % 8;
  float s = 0.0f;
  if ((int)r < nrows)
    for (int j = rowptr[r] + (int)l; j < rowptr[r + 1]; j += 8) s += vals[j] * x[colidx[j]];
  for (u32 d = 4; d > 0; d >>= 1) s += shfl_down_f(s, d, 8);
  if (l == 0 && (int)r < nrows) y2[r] = s;
}

// 9. Radix-sort digit counting: LDS histogram with atomics, merged into global counts; the last workgroup to
// finish (atomic ticket, release/acquire fences) writes the exclusive scan of the counts.
extern "C" __global__ void radix_digits(const u32 *keys, u32 *counts, u32 *block_hist, u32 *offsets, u32 *ticket,
                                        u32 shift) {
  __shared__ u32 h[16];
  __shared__ u32 last;
  u32 t = tid_x();
  if (t < 16) h[t] = 0;
  syncthreads();
  u32 k = keys[gid_x() * 64 + t];
  __hip_atomic_fetch_add(&h[(k >> shift) & 15u], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  syncthreads();
  if (t < 16) {
    block_hist[gid_x() * 16 + t] = h[t];
    __hip_atomic_fetch_add(&counts[t], h[t], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
  syncthreads();
  if (t == 0) last = __hip_atomic_fetch_add(ticket, 1u, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT) == ngroups_x() - 1;
  syncthreads();
  if (last && t == 0) {
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "agent");
    u32 run = 0;
    for (int d = 0; d < 16; d++) {
      offsets[d] = run;
      run += __hip_atomic_load(&counts[d], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    }
    offsets[16] = run;
  }
}

// 10. Single-pass chained prefix sum: dynamic block ids from a ticket, a block scan (wave shfl_up scans + LDS wave
// totals), then each block waits for its predecessor's inclusive prefix (acquire spin) and publishes its own.
extern "C" __global__ void chained_scan(const u32 *in, u32 *out, u32 *incl, u32 *flags, u32 *ticket) {
  __shared__ u32 bid_s, prefix_s;
  __shared__ u32 wsum[64 / 32];
  u32 t = tid_x();
  if (t == 0) bid_s = __hip_atomic_fetch_add(ticket, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  syncthreads();
  u32 bid = bid_s;
  u32 v = in[bid * 64 + t];
  u32 lane = lane_id(), w = t / wave_size();
  u32 sc = v;
  for (u32 d = 1; d < HELDOUT_WAVE; d <<= 1) {
    u32 o = (u32)shfl_up((int)sc, d);
    if (lane >= d) sc += o;
  }
  if (lane == wave_size() - 1) wsum[w] = sc;
  syncthreads();
  for (u32 i = 0; i < w; i++) sc += wsum[i];
  if (t == 63) {
    u32 prefix = 0;
    if (bid > 0) {
      while (__hip_atomic_load(&flags[bid - 1], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0)
        __builtin_amdgcn_s_sleep(1);
      prefix = incl[bid - 1];
    }
    incl[bid] = prefix + sc;
    __hip_atomic_store(&flags[bid], 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    prefix_s = prefix;
  }
  syncthreads();
  out[bid * 64 + t] = prefix_s + sc;
}

// 11. 64-bit bit twiddling: bit reverse, clz/ctz/popcount/parity/ffs, byte swaps, rotates, byte funnel,
// bitfield sign extension, Gray code, next power of two, Morton interleave, lowest-bit tricks.
__device__ static inline u32 spread16(u32 x) {
  x &= 0xFFFFu;
  x = (x | (x << 8)) & 0x00FF00FFu;
  x = (x | (x << 4)) & 0x0F0F0F0Fu;
  x = (x | (x << 2)) & 0x33333333u;
  x = (x | (x << 1)) & 0x55555555u;
  return x;
}
#define NTW 16
extern "C" __global__ void bit_twiddle(const u64 *a, const u64 *b, u64 *out) {
  u32 g = gid_x() * 64 + tid_x();
  u64 x = a[g], y = b[g];
  u64 *o = out + NTW * g;
  u32 r = (u32)y & 63u;
  o[0] = __builtin_bitreverse64(x);
  o[1] = (u64)__builtin_clzll(x | 1ull) | ((u64)__builtin_ctzll(x | (1ull << 63)) << 32);
  o[2] = (u64)__builtin_popcountll(x ^ y) | ((u64)__builtin_parityll(x) << 8) | ((u64)__builtin_ffsll((i64)y) << 16);
  o[3] = __builtin_bswap64(x) ^ (u64)__builtin_bswap32((u32)y);
  o[4] = __builtin_rotateleft64(x, r);
  o[5] = (u64)__builtin_rotateright32((u32)x, (u32)(y >> 8) & 31u) | ((u64)__builtin_rotateleft16((u16)y, 3) << 32);
  o[6] = (u64)__builtin_amdgcn_alignbyte((u32)(x >> 32), (u32)x, (u32)y & 3u);
  o[7] = (u64)(((i64)(x << 7)) >> 51);
  u64 gray = x ^ (x >> 1);
  u64 inv = gray;
  for (u64 s = gray >> 1; s; s >>= 1) inv ^= s;
  o[8] = gray;
  o[9] = inv;
  u32 small = (u32)y >> 1;
  o[10] = small <= 1u ? 1ull : (u64)1 << (32 - __builtin_clz(small - 1));
  o[11] = (u64)(spread16((u32)x) | (spread16((u32)y) << 1));
  o[12] = x & (0 - x);
  o[13] = x & (x - 1);
  o[14] = (u64)__builtin_clrsbll((i64)y) | ((u64)__builtin_clrsb((i32)x) << 32);
  o[15] = (x >> 32) * (y & 0xFFFFFFFFull) + ((y >> 40) ^ (x << 24));
}

// 12. 64-bit mixing hashes: murmur3 fmix64, xorshift64*, FNV-1a over the bytes, 64x64->128 multiply (wyhash mum),
// murmur3_32 of one word, a PCG32 step.
__device__ static inline u64 fmix64(u64 k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}
extern "C" __global__ void hash_mix(const u64 *in, u64 *out) {
  u32 g = gid_x() * 64 + tid_x();
  u64 x = in[g];
  u64 *o = out + 6 * g;
  o[0] = fmix64(x);
  u64 s = x | 1ull;
  for (int i = 0; i < 8; i++) {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
  }
  o[1] = s * 0x2545F4914F6CDD1Dull;
  u32 h = 2166136261u;
  for (int i = 0; i < 8; i++) {
    h ^= (u32)(x >> (8 * i)) & 0xFFu;
    h *= 16777619u;
  }
  o[2] = h;
  unsigned __int128 m = (unsigned __int128)x * (unsigned __int128)(x ^ 0xe7037ed1a0b428dbull);
  o[3] = (u64)m ^ (u64)(m >> 64);
  u32 k1 = (u32)x * 0xcc9e2d51u;
  k1 = __builtin_rotateleft32(k1, 15) * 0x1b873593u;
  u32 h1 = (u32)(x >> 32) ^ k1;
  h1 = __builtin_rotateleft32(h1, 13) * 5u + 0xe6546b64u;
  h1 ^= 4u;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6bu;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35u;
  h1 ^= h1 >> 16;
  o[4] = h1;
  u64 state = x * 6364136223846793005ull + 1442695040888963407ull;
  u32 xs = (u32)(((state >> 18u) ^ state) >> 27u);
  u32 rot = (u32)(state >> 59u);
  o[5] = (xs >> rot) | (xs << ((0u - rot) & 31u));
}

// 13. Conversions with explicit saturation (no undefined casts): f32 -> i32/u8/u16, f32 -> f16, i32 -> f16,
// f16 -> i32, u64 -> f32, i64 -> f64, f64 -> f32, u32 -> f32, f32 -> u64.
#define NCV 12
extern "C" __global__ void convert_sat(const float *xf, const i32 *xi, const u64 *xu, const double *xd, i32 *oi,
                                       half *oh, float *of, double *od, u64 *ou) {
  u32 g = gid_x() * 64 + tid_x();
  float x = xf[g];
  i32 n = xi[g];
  u64 u = xu[g];
  double d = xd[g];
  i32 s32 = x != x ? 0 : (x >= 2147483648.0f ? 0x7FFFFFFF : (x < -2147483648.0f ? (i32)0x80000000 : (i32)x));
  oi[4 * g] = s32;
  oi[4 * g + 1] = (i32)(u8)__builtin_fminf(__builtin_fmaxf(__builtin_rintf(x * 255.0f), 0.0f), 255.0f);
  oi[4 * g + 2] = (i32)(u16)__builtin_fminf(__builtin_fmaxf(x * 1000.0f, 0.0f), 65535.0f);
  half hx = (half)x;
  half hn = (half)n;
  oh[3 * g] = hx;
  oh[3 * g + 1] = hn;
  oh[3 * g + 2] = (half)(float)(n & 2047) * (half)0.25f;
  oi[4 * g + 3] = __builtin_isfinite((float)hx) ? (i32)hx : -1;
  of[3 * g] = (float)u;
  of[3 * g + 1] = (float)d;
  of[3 * g + 2] = (float)(u32)n;
  od[2 * g] = (double)(i64)u;
  od[2 * g + 1] = (double)x * 3.0;
  float ax = __builtin_fabsf(x);
  ou[g] = ax != ax ? 0ull : (ax >= 18446744073709551616.0f ? ~0ull : (u64)ax);
}

// 14. Grid-stride loops with a template over the element type: f32 axpy (separate rounding), f64 fma.
template <typename T> __device__ static inline T axpy_op(T a, T x, T y) { return a * x + y; }
template <> __device__ inline double axpy_op<double>(double a, double x, double y) { return __builtin_fma(a, x, y); }
template <typename T> __device__ static inline int axpy_loop(T a, const T *x, T *y, int n) {
  int iters = 0;
  for (u32 i = gid_x() * ndim_x() + tid_x(); (int)i < n; i += ngroups_x() * ndim_x()) {
    y[i] = axpy_op(a, x[i], y[i]);
    iters++;
  }
  return iters;
}
extern "C" __global__ void grid_stride_axpy(const float *x, float *y, const double *xd, double *yd, i32 *iters,
                                            int n, float a, double ad) {
  int k = axpy_loop(a, x, y, n);
  k += 1000 * axpy_loop(ad, xd, yd, n / 2);
  iters[gid_x() * ndim_x() + tid_x()] = k;
}

// 15. Structs passed and returned by value through non-inlined functions; a polynomial template instantiated for
// int, float, double and u16 (Horner's rule).
struct Particle {
  float x, y, z;
  int id;
};
struct Box {
  float lo[3];
  float hi[3];
};
__device__ NOINLINE Particle advance(Particle p, Box b, float vx, float vy, float vz, float dt) {
  float v[3] = {vx, vy, vz};
  float *c[3] = {&p.x, &p.y, &p.z};
  for (int i = 0; i < 3; i++) {
    float n = *c[i] + v[i] * dt;
    if (n < b.lo[i]) {
      n = b.lo[i] + (b.lo[i] - n);
      p.id += 1 << (8 * i);
    } else if (n > b.hi[i]) {
      n = b.hi[i] - (n - b.hi[i]);
      p.id -= 1 << (8 * i);
    }
    *c[i] = n;
  }
  return p;
}
template <typename T, int N> __device__ NOINLINE T horner(T x) {
  T r = (T)0;
  for (int i = 0; i < N; i++) r = r * x + (T)(i + 1);
  return r;
}
extern "C" __global__ void struct_byval(const float *pos, float *opos, i32 *ids, i64 *poly) {
  u32 g = gid_x() * 64 + tid_x();
  Particle p = {pos[4 * g], pos[4 * g + 1], pos[4 * g + 2], (int)g};
  Box b = {{-1.0f, -2.0f, -0.5f}, {1.0f, 2.0f, 0.5f}};
  for (int s = 0; s < 3; s++) p = advance(p, b, pos[4 * g + 3], -0.75f * pos[4 * g + 3], 0.3f, 0.5f);
  opos[3 * g] = p.x;
  opos[3 * g + 1] = p.y;
  opos[3 * g + 2] = p.z;
  ids[g] = p.id;
  int xi = (int)(g % 7) - 3;
  poly[4 * g] = horner<int, 6>(xi);
  poly[4 * g + 1] = (i64)__builtin_bit_cast(u32, horner<float, 5>(p.x));
  poly[4 * g + 2] = __builtin_bit_cast(i64, horner<double, 7>((double)p.y));
  poly[4 * g + 3] = horner<u16, 4>((u16)(g * 37u));
}

// 16. A small bytecode interpreter: a switch in a loop, a private operand stack indexed by data.
enum Op { PUSH, ADD, SUB, MUL, XOR, DUP, SWAP, SHL, SHR, MIN, MAX, NEG, LOADX, LOOP, MOD, HALT };
extern "C" __global__ void bytecode_vm(const u8 *prog, const u32 *xin, u32 *out, u32 *steps) {
  u32 g = gid_x() * 64 + tid_x();
  const u8 *p = prog + 32 * (g % 4);
  u32 x = xin[g];
  u32 st[16];
  int sp = 0, pc = 0, n = 0;
  u32 ctr = (x & 3u) + 2u;
  bool run = true;
  while (run && n < 200) {
    u8 op = p[pc++];
    n++;
    switch (op) {
    case PUSH: st[sp++] = p[pc++]; break;
    case ADD: sp--; st[sp - 1] += st[sp]; break;
    case SUB: sp--; st[sp - 1] -= st[sp]; break;
    case MUL: sp--; st[sp - 1] *= st[sp]; break;
    case XOR: sp--; st[sp - 1] ^= st[sp]; break;
    case DUP: st[sp] = st[sp - 1]; sp++; break;
    case SWAP: { u32 a = st[sp - 1]; st[sp - 1] = st[sp - 2]; st[sp - 2] = a; break; }
    case SHL: sp--; st[sp - 1] <<= st[sp] & 31u; break;
    case SHR: sp--; st[sp - 1] >>= st[sp] & 31u; break;
    case MIN: sp--; st[sp - 1] = (i32)st[sp] < (i32)st[sp - 1] ? st[sp] : st[sp - 1]; break;
    case MAX: sp--; st[sp - 1] = st[sp] > st[sp - 1] ? st[sp] : st[sp - 1]; break;
    case NEG: st[sp - 1] = 0u - st[sp - 1]; break;
    case LOADX: st[sp++] = x; break;
    case LOOP: { u8 target = p[pc++]; if (--ctr) pc = target; break; }
    case MOD: sp--; st[sp - 1] = st[sp] ? st[sp - 1] % st[sp] : st[sp - 1]; break;
    default: run = false; break;
    }
  }
  out[2 * g] = sp > 0 ? st[sp - 1] : 0xDEADu;
  out[2 * g + 1] = (u32)sp;
  steps[g] = (u32)n;
}

// 17. Recursion: quicksort of a private array (recursive calls on sub-ranges), recursive gcd and modular power.
__device__ NOINLINE void qsort_rec(int *a, int lo, int hi) {
  // recursion into the smaller part, a loop over the larger (depth <= log2 n), as a stack-conscious quicksort is
  // written: HIP's default stack is 1 KiB per work-item, which -O0 frames of a naive double recursion exceed
  while (lo < hi) {
    int pivot = a[(lo + hi) / 2], i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        int t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    }
    if (j - lo < hi - i) {
      qsort_rec(a, lo, j);
      lo = i;
    } else {
      qsort_rec(a, i, hi);
      hi = j;
    }
  }
}
__device__ NOINLINE u32 gcd_rec(u32 a, u32 b) { return b == 0 ? a : gcd_rec(b, a % b); }
__device__ NOINLINE u64 powmod_rec(u64 b, u32 e, u64 m) {
  if (e == 0) return 1 % m;
  u64 h = powmod_rec(b, e / 2, m);
  h = h * h % m;
  return e & 1 ? h * (b % m) % m : h;
}
extern "C" __global__ void recursion(const i32 *in, i32 *sorted, u32 *misc, u64 *pw) {
  u32 g = gid_x() * 64 + tid_x();
  int a[10];
  for (int i = 0; i < 10; i++) a[i] = in[10 * g + i];
  qsort_rec(a, 0, 9);
  for (int i = 0; i < 10; i++) sorted[10 * g + i] = a[i];
  u32 x = (u32)in[10 * g] & 0xFFu, y = (u32)in[10 * g + 1] & 0x3Fu;
  misc[g] = gcd_rec(x * 6u, y * 4u + 2u);
  pw[g] = powmod_rec((u64)(u32)in[10 * g + 2], (u32)in[10 * g + 3] & 0xFFu, 1000000007ull);
}

// 18. Float atomics: atomicAdd(float) as a compare-and-swap loop, native f32/f64 fetch_add, float max by CAS and
// by fetch_max, f64 fetch_min, LDS float adds. Every operand is chosen so the result does not depend on the order.
__device__ static inline float atomic_add_cas(float *addr, float v) {
  u32 *a = (u32 *)addr;
  u32 old = __hip_atomic_load(a, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  u32 assumed;
  do {
    assumed = old;
    u32 want = __builtin_bit_cast(u32, __builtin_bit_cast(float, assumed) + v);
    __hip_atomic_compare_exchange_strong(a, &old, want, __ATOMIC_RELAXED, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  } while (assumed != old);
  return __builtin_bit_cast(float, old);
}
__device__ static inline void atomic_max_cas(float *addr, float v) {
  u32 *a = (u32 *)addr;
  u32 old = __hip_atomic_load(a, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (__builtin_bit_cast(float, old) < v &&
         !__hip_atomic_compare_exchange_strong(a, &old, __builtin_bit_cast(u32, v), __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                              __HIP_MEMORY_SCOPE_AGENT)) {
  }
}
extern "C" __global__ void float_atomics(const u32 *in, float *f, double *d, float *lds_out) {
  __shared__ float ls[2];
  u32 t = tid_x();
  u32 g = gid_x() * 64 + t;
  u32 v = in[g];
  if (t < 2) ls[t] = 0.0f;
  syncthreads();
  atomic_add_cas(&f[0], (float)(v % 16u));
  __hip_atomic_fetch_add(&f[1], (float)(v & 7u) * 0.25f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  atomic_max_cas(&f[2], (float)(v % 1000u) - 500.5f);
  __hip_atomic_fetch_max(&f[3], (float)(i32)(v % 2001u) - 1000.0f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(&d[0], (double)(v % 100000u), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(&d[1], (double)(v >> 8) * -0.5, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_add(&ls[0], (float)(v & 3u) * 0.5f, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_add(&ls[1], -(float)(v % 10u), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  syncthreads();
  if (t < 2) lds_out[2 * gid_x() + t] = ls[t];
}

// 19. Per-bucket extrema and counters: u32/i32/u64/i64 atomicMax/Min in global memory and in LDS, wrapping
// atomicInc/atomicDec per bucket.
extern "C" __global__ void bucket_extrema(const u32 *in, u32 *umax, i32 *imin, u64 *u64max, i64 *i64min, u32 *inc,
                                          u32 *dec, i32 *lds_out) {
  __shared__ i32 lmax[8];
  __shared__ u32 lmin[8];
  __shared__ i64 lmin64[8];
  u32 t = tid_x();
  u32 g = gid_x() * 64 + t;
  u32 v = in[g];
  u32 b = v & 7u;
  if (t < 8) {
    lmax[t] = -0x7FFFFFFF - 1;
    lmin[t] = 0xFFFFFFFFu;
    lmin64[t] = 0x7FFFFFFFFFFFFFFFll;
  }
  syncthreads();
  i32 sv = (i32)(v >> 3) - (1 << 27);
  __hip_atomic_fetch_max(&umax[b], v >> 4, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(&imin[b], sv, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(&u64max[b], (u64)v * 0x10001ull, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_min(&i64min[b], (i64)sv * 1000003ll, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __builtin_amdgcn_atomic_inc32(&inc[b], 6u, __ATOMIC_RELAXED, "agent");
  __builtin_amdgcn_atomic_dec32(&dec[b], 4u, __ATOMIC_RELAXED, "agent");
  __hip_atomic_fetch_max(&lmax[b], sv, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_min(&lmin[b], v ^ 0x5A5A5A5Au, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_min(&lmin64[b], -(i64)v * (i64)(t + 1), __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  syncthreads();
  if (t < 8) {
    i32 *o = lds_out + 32 * gid_x() + 4 * t;
    o[0] = lmax[t];
    o[1] = (i32)lmin[t];
    o[2] = (i32)(u32)lmin64[t];
    o[3] = (i32)(lmin64[t] >> 32);
  }
}

// 20. int8 dot products: plain C over char4 words, the dot4 builtins (signed/unsigned), and symmetric int8
// quantisation with rintf and a clamp.
extern "C" __global__ void int8_dot(const u32 *a, const u32 *b, const float *xf, i32 *dots, i8 *q, float scale) {
  u32 g = gid_x() * 64 + tid_x();
  i32 plain = 0, bi = 0;
  u32 ub = 0;
  for (int w = 0; w < 4; w++) {
    u32 x = a[4 * g + w], y = b[4 * g + w];
    for (int k = 0; k < 4; k++) plain += (i32)(i8)(x >> (8 * k)) * (i32)(i8)(y >> (8 * k));
#if defined(__gfx90a__) || defined(__gfx942__)
    bi = __builtin_amdgcn_sdot4((int)x, (int)y, bi, false);
#else
    bi = __builtin_amdgcn_sudot4(true, (int)x, true, (int)y, bi, false);
#endif
    ub = __builtin_amdgcn_udot4(x, y, ub, false);
  }
  dots[3 * g] = plain;
  dots[3 * g + 1] = bi;
  dots[3 * g + 2] = (i32)ub;
  for (int k = 0; k < 4; k++) {
    float r = __builtin_rintf(xf[4 * g + k] * scale);
    r = __builtin_fminf(__builtin_fmaxf(r, -128.0f), 127.0f);
    q[4 * g + k] = (i8)r;
  }
}

// 21. Vector types: float4 / int4 / half4 loads and stores, swizzles, element-wise math, a float4 dot product.
extern "C" __global__ void vec4_math(const float4 *fa, const float4 *fb, const int4 *ia, const half4 *ha, float4 *fo,
                                     int4 *io, half4 *ho, float *dot) {
  u32 g = gid_x() * 64 + tid_x();
  float4 a = fa[g], b = fb[g];
  float4 r = a * b.wzyx + a.yxwz;
  r.w = r.w - a.x;
  fo[g] = r;
  int4 i = ia[g];
  uint4 u = (uint4)i;  // same-size vector cast: a bitcast (unsigned, so the adds and shifts wrap)
  uint4 j = u + __builtin_shufflevector(u, u, 2, 3, 0, 1);
  j.x ^= j.w;
  j = (j << 3u) | (uint4)(i >> 29);
  io[g] = (int4)j;
  half4 h = ha[g];
  half4 k = h * h.yzwx;
  ho[g] = k + h;
  dot[g] = (a.x * b.x + a.y * b.y) + (a.z * b.z + a.w * b.w);
}

// 22. __syncthreads_count/and/or as the HIP device library implements them (an LDS counter bumped with
// workgroup-scope atomics between barriers), in a helper that -O0 does not inline (LDS used outside the kernel).
__device__ static inline u32 block_count(bool pred) {
  __shared__ u32 cnt;
  if (tid_x() == 0) cnt = 0;
  syncthreads();
  if (pred) __hip_atomic_fetch_add(&cnt, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  syncthreads();
  u32 r = cnt;
  syncthreads();
  return r;
}
extern "C" __global__ void sync_votes(const u32 *in, u32 *out) {
  u32 t = tid_x();
  u32 g = gid_x() * 128 + t;
  u32 v = in[g];
  u32 c = block_count(v & 1u);
  bool all = block_count(v != 0u) == 128u;
  bool any = block_count(v % 97u == 5u) != 0u;
  bool none = block_count(v == 0xFFFFFFFFu) == 0u;
  if (t == 0) {
    out[4 * gid_x()] = c;
    out[4 * gid_x() + 1] = all;
    out[4 * gid_x() + 2] = any;
    out[4 * gid_x() + 3] = none;
  }
}

// 23. Dynamic shared memory (extern __shared__): a block's values reversed and prefix-maxed through a buffer
// whose size the launch gives (2 * blockDim floats), after a static LDS array.
extern "C" __global__ void dyn_shared(const float *in, float *out, u32 *tag) {
  extern __shared__ float dsm[];
  __shared__ u32 stag[4];
  u32 t = tid_x(), n = ndim_x();
  u32 g = gid_x() * n + t;
  if (t < 4) stag[t] = t * 0x01010101u;
  float *rev = dsm, *pm = dsm + n;
  rev[n - 1 - t] = in[g];
  pm[t] = in[g];
  syncthreads();
  for (u32 off = 1; off < n; off <<= 1) {
    float o = t >= off ? pm[t - off] : -__builtin_inff();
    syncthreads();
    pm[t] = __builtin_fmaxf(pm[t], o);
    syncthreads();
  }
  out[2 * g] = rev[t];
  out[2 * g + 1] = pm[t];
  if (t < 4) tag[gid_x() * 4 + t] = stag[3 - t];
}

// 24. Transcendentals and activations: expf, logf, exp2f, log2f, sinf, cosf, rsqrt, rcp, SiLU, softplus, tanh
// (from expf), sqrtf.
#define NTR 12
extern "C" __global__ void transcend(const float *in, float *out) {
  u32 g = gid_x() * 64 + tid_x();
  float x = in[g];
  float *o = out + NTR * g;
  float ax = __builtin_fabsf(x);
  o[0] = __builtin_expf(x);
  o[1] = __builtin_logf(ax + 0.01f);
  o[2] = __builtin_exp2f(x * 1.5f);
  o[3] = __builtin_log2f(ax * 100.0f + 1.0f);
  o[4] = __builtin_sinf(x * 0.3f);
  o[5] = __builtin_cosf(x * 0.3f);
  o[6] = __builtin_amdgcn_rsqf(ax + 0.5f);
  o[7] = __builtin_amdgcn_rcpf(x + 20.0f);
  o[8] = x / (1.0f + __builtin_expf(-x));
  o[9] = __builtin_logf(1.0f + __builtin_expf(x));
  float e2 = __builtin_expf(2.0f * x);
  o[10] = (e2 - 1.0f) / (e2 + 1.0f);
  o[11] = __builtin_sqrtf(ax * 3.0f);
}
