// WMMA kernels for tests/emu/test_mfma.py: each lane loads its A, B and C fragments (element e of lane l at
// in[l * per_lane + e]), runs one matrix instruction and stores its D fragment the same way. Built for gfx1100 and
// gfx1200 in wave32 and wave64 by build.py (-DWAVE=32|64).
#define __global__ __attribute__((global))
typedef _Float16 half16 __attribute__((ext_vector_type(16)));
typedef _Float16 half8 __attribute__((ext_vector_type(8)));
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef short short16 __attribute__((ext_vector_type(16)));
typedef short short8 __attribute__((ext_vector_type(8)));
typedef short short4 __attribute__((ext_vector_type(4)));
typedef float float8 __attribute__((ext_vector_type(8)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef int int8 __attribute__((ext_vector_type(8)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef int int2 __attribute__((ext_vector_type(2)));

static __attribute__((device)) inline unsigned lane() { return __builtin_amdgcn_workitem_id_x(); }

#if defined(__gfx1100__) && WAVE == 32
__global__ void k_f16(const half16 *a, const half16 *b, const float8 *c, float8 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(a[l], b[l], c[l]);
}
__global__ void k_bf16(const short16 *a, const short16 *b, const float8 *c, float8 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32(a[l], b[l], c[l]);
}
__global__ void k_iu8(const int4 *a, const int4 *b, const int8 *c, int8 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32(true, a[l], false, b[l], c[l], false);
}
#elif defined(__gfx1100__)
__global__ void k_f16(const half16 *a, const half16 *b, const float4 *c, float4 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64(a[l], b[l], c[l]);
}
__global__ void k_bf16(const short16 *a, const short16 *b, const float4 *c, float4 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w64(a[l], b[l], c[l]);
}
__global__ void k_iu8(const int4 *a, const int4 *b, const int4 *c, int4 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64(true, a[l], false, b[l], c[l], false);
}
#elif WAVE == 32
__global__ void k_f16(const half8 *a, const half8 *b, const float8 *c, float8 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(a[l], b[l], c[l]);
}
__global__ void k_bf16(const short8 *a, const short8 *b, const float8 *c, float8 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w32_gfx12(a[l], b[l], c[l]);
}
__global__ void k_iu8(const int2 *a, const int2 *b, const int8 *c, int8 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w32_gfx12(true, a[l], false, b[l], c[l], false);
}
#else
__global__ void k_f16(const half4 *a, const half4 *b, const float4 *c, float4 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_f32_16x16x16_f16_w64_gfx12(a[l], b[l], c[l]);
}
__global__ void k_bf16(const short4 *a, const short4 *b, const float4 *c, float4 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_f32_16x16x16_bf16_w64_gfx12(a[l], b[l], c[l]);
}
__global__ void k_iu8(const int *a, const int *b, const int4 *c, int4 *d) {
  unsigned l = lane(); d[l] = __builtin_amdgcn_wmma_i32_16x16x16_iu8_w64_gfx12(true, a[l], false, b[l], c[l], false);
}
#endif
