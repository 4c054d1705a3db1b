// MFMA kernels for tests/emu/test_mfma.py: each lane loads its A, B and C fragments (the vector types the builtins
// take, element e of lane l at in[l * per_lane + e]), runs one matrix instruction and stores its D fragment the
// same way. Header-free HIP, built for gfx90a and gfx942 by build.py.
#define __global__ __attribute__((global))
typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef short short4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));
typedef float float32 __attribute__((ext_vector_type(32)));
typedef int int4 __attribute__((ext_vector_type(4)));
typedef double double4 __attribute__((ext_vector_type(4)));

static __attribute__((device)) inline unsigned lane() { return __builtin_amdgcn_workitem_id_x(); }

__global__ void k_f16_16(const half4 *a, const half4 *b, const float4 *c, float4 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f32_16x16x16f16(a[l], b[l], c[l], 0, 0, 0);
}
__global__ void k_f16_32(const half4 *a, const half4 *b, const float16 *c, float16 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f32_32x32x8f16(a[l], b[l], c[l], 0, 0, 0);
}
__global__ void k_f16_4x4(const half4 *a, const half4 *b, const float4 *c, float4 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f32_4x4x4f16(a[l], b[l], c[l], 0, 0, 0);
}
__global__ void k_f16_32_2b(const half4 *a, const half4 *b, const float32 *c, float32 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f32_32x32x4f16(a[l], b[l], c[l], 0, 0, 0);
}
__global__ void k_f32(const float *a, const float *b, const float4 *c, float4 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f32_16x16x4f32(a[l], b[l], c[l], 0, 0, 0);
}
__global__ void k_f32_2b(const float *a, const float *b, const float32 *c, float32 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f32_32x32x1f32(a[l], b[l], c[l], 0, 0, 0);
}
__global__ void k_bf16(const short4 *a, const short4 *b, const float4 *c, float4 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a[l], b[l], c[l], 0, 0, 0);
}
#if defined(__gfx942__)
__global__ void k_i8(const long *a, const long *b, const int4 *c, int4 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_i32_16x16x32_i8(a[l], b[l], c[l], 0, 0, 0);
}
#else
__global__ void k_i8(const int *a, const int *b, const int4 *c, int4 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_i32_16x16x16i8(a[l], b[l], c[l], 0, 0, 0);
}
#endif
__global__ void k_f64(const double *a, const double *b, const double4 *c, double4 *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f64_16x16x4f64(a[l], b[l], c[l], 0, 0, 0);
}
__global__ void k_f64_4x4(const double *a, const double *b, const double *c, double *d) {
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f64_4x4x4f64(a[l], b[l], c[l], 0, 0, 0);
}
__global__ void k_zero_c(const half4 *a, const half4 *b, float4 *d) {  // C as the inline constant 0
  unsigned l = lane();
  d[l] = __builtin_amdgcn_mfma_f32_16x16x16f16(a[l], b[l], (float4){0, 0, 0, 0}, 0, 0, 0);
}
