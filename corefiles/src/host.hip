// Host-side translation unit for the corpus: compiling it with clang -x hip (no -cuda-device-only)
// yields a host object whose .hip_fatbin section embeds a clang offload bundle of device code objects.
// Without HIP headers, the host side only needs a declaration of the launch function clang expects.
#if !defined(__HIP_DEVICE_COMPILE__)
struct dim3 { unsigned x, y, z; };
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
#endif
#include "probe.hip"
