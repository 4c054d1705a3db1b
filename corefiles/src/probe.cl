// amddbg corpus kernel (OpenCL C 2.0), compiled with -nogpulib: work-item functions and the barrier
// come from builtins so no device library is needed.
#define lane_id() ((size_t)__builtin_amdgcn_workitem_id_x())
#define global_id() ((size_t)__builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x())
#define workgroup_barrier() do { __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup"); \
                                 __builtin_amdgcn_s_barrier(); \
                                 __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup"); } while (0)

typedef struct {
  int hits;
  float ratio;
} stats_t;

__attribute__((noinline))
int mix(int seed, __private int *work, int n) {
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    work[i] = seed * (i + 3);
    acc += work[i] ^ i;
  }
  return acc;
}

__attribute__((noinline))
int bump(int a, __private stats_t *st) {
  st->hits += a;
  return st->hits * 3 + (int)st->ratio;
}

__attribute__((noinline))
int outer(int a, __private stats_t *st) {
  return bump(a + 2, st) - a;
}

__kernel void probe(__global int *out, __global atomic_int *counters,
                    __global atomic_int *flag, int n) {
  __local int tile[64];
  int work[16];
  stats_t st = {0, 1.5f};
  size_t gid = global_id();
  size_t lid = lane_id();
  int v;
  if ((lid & 1) == 0) {
    v = mix((int)gid, work, n & 15);
  } else {
    v = outer((int)lid, &st) + work[0 & (n - 1)];
  }
  tile[lid & 63] = v;
  workgroup_barrier();
  v += tile[(lid + 1) & 63];
  int leader = __builtin_amdgcn_readfirstlane(v);
  int old = __opencl_atomic_fetch_add(counters, 1, __ATOMIC_RELAXED, __OPENCL_MEMORY_SCOPE_WORK_GROUP);
  __opencl_atomic_fetch_add(counters + 1, leader, __ATOMIC_ACQ_REL, __OPENCL_MEMORY_SCOPE_DEVICE);
  __opencl_atomic_fetch_min(counters + 2, v, __ATOMIC_SEQ_CST, __OPENCL_MEMORY_SCOPE_ALL_SVM_DEVICES);
  if (gid == 0) {
    __opencl_atomic_store(flag, 1, __ATOMIC_RELEASE, __OPENCL_MEMORY_SCOPE_DEVICE);
  } else {
    while (__opencl_atomic_load(flag, __ATOMIC_ACQUIRE, __OPENCL_MEMORY_SCOPE_DEVICE) == 0) { }
  }
  out[gid] = v + old;
}

__kernel void reduce(__global const float *in, __global float *out, int n) {
  __local float partial[64];
  size_t lid = lane_id();
  float sum = 0.0f;
  for (size_t i = global_id(); i < (size_t)n; i += 4096) {
    sum += in[i];
  }
  partial[lid & 63] = sum;
  workgroup_barrier();
  for (int stride = 32; stride > 0; stride >>= 1) {
    if (lid < (size_t)stride) {
      partial[lid] += partial[lid + stride];
    }
    workgroup_barrier();
  }
  if (lid == 0) {
    out[__builtin_amdgcn_workgroup_id_x()] = partial[0];
  }
}
