// Third-party samples corpus (issue 22): sixteen kernels from public HIP samples, written again here in the
// project's header-free HIP style. Facts carry over, code does not: each kernel keeps its sample's algorithm,
// launch shape and data layout (corefiles/samples/twins.py keeps its host check), and the comment above it cites
// the sample (repository, path, the commit the library holds). Template parameters are fixed to the samples'
// values; everything HIP's headers would supply (threadIdx, __syncthreads, __shfl*, __ballot, atomicAdd, float4,
// expf, ...) is written out below the way hip_runtime.h defines it for AMD (amd_warp_functions.h: ds_bpermute
// shuffles; the math functions as clang's builtins, which the AMDGPU backend expands without the device library).
// Built with -nogpulib -nogpuinc -ffp-contract=off by build.py; SAMPLES_WAVE is the wave size.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))

typedef unsigned char u8;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;
typedef long long i64;
typedef unsigned long size_t;
typedef float float4 __attribute__((ext_vector_type(4)));
struct float3 {
  float x, y, z;
};
struct __attribute__((aligned(8))) uint2 {
  u32 x, y;
};

#ifndef SAMPLES_WAVE
#error "build.py defines SAMPLES_WAVE (32 or 64)"
#endif
#define warpSize SAMPLES_WAVE

#define threadIdx_x __builtin_amdgcn_workitem_id_x()
#define threadIdx_y __builtin_amdgcn_workitem_id_y()
#define blockIdx_x __builtin_amdgcn_workgroup_id_x()
#define blockIdx_y __builtin_amdgcn_workgroup_id_y()
#define blockDim_x __builtin_amdgcn_workgroup_size_x()
#define blockDim_y __builtin_amdgcn_workgroup_size_y()
#define gridDim_x (__builtin_amdgcn_grid_size_x() / __builtin_amdgcn_workgroup_size_x())

__device__ static inline void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ static inline int __lane_id() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
// amd_warp_functions.h
__device__ static inline int __shfl(int var, int src_lane, int width = warpSize) {
  int self = __lane_id();
  int index = src_lane + (self & ~(width - 1));
  return __builtin_amdgcn_ds_bpermute(index << 2, var);
}
__device__ static inline float __shfl(float var, int src_lane, int width = warpSize) {
  return __builtin_bit_cast(float, __shfl(__builtin_bit_cast(int, var), src_lane, width));
}
__device__ static inline u32 __shfl_down(u32 var, u32 lane_delta, int width = warpSize) {
  int self = __lane_id();
  int index = self + (int)lane_delta;
  index = (int)((self & (width - 1)) + lane_delta) >= width ? self : index;
  return (u32)__builtin_amdgcn_ds_bpermute(index << 2, (int)var);
}
__device__ static inline u64 __ballot(int predicate) {
#if SAMPLES_WAVE == 32
  return __builtin_amdgcn_ballot_w32(predicate != 0);
#else
  return __builtin_amdgcn_ballot_w64(predicate != 0);
#endif
}
__device__ static inline u32 atomicAdd(u32 *address, u32 val) {
  return __hip_atomic_fetch_add(address, val, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
__device__ static inline float sqrtf(float x) { return __builtin_sqrtf(x); }
__device__ static inline float expf(float x) { return __builtin_expf(x); }
__device__ static inline float fmaxf(float a, float b) { return __builtin_fmaxf(a, b); }

// 1. Block reduction: LDS tree down to one wave, then __shfl_down.
// ROCm/rocm-examples Tutorials/reduction/include/Reduction/v7.hpp (commit b1b2122a2afa4a735e68cf4045256135d60b40a6):
// kernel<BlockSize=256, WarpSize> with op = plus, each thread first adds two inputs (gid and gid + blockDim.x);
// the host relaunches on the partial sums until one value is left (front/back buffers swapped).
#define RED_BLOCK 256
extern "C" __global__ __attribute__((amdgpu_flat_work_group_size(1, RED_BLOCK))) void
reduction_v7(u32 *front, u32 *back, u32 zero_elem, u32 front_size) {
  __shared__ u32 shared[RED_BLOCK];
  const u32 tid = threadIdx_x, bid = blockIdx_x, gid = bid * (blockDim_x * 2) + tid;
  u32 a = gid < front_size ? front[gid] : zero_elem;
  u32 b = gid + blockDim_x < front_size ? front[gid + blockDim_x] : zero_elem;
  shared[tid] = a + b;
  __syncthreads();
#pragma unroll
  for (u32 i = RED_BLOCK / 2; i > warpSize; i /= 2) {
    if (tid < i) shared[tid] = shared[tid] + shared[tid + i];
    __syncthreads();
  }
  if (tid < warpSize) {
    u32 res = shared[tid] + shared[tid + warpSize];
#pragma unroll
    for (u32 delta = warpSize / 2; delta != 0; delta /= 2) res = res + __shfl_down(res, delta);
    if (tid == 0) back[bid] = res;
  }
}

// 2. Work-efficient (up-sweep / down-sweep) inclusive prefix sum of a block, in place, in dynamic LDS.
// ROCm/rocm-examples Applications/prefix_sum/main.hip (commit 03e8f18fc59b1178118127db1a3ab8274dfb0659):
// block_prefix_sum, 128 threads, 2 floats a thread, shared size 2 * 128 * sizeof(float).
extern "C" __global__ void block_prefix_sum(float *d_data, int size, int offset) {
  const int thread_id = threadIdx_x;
  const int block_id = blockIdx_x;
  const int block_size = blockDim_x;
  const int x = (offset * (2 * (block_id * block_size + thread_id) + 1)) - 1;
  extern __shared__ float block[];
  if (x < size) block[2 * thread_id] = d_data[x];
  if (x + offset < size) block[2 * thread_id + 1] = d_data[x + offset];
  int tree_offset = 1;
  for (int tree_size = size >> 1; tree_size > 0; tree_size >>= 1) {
    __syncthreads();
    if (thread_id < tree_size) {
      int from = tree_offset * (2 * thread_id + 1) - 1;
      int to = tree_offset * (2 * thread_id + 2) - 1;
      block[to] += block[from];
    }
    tree_offset <<= 1;
  }
  if (size > 2) {
    if (tree_offset < size) tree_offset <<= 1;
    int max_thread = tree_offset >> 1;
    for (int tree_size = 0; tree_size < max_thread; tree_size <<= 1) {
      tree_size += 1;
      tree_offset >>= 1;
      __syncthreads();
      if (thread_id < tree_size) {
        int from = tree_offset * (thread_id + 1) - 1;
        int to = from + (tree_offset >> 1);
        block[to] += block[from];
      }
    }
  }
  __syncthreads();
  if (x < size) d_data[x] = block[2 * thread_id];
  if (x + offset < size) d_data[x + offset] = block[2 * thread_id + 1];
}

// 3. Bitonic sort, one launch per (step, stage), each thread ordering one pair.
// ROCm/rocm-examples Applications/bitonic_sort/main.hip (commit 59ced836297148fa06144b8ade58bbbc65c4a47b):
// bitonic_sort_kernel(array, step, stage, sort_increasing), block min(256, length / 2).
extern "C" __global__ void bitonic_sort_kernel(u32 *array, const u32 step, const u32 stage, bool sort_increasing) {
  u32 thread_id = blockIdx_x * blockDim_x + threadIdx_x;
  const u32 same_order_block_width = 1 << step;
  const u32 pair_distance = 1 << (step - stage);
  const u32 sorted_block_width = 2 * pair_distance;
  const u32 left_id = (thread_id % pair_distance) + (thread_id / pair_distance) * sorted_block_width;
  const u32 right_id = left_id + pair_distance;
  const u32 left_element = array[left_id];
  const u32 right_element = array[right_id];
  if ((thread_id / same_order_block_width) % 2 == 1) sort_increasing = !sort_increasing;
  const u32 greater = (left_element > right_element) ? left_element : right_element;
  const u32 lesser = (left_element > right_element) ? right_element : left_element;
  array[left_id] = (sort_increasing) ? lesser : greater;
  array[right_id] = (sort_increasing) ? greater : lesser;
}

// 4. 256-bin histogram of bytes: per-thread u8 bins in dynamic LDS (thread ids shuffled against bank conflicts),
// then each thread sums bins_per_thread bins over the block's threads.
// ROCm/rocm-examples Applications/histogram/main.hip (commit 055bd8b18afee80fe8c6d28bb59435e8cf6d1860):
// histogram256_block, 128 threads, dynamic LDS 256 * 128 bytes.
extern "C" __global__ void histogram256_block(u8 *data, u32 *block_bins, const int items_per_thread) {
  const int thread_id = threadIdx_x;
  const int block_id = blockIdx_x;
  const int block_size = blockDim_x;
  const int bin_size = 256;
  extern __shared__ u8 thread_bins[];
  const int b_bits_length = __builtin_ffs(block_size) - 3;
  const int sh_thread_id = (thread_id & (1 << b_bits_length) - 1) << 2 | (thread_id >> b_bits_length);
  for (int i = 0; i < bin_size; ++i) thread_bins[i + bin_size * sh_thread_id] = 0;
  __syncthreads();
  for (int i = 0; i < items_per_thread; i++) {
    const u32 value = data[(block_id * block_size + thread_id) * items_per_thread + i];
    thread_bins[value * block_size + sh_thread_id]++;
  }
  __syncthreads();
  const int bins_per_thread = bin_size / block_size;
  for (int i = 0; i < bins_per_thread; ++i) {
    const int bin_sh_id = i * block_size + sh_thread_id;
    u32 bin_acc = 0;
    for (int j = 0; j < block_size; ++j) bin_acc += thread_bins[bin_sh_id * block_size + j];
    block_bins[block_id * bin_size + bin_sh_id] = bin_acc;
  }
}

// 5. Matrix transpose through a static LDS copy of the whole 64x64 matrix, 4x4 blocks.
// ROCm/rocm-examples HIP-Basic/shared_memory/main.hip (commit 0feb901fe7a913978856ecddf2fed2b8df516c34):
// matrix_transpose_kernel<Width = 64>.
#define TR_WIDTH 64u
extern "C" __global__ void matrix_transpose_lds(float *out, const float *in) {
  __shared__ float shared_matrix_memory[TR_WIDTH * TR_WIDTH];
  const u32 x = blockDim_x * blockIdx_x + threadIdx_x;
  const u32 y = blockDim_y * blockIdx_y + threadIdx_y;
  if (x < TR_WIDTH && y < TR_WIDTH) shared_matrix_memory[y * TR_WIDTH + x] = in[x * TR_WIDTH + y];
  __syncthreads();
  if (x < TR_WIDTH && y < TR_WIDTH) out[y * TR_WIDTH + x] = shared_matrix_memory[y * TR_WIDTH + x];
}

// 6. 4x4 transpose inside one wave with __shfl (ds_bpermute).
// ROCm/rocm-examples HIP-Basic/warp_shuffle/main.hip (commit 0feb901fe7a913978856ecddf2fed2b8df516c34):
// matrix_transpose_kernel(out, in, width), one 4x4 block.
extern "C" __global__ void matrix_transpose_shfl(float *out, const float *in, const u32 width) {
  const u32 x = threadIdx_x;
  const u32 y = threadIdx_y;
  if (x < width && y < width) {
    const float val = in[y * width + x];
    out[x * width + y] = __shfl(val, (int)(y * width + x));
  }
}

// 7. LDS-tiled matrix multiplication, 16x16 tiles, one output element a thread.
// ROCm/rocm-examples HIP-Basic/matrix_multiplication/main.hip (commit 03e8f18fc59b1178118127db1a3ab8274dfb0659):
// matrix_multiplication_kernel<BlockSize = 16>(A, B, C, a_cols).
#define MM_BLOCK 16u
extern "C" __global__ void matrix_multiplication(const float *A, const float *B, float *C, const u32 a_cols) {
  const u32 tx = threadIdx_x;
  const u32 ty = threadIdx_y;
  const u32 bx = blockIdx_x;
  const u32 by = blockIdx_y;
  const u32 b_cols = blockDim_x * gridDim_x;
  const u32 steps = a_cols / MM_BLOCK;
  float thread_result = 0.0F;
  for (u32 step = 0; step < steps; step++) {
    __shared__ float a_values[MM_BLOCK][MM_BLOCK];
    __shared__ float b_values[MM_BLOCK][MM_BLOCK];
    const u32 a_idx = MM_BLOCK * (a_cols * by + step);
    const u32 b_idx = MM_BLOCK * (b_cols * step + bx);
    a_values[ty][tx] = A[a_idx + a_cols * ty + tx];
    b_values[ty][tx] = B[b_idx + b_cols * ty + tx];
    __syncthreads();
    for (u32 i = 0; i < MM_BLOCK; i++) thread_result += a_values[ty][i] * b_values[i][tx];
    __syncthreads();
  }
  const u32 block_offset = b_cols * MM_BLOCK * by + MM_BLOCK * bx;
  C[block_offset + b_cols * ty + tx] = thread_result;
}

// 8. 1-D stencil of radius 7 with an LDS halo (the block's edge threads load the halo).
// zjin-lcf/HeCBench src/stencil1d-hip/stencil_1d.cu (commit 280045f0659705899a18d289c3ed6c4fb0b3459b):
// stencil_1d, BLOCK_SIZE 256, RADIUS 7.
#define ST_RADIUS 7
#define ST_BLOCK 256
extern "C" __global__ void stencil_1d(const int *__restrict__ in, int *__restrict__ out) {
  __shared__ int temp[ST_BLOCK + 2 * ST_RADIUS];
  int gindex = threadIdx_x + blockIdx_x * blockDim_x;
  int lindex = threadIdx_x + ST_RADIUS;
  temp[lindex] = in[gindex];
  if (threadIdx_x < ST_RADIUS) {
    temp[lindex - ST_RADIUS] = (gindex < ST_RADIUS) ? 0 : in[gindex - ST_RADIUS];
    temp[lindex + ST_BLOCK] = in[gindex + ST_BLOCK];
  }
  __syncthreads();
  int result = 0;
  for (int offset = -ST_RADIUS; offset <= ST_RADIUS; offset++) result += temp[lindex + offset];
  out[gindex] = result;
}

// 9. 2-D 5x5 convolution over a zero-padded grid, the mask in __constant__ memory, 32x32 blocks, size_t indexing,
// the grid dimensions passed as a uint2 by value.
// ROCm/rocm-examples Applications/convolution/main.hip (commit 3d9b6d22765861ad364ccb26e1b5ac2146f638b5):
// convolution<MaskWidth = 5>(input, output, input_dimensions), d_mask set by hipMemcpyToSymbol.
#define CONV_MASK 5
__constant__ float d_mask[CONV_MASK * CONV_MASK];
extern "C" __global__ void convolution(const float *input, float *output, const uint2 input_dimensions) {
  const size_t x = blockDim_x * blockIdx_x + threadIdx_x;
  const size_t y = blockDim_y * blockIdx_y + threadIdx_y;
  const size_t width = input_dimensions.x;
  const size_t height = input_dimensions.y;
  const size_t padded_width = width + (CONV_MASK / 2) * 2;
  if (x >= width || y >= height) return;
  float sum = 0.0f;
  const size_t convolution_base = y * padded_width + x;
  for (size_t mask_index_y = 0; mask_index_y < CONV_MASK; ++mask_index_y) {
    for (size_t mask_index_x = 0; mask_index_x < CONV_MASK; ++mask_index_x) {
      const size_t mask_index = mask_index_y * CONV_MASK + mask_index_x;
      const size_t convolution_offset = mask_index_y * padded_width + mask_index_x;
      sum += input[convolution_base + convolution_offset] * d_mask[mask_index];
    }
  }
  output[y * width + x] = sum;
}

// 10. Binomial option pricing, four options (a float4) per block, a 254-step lattice walked back two steps per
// barrier pair through two LDS arrays.
// ROCm/HIP-Examples HIP-Examples-Applications/BinomialOption/BinomialOption.cpp
// (commit 1e8292733cc4897238f5d868e255cb7dc1ddf526): binomial_options, numSteps + 1 = 255 threads a block.
#define RISKFREE 0.02f
#define VOLATILITY 0.30f
extern "C" __global__ void binomial_options(int numSteps, const float4 *randArray, float4 *out) {
  u32 tid = threadIdx_x;
  u32 bid = blockIdx_x;
  __shared__ float4 callA[254 + 1];
  __shared__ float4 callB[254 + 1];
  float4 inRand = randArray[bid];
  float4 s = (1.0f - inRand) * 5.0f + inRand * 30.f;
  float4 x = (1.0f - inRand) * 1.0f + inRand * 100.f;
  float4 optionYears = (1.0f - inRand) * 0.25f + inRand * 10.f;
  float4 dt = optionYears * (1.0f / (float)numSteps);
  float4 vsdt, r, u, profit;
  for (int k = 0; k < 4; k++) vsdt[k] = VOLATILITY * sqrtf(dt[k]);
  float4 rdt = RISKFREE * dt;
  for (int k = 0; k < 4; k++) r[k] = expf(rdt[k]);
  float4 rInv = 1.0f / r;
  for (int k = 0; k < 4; k++) u[k] = expf(vsdt[k]);
  float4 d = 1.0f / u;
  float4 pu = (r - d) / (u - d);
  float4 pd = 1.0f - pu;
  float4 puByr = pu * rInv;
  float4 pdByr = pd * rInv;
  for (int k = 0; k < 4; k++) profit[k] = s[k] * expf(vsdt[k] * (2.0f * tid - (float)numSteps)) - x[k];
  for (int k = 0; k < 4; k++) callA[tid][k] = profit[k] > 0 ? (float)profit[k] : 0.0f;
  __syncthreads();
  for (int j = numSteps; j > 0; j -= 2) {
    if (tid < j) callB[tid] = puByr * callA[tid] + pdByr * callA[tid + 1];
    __syncthreads();
    if (tid < j - 1) callA[tid] = puByr * callB[tid] + pdByr * callB[tid + 1];
    __syncthreads();
  }
  if (tid == 0) out[bid] = callA[0];
}

// 11. All-pairs n-body forces, positions tiled through LDS as float3, softened inverse-cube law.
// ROCm/HIP-Examples mini-nbody/hip/nbody-block.cpp (commit 3435e3e67dd8f8accef3ad0367deb063b69e796a):
// bodyForce(p, v, dt, n), BLOCK_SIZE 256.
#define NB_BLOCK 256
#define SOFTENING 1e-9f
extern "C" __global__ void bodyForce(float4 *p, float4 *v, float dt, int n) {
  int i = blockDim_x * blockIdx_x + threadIdx_x;
  if (i < n) {
    float Fx = 0.0f;
    float Fy = 0.0f;
    float Fz = 0.0f;
    for (int tile = 0; tile < (int)gridDim_x; tile++) {
      __shared__ float3 spos[NB_BLOCK];
      float4 tpos = p[tile * blockDim_x + threadIdx_x];
      spos[threadIdx_x] = float3{tpos.x, tpos.y, tpos.z};
      __syncthreads();
      for (int j = 0; j < NB_BLOCK; j++) {
        float dx = spos[j].x - p[i].x;
        float dy = spos[j].y - p[i].y;
        float dz = spos[j].z - p[i].z;
        float distSqr = dx * dx + dy * dy + dz * dz + SOFTENING;
        float invDist = 1.0f / sqrtf(distSqr);
        float invDist3 = invDist * invDist * invDist;
        Fx += dx * invDist3;
        Fy += dy * invDist3;
        Fz += dz * invDist3;
      }
      __syncthreads();
    }
    v[i].x += dt * Fx;
    v[i].y += dt * Fy;
    v[i].z += dt * Fz;
  }
}

// 12. MurmurHash3_x64_128 of variable-length keys, one key a thread (64-bit multiplies and rotates, byte loads,
// the tail switch with fall-through).
// zjin-lcf/HeCBench src/murmurhash3-hip/murmurhash3.cu (commit 280045f0659705899a18d289c3ed6c4fb0b3459b):
// MurmurHash3_x64_128_kernel, BLOCK_SIZE 256; the seed is the key's index.
__device__ static inline u64 rotl64(u64 x, signed char r) { return (x << r) | (x >> (64 - r)); }
__device__ static inline __attribute__((always_inline)) u64 getblock64(const u8 *p, u32 i) {
  u64 s = 0;
  for (u32 n = 0; n < 8; n++) s |= ((u64)p[8 * i + n] << (n * 8));
  return s;
}
__device__ static inline __attribute__((always_inline)) u64 fmix64(u64 k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ull;
  k ^= k >> 33;
  return k;
}
__device__ static void MurmurHash3_x64_128(const void *key, const u32 len, const u32 seed, void *out) {
  const u8 *data = (const u8 *)key;
  const u32 nblocks = len / 16;
  u64 h1 = seed;
  u64 h2 = seed;
  const u64 c1 = 0x87c37b91114253d5ull;
  const u64 c2 = 0x4cf5ad432745937full;
  for (u32 i = 0; i < nblocks; i++) {
    u64 k1 = getblock64(data, i * 2 + 0);
    u64 k2 = getblock64(data, i * 2 + 1);
    k1 *= c1; k1 = rotl64(k1, 31); k1 *= c2; h1 ^= k1;
    h1 = rotl64(h1, 27); h1 += h2; h1 = h1 * 5 + 0x52dce729;
    k2 *= c2; k2 = rotl64(k2, 33); k2 *= c1; h2 ^= k2;
    h2 = rotl64(h2, 31); h2 += h1; h2 = h2 * 5 + 0x38495ab5;
  }
  const u8 *tail = (const u8 *)(data + nblocks * 16);
  u64 k1 = 0;
  u64 k2 = 0;
  switch (len & 15) {
  case 15: k2 ^= ((u64)tail[14]) << 48; [[fallthrough]];
  case 14: k2 ^= ((u64)tail[13]) << 40; [[fallthrough]];
  case 13: k2 ^= ((u64)tail[12]) << 32; [[fallthrough]];
  case 12: k2 ^= ((u64)tail[11]) << 24; [[fallthrough]];
  case 11: k2 ^= ((u64)tail[10]) << 16; [[fallthrough]];
  case 10: k2 ^= ((u64)tail[9]) << 8; [[fallthrough]];
  case 9:
    k2 ^= ((u64)tail[8]) << 0;
    k2 *= c2; k2 = rotl64(k2, 33); k2 *= c1; h2 ^= k2;
    [[fallthrough]];
  case 8: k1 ^= ((u64)tail[7]) << 56; [[fallthrough]];
  case 7: k1 ^= ((u64)tail[6]) << 48; [[fallthrough]];
  case 6: k1 ^= ((u64)tail[5]) << 40; [[fallthrough]];
  case 5: k1 ^= ((u64)tail[4]) << 32; [[fallthrough]];
  case 4: k1 ^= ((u64)tail[3]) << 24; [[fallthrough]];
  case 3: k1 ^= ((u64)tail[2]) << 16; [[fallthrough]];
  case 2: k1 ^= ((u64)tail[1]) << 8; [[fallthrough]];
  case 1:
    k1 ^= ((u64)tail[0]) << 0;
    k1 *= c1; k1 = rotl64(k1, 31); k1 *= c2; h1 ^= k1;
  };
  h1 ^= len; h2 ^= len;
  h1 += h2;
  h2 += h1;
  h1 = fmix64(h1);
  h2 = fmix64(h2);
  h1 += h2;
  h2 += h1;
  ((u64 *)out)[0] = h1;
  ((u64 *)out)[1] = h2;
}
extern "C" __global__ void murmurhash3_kernel(const u8 *__restrict__ d_keys, const u32 *__restrict__ d_length,
                                              const u32 *__restrict__ length, u64 *__restrict__ d_out,
                                              const u32 numKeys) {
  u32 i = blockDim_x * blockIdx_x + threadIdx_x;
  if (i < numKeys) MurmurHash3_x64_128(d_keys + d_length[i], length[i], i, d_out + i * 2);
}

// 13. ChaCha20 keystream: the block's threads decode the hex key, nonce and expected keystream, thread 0 runs the
// cipher (state, keystream and position in private memory) over the message.
// zjin-lcf/HeCBench src/chacha20-hip/main.cu (commit 1a199242cf77a5b12a574dc746d9d2980a4037f7) and
// src/chacha20-cuda/chacha20.h (commit 129d8c140a3d22cea3aa7701ea7cb94171d4a7e3): test_keystreams, 1 block of 256.
struct Chacha20Block {
  u32 state[16];
  __device__ static u32 rotl32(u32 x, int n) { return (x << n) | (x >> (32 - n)); }
  __device__ static u32 pack4(const u8 *a) {
    return u32(a[0] << 0 * 8) | u32(a[1] << 1 * 8) | u32(a[2] << 2 * 8) | u32(a[3] << 3 * 8);
  }
  __device__ static void unpack4(u32 src, u8 *dst) {
    dst[0] = (src >> 0 * 8) & 0xff;
    dst[1] = (src >> 1 * 8) & 0xff;
    dst[2] = (src >> 2 * 8) & 0xff;
    dst[3] = (src >> 3 * 8) & 0xff;
  }
  __device__ Chacha20Block(const u8 key[32], const u8 nonce[8]) {
    const u8 *magic_constant = (const u8 *)"expand 32-byte k";
    state[0] = pack4(magic_constant + 0 * 4);
    state[1] = pack4(magic_constant + 1 * 4);
    state[2] = pack4(magic_constant + 2 * 4);
    state[3] = pack4(magic_constant + 3 * 4);
    for (int k = 0; k < 8; k++) state[4 + k] = pack4(key + k * 4);
    state[12] = 0;
    state[13] = 0;
    state[14] = pack4(nonce + 0 * 4);
    state[15] = pack4(nonce + 1 * 4);
  }
  __device__ void set_counter(u64 counter) {
    state[12] = u32(counter);
    state[13] = counter >> 32;
  }
  __device__ void next(u32 result[16]) {
    for (int i = 0; i < 16; i++) result[i] = state[i];
#define CHACHA20_QUARTERROUND(x, a, b, c, d)                                                                       \
  x[a] += x[b]; x[d] = rotl32(x[d] ^ x[a], 16);                                                                    \
  x[c] += x[d]; x[b] = rotl32(x[b] ^ x[c], 12);                                                                    \
  x[a] += x[b]; x[d] = rotl32(x[d] ^ x[a], 8);                                                                     \
  x[c] += x[d]; x[b] = rotl32(x[b] ^ x[c], 7);
    for (int i = 0; i < 10; i++) {
      CHACHA20_QUARTERROUND(result, 0, 4, 8, 12)
      CHACHA20_QUARTERROUND(result, 1, 5, 9, 13)
      CHACHA20_QUARTERROUND(result, 2, 6, 10, 14)
      CHACHA20_QUARTERROUND(result, 3, 7, 11, 15)
      CHACHA20_QUARTERROUND(result, 0, 5, 10, 15)
      CHACHA20_QUARTERROUND(result, 1, 6, 11, 12)
      CHACHA20_QUARTERROUND(result, 2, 7, 8, 13)
      CHACHA20_QUARTERROUND(result, 3, 4, 9, 14)
    }
    for (int i = 0; i < 16; i++) result[i] += state[i];
    u32 *counter = state + 12;
    counter[0]++;
    if (0 == counter[0]) counter[1]++;
  }
  __device__ void next(u8 result8[64]) {
    u32 temp32[16];
    next(temp32);
    for (size_t i = 0; i < 16; i++) unpack4(temp32[i], result8 + i * 4);
  }
};
struct Chacha20 {
  Chacha20Block block;
  u8 keystream8[64];
  size_t position;
  __device__ Chacha20(const u8 key[32], const u8 nonce[8], u64 counter = 0) : block(key, nonce), position(64) {
    block.set_counter(counter);
  }
  __device__ void crypt(u8 *bytes, size_t n_bytes) {
    for (size_t i = 0; i < n_bytes; i++) {
      if (position >= 64) {
        block.next(keystream8);
        position = 0;
      }
      bytes[i] ^= keystream8[position];
      position++;
    }
  }
};
__device__ static void hex_to_raw(const char *src, const int n, u8 *dst, const u8 *char_to_uint) {
  for (int i = threadIdx_x; i < n / 2; i = i + blockDim_x) {
    u8 hi = char_to_uint[src[i * 2 + 0]];
    u8 lo = char_to_uint[src[i * 2 + 1]];
    dst[i] = (hi << 4) | lo;
  }
}
extern "C" __global__ void test_keystreams(const char *__restrict__ text_key, const char *__restrict__ text_nonce,
                                           const char *__restrict__ text_keystream,
                                           const u8 *__restrict__ char_to_uint, u8 *__restrict__ raw_key,
                                           u8 *__restrict__ raw_nonce, u8 *__restrict__ raw_keystream,
                                           u8 *__restrict__ result, const int text_key_size,
                                           const int text_nonce_size, const int text_keystream_size) {
  hex_to_raw(text_key, text_key_size, raw_key, char_to_uint);
  hex_to_raw(text_nonce, text_nonce_size, raw_nonce, char_to_uint);
  hex_to_raw(text_keystream, text_keystream_size, raw_keystream, char_to_uint);
  if (threadIdx_x == 0) {
    Chacha20 chacha(raw_key, raw_nonce);
    chacha.crypt(result, text_keystream_size / 2);
  }
}

// 14. Inverse NTT stage over the prime 2^64 - 2^32 + 1: 8-point butterflies with shifts done in 32-bit words,
// a transpose through 64-bit LDS, and an interleaved modular multiply (64-bit urem) on the way out.
// zjin-lcf/HeCBench src/ntt-hip/main.cu (commit 1a199242cf77a5b12a574dc746d9d2980a4037f7) with the modP.h of
// src/ntt-cuda (commit ef424e779c0ae84fbdf4b85e7271f40a578f4adc): intt_3_64k_modcrt, 64 threads a block.
typedef unsigned int uint32;
typedef unsigned long uint64;
#define valP 0xffffffff00000001UL
#define uint32Max 0xffffffffU
__device__ static inline void _uint96_modP(uint32 *x) {
  uint64 s = (uint64)x[1] + (uint64)x[2];
  int b = (s > 4294967295UL) ? 1 : 0;
  x[1] = (uint32)s;
  if (x[0] < x[2]) {
    if (x[1] < 1) {
      x[1]--;
      b--;
    }
  }
  x[0] -= x[2];
  if (b == 1) {
    s = (uint64)x[0] + 4294967295UL;
    if (s > 4294967295UL) x[1]++;
    x[0] = (uint32)s;
  }
}
__device__ static inline void _uint128_modP(uint32 *x) {
  _uint96_modP(x);
  int b = 0;
  if (x[0] < x[3]) {
    if (x[1] < 1) {
      x[1]--;
      b = -1;
    }
  }
  x[0] -= x[3];
  if (b == -1) {
    if (x[0] < 4294967295U) x[1]--;
    x[0] -= 4294967295U;
  }
}
__device__ static inline void _uint160_modP(uint32 *x) {
  _uint128_modP(x);
  int b = (x[1] < x[4]) ? -1 : 0;
  x[1] -= x[4];
  if (b == -1) {
    if (x[0] < 4294967295U) x[1]--;
    x[0] -= 4294967295U;
  }
}
__device__ static inline uint64 _ls_modP(uint64 x, int l) {
  uint64 tx = x;
  uint32 buff[7];
  switch (l) {
  case (0):
    buff[0] = (uint32)tx;
    buff[1] = (uint32)(tx >> 32);
    break;
  case (3): case (6): case (9): case (12): case (15): case (18): case (21): case (24): case (27): case (30):
    buff[2] = (uint32)(tx >> (64 - l));
    buff[1] = (uint32)(tx >> (32 - l));
    buff[0] = (uint32)(tx << l);
    _uint96_modP(buff);
    break;
  case (36): case (42): case (45): case (48): case (54): case (60): case (63):
    buff[3] = (uint32)(tx >> (96 - l));
    buff[2] = (uint32)(tx >> (64 - l));
    buff[1] = (uint32)(tx << (l - 32));
    buff[0] = 0;
    _uint128_modP(buff);
    break;
  case (72): case (75): case (84): case (90):
    buff[4] = (uint32)(tx >> (128 - l));
    buff[3] = (uint32)(tx >> (96 - l));
    buff[2] = (uint32)(tx << (l - 64));
    buff[1] = 0;
    buff[0] = 0;
    _uint160_modP(buff);
    break;
  }
  uint64 w = (uint64)buff[0] | ((uint64)buff[1] << 32);  // the sample's *(uint64 *)buff, without the type pun
  if (w > valP) w -= valP;
  return w;
}
__device__ static inline uint64 _add_modP(uint64 x, uint64 y) {
  uint64 ret = x + y;
  if (ret < x) ret += uint32Max;
  if (ret >= valP) ret -= valP;
  return ret;
}
__device__ static inline uint64 _sub_modP(uint64 x, uint64 y) {
  uint64 ret = x - y;
  if (ret > x) ret -= uint32Max;
  return ret;
}
__device__ static inline uint64 _mul_modP(uint64 x, uint64 y, uint64 m) {
  int i, bits;
  uint64 r = 0;
  if (x >= m) x %= m;
  if (y >= m) y %= m;
  if (x == 0 || y == 0 || m == 1) return 0;
  if ((x | y) < (0xffffffffUL)) return (x * y) % m;
  if (x < y) {
    uint64 tmp = x;
    x = y;
    y = tmp;
  }
  bits = 64;
  for (i = bits - 1; i >= 0; i--) {
    if (r > 0x7fffffffffffffffUL)
      r = m - ((m - r) << 1);
    else
      r <<= 1;
    if ((y >> i) & 0x1) {
      if (r > 0xffffffffffffffffUL - x)
        r += x - m;
      else
        r += x;
    }
    r %= m;
  }
  return r;
}
__device__ static inline void ntt8(uint64 *x) {
  uint64 s[8], temp;
  s[0] = _add_modP(x[0], x[4]);
  s[1] = _sub_modP(x[0], x[4]);
  s[2] = _add_modP(x[2], x[6]);
  s[3] = _sub_modP(x[2], x[6]);
  s[4] = _add_modP(x[1], x[5]);
  s[5] = _sub_modP(x[1], x[5]);
  s[6] = _add_modP(x[3], x[7]);
  s[7] = _sub_modP(x[3], x[7]);
  x[0] = _add_modP(s[0], s[2]);
  x[2] = _sub_modP(s[0], s[2]);
  temp = _ls_modP(s[3], 48);
  x[1] = _add_modP(s[1], temp);
  x[3] = _sub_modP(s[1], temp);
  x[4] = _add_modP(s[4], s[6]);
  x[6] = _sub_modP(s[4], s[6]);
  temp = _ls_modP(s[7], 48);
  x[5] = _add_modP(s[5], temp);
  x[7] = _sub_modP(s[5], temp);
  s[0] = _add_modP(x[0], x[4]);
  s[4] = _sub_modP(x[0], x[4]);
  temp = _ls_modP(x[5], 24);
  s[1] = _add_modP(x[1], temp);
  s[5] = _sub_modP(x[1], temp);
  temp = _ls_modP(x[6], 48);
  s[2] = _add_modP(x[2], temp);
  s[6] = _sub_modP(x[2], temp);
  temp = _ls_modP(x[7], 72);
  s[3] = _add_modP(x[3], temp);
  s[7] = _sub_modP(x[3], temp);
  for (int k = 0; k < 8; k++) x[k] = s[k];
}
extern "C" __global__ void intt_3_64k_modcrt(uint32 *__restrict__ dst, const uint64 *__restrict__ src) {
  __shared__ uint64 buffer[512];
  uint64 samples[8], s8[8];
  uint32 fmem, tmem, fbuf, tbuf;
  const uint32 bidx = blockIdx_x, tidx = threadIdx_x;
  fmem = (bidx << 9) | ((tidx & 0x3E) << 3) | (tidx & 0x1);
  tbuf = tidx << 3;
  fbuf = ((tidx & 0x38) << 3) | (tidx & 0x7);
  tmem = (bidx << 9) | ((tidx & 0x38) << 3) | (tidx & 0x7);
#pragma unroll
  for (int i = 0; i < 8; i++) samples[i] = src[fmem | (i << 1)];
  ntt8(samples);
#pragma unroll
  for (int i = 0; i < 8; i++) buffer[tbuf | i] = _ls_modP(samples[i], ((tidx & 0x1) << 2) * i * 3);
  __syncthreads();
#pragma unroll
  for (int i = 0; i < 8; i++) samples[i] = buffer[fbuf | (i << 3)];
#pragma unroll
  for (int i = 0; i < 4; i++) {
    s8[2 * i] = _add_modP(samples[2 * i], samples[2 * i + 1]);
    s8[2 * i + 1] = _sub_modP(samples[2 * i], samples[2 * i + 1]);
  }
#pragma unroll
  for (int i = 0; i < 8; i++)
    dst[(((tmem | (i << 3)) & 0xf) << 12) | ((tmem | (i << 3)) >> 4)] =
        (uint32)(_mul_modP(s8[i], 18446462594437939201UL, valP));
}

// 15. Wave vote: every thread adds popcount(ballot(tid - 245)) to its wave's counter (global atomics); exactly
// one wave (the one holding thread 245) is divergent.
// ROCm/hip-tests catch/unit/deviceLib/ballot.cc (commit ab61a8d6d1a0584faf6208a82b00ee9425cca945): gpu_ballot,
// 1 block of 512 threads.
extern "C" __global__ void gpu_ballot(u32 *device_ballot, u32 Num_Warps_per_Block, u32 pshift) {
  int tid = threadIdx_x + blockIdx_x * blockDim_x;
  const u32 warp_num = threadIdx_x >> pshift;
  atomicAdd(&device_ballot[warp_num + blockIdx_x * Num_Warps_per_Block], (u32)__builtin_popcountll(__ballot(tid - 245)));
}

// 16. Row softmax, one thread a row: max, sum of expf, normalise (three passes over the row).
// zjin-lcf/HeCBench src/softmax-hip/main.cu (commit 1a199242cf77a5b12a574dc746d9d2980a4037f7): softMax, BLOCK_SIZE 256.
extern "C" __global__ void softMax(const int numSlice, const int sliceSize, const float *src, float *dest) {
  u32 i = blockIdx_x * blockDim_x + threadIdx_x;
  if (i >= (u32)numSlice) return;
  float max_ = src[i * sliceSize];
  for (int j = 0; j < sliceSize; j++) max_ = fmaxf(max_, src[i * sliceSize + j]);
  float sum = 0;
  for (int j = 0; j < sliceSize; j++) sum += expf(src[i * sliceSize + j] - max_);
  for (int j = 0; j < sliceSize; j++) dest[i * sliceSize + j] = expf(src[i * sliceSize + j] - max_) / sum;
}
