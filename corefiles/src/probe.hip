// amddbg corpus kernel (HIP, compiled device-only without HIP headers: -nogpulib -nogpuinc).
// Exercises what a GPU debugger must understand: lane divergence, loops, a workgroup barrier, LDS and
// private arrays, a chain of noinline device calls, scoped atomics, a spin-wait on a flag and wave
// intrinsics. Three template instantiations give int/float/double variants.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

static __device__ inline unsigned lane_x() { return __builtin_amdgcn_workitem_id_x(); }
static __device__ inline unsigned group_x() { return __builtin_amdgcn_workgroup_id_x(); }
static __device__ inline void workgroup_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

struct Sample {
  int count;
  float weight;
  short tag[2];
};

template <typename T>
__device__ __attribute__((noinline)) T scale_into(T base, T *scratch, int n) {
  T total = 0;
  for (int i = 0; i < n; ++i) {
    scratch[i] = base * (T)(i + 1);
    total += scratch[i];
  }
  return total;
}

__device__ __attribute__((noinline)) int third_level(int x) { return x * 7 - 3; }
__device__ __attribute__((noinline)) int second_level(int x, Sample *s) {
  s->count += third_level(x);
  return s->count + (int)s->weight;
}
__device__ __attribute__((noinline)) int first_level(int x, Sample *s) {
  int r = second_level(x + 1, s);
  s->tag[0] = (short)r;
  return r ^ x;
}

template <typename T>
__global__ void probe(T *out, int *counters, int *flag, int n) {
  __shared__ T tile[64];
  T scratch[16];
  Sample sample = {1, 0.5f, {2, 3}};
  unsigned lane = lane_x();
  unsigned global = group_x() * 64 + lane;
  T value;
  if (lane & 1) {
    value = scale_into<T>((T)global, scratch, n & 15);
  } else {
    value = (T)first_level((int)lane, &sample);
  }
  tile[lane & 63] = value;
  workgroup_barrier();
  value += tile[(lane + 1) & 63];
  int first = __builtin_amdgcn_readfirstlane((int)global);
  int below = __builtin_amdgcn_mbcnt_lo(~0u, 0);
  int old = __hip_atomic_fetch_add(counters, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  __hip_atomic_fetch_add(counters + 1, first, __ATOMIC_ACQ_REL, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_fetch_max(counters + 2, (int)global, __ATOMIC_SEQ_CST, __HIP_MEMORY_SCOPE_SYSTEM);
  if (global == 0) {
    __hip_atomic_store(flag, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {
      __builtin_amdgcn_s_sleep(1);
    }
  }
  out[global] = value + (T)old + scratch[n & 15] + (T)below;
}

template __global__ void probe<int>(int *, int *, int *, int);
template __global__ void probe<float>(float *, int *, int *, int);
template __global__ void probe<double>(double *, int *, int *, int);

// A kernel that hangs when launched with more than one wave per workgroup: only even waves reach the
// barrier. The emulator and the hang explainer use it.
__global__ void divergent_barrier(int *out, int *flag) {
  __shared__ int stage[256];
  unsigned lane = lane_x();
  stage[lane & 255] = (int)lane;
  if (((lane / 64) & 1) == 0) {
    workgroup_barrier();
    out[lane] = stage[(lane + 1) & 255];
  } else {
    while (__hip_atomic_load(flag, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP) == 0) {
      __builtin_amdgcn_s_sleep(2);
    }
    out[lane] = -1;
  }
}
