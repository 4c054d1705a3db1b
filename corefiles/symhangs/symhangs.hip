// symhangs: many workgroups that poll a flag no one writes while they store to global memory (issue 20: replay by
// symmetry for classes that write global memory). alive_poll: each work-item marks its own word (the address
// comes from its global id, computed before the loop); waiting_poll: every wave stores the same value to one
// shared word; reader_poll: like alive_poll, but every wave also reads the word work-item `watched` marks (when a
// member's store is read: the symmetry argument must not stand, and the whole dispatch is replayed).
// Built by build.py (corefiles/oracle/build.py's 24 configurations); SYMHANGS_WAVE is the wave size.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

__device__ static inline unsigned tid_x() { return __builtin_amdgcn_workitem_id_x(); }
__device__ static inline unsigned group_x() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ static inline unsigned block_x() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ static inline int poll(int *go) { return __hip_atomic_load(go, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); }

__global__ void alive_poll(int *go, int *alive) {
  unsigned g = group_x() * block_x() + tid_x();
  while (poll(go) == 0)
    __hip_atomic_store(&alive[g], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

__global__ void waiting_poll(int *go, int *waiting) {
  while (poll(go) == 0)
    __hip_atomic_store(waiting, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

__global__ void reader_poll(int *go, int *alive, int watched) {
  unsigned g = group_x() * block_x() + tid_x();
  while (poll(go) == 0) {
    __hip_atomic_store(&alive[g], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    if (poll(&alive[watched]) == 2) break;
  }
}
