// symhangs: many workgroups that poll a flag no one writes while they store to global memory (issue 20: replay by
// symmetry for classes that write global memory). alive_poll: each work-item marks its own word (the address
// comes from its global id, computed before the loop); waiting_poll: every wave stores the same value to one
// shared word; reader_poll: like alive_poll, but every wave also reads the word work-item `watched` marks (when a
// member's store is read: the symmetry argument must not stand, and the whole dispatch is replayed); stride_poll,
// mod3_poll, neighbour_poll: cores caught before the waves computed their store address; grid_poll, ticket_poll:
// global atomics every workgroup does; flag_poll: loads of each workgroup's own words (below).
// Built by build.py (corefiles/oracle/build.py's 24 configurations); SYMHANGS_WAVE is the wave size.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

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

// stride_poll: the address and the stored value both come from the workgroup id, computed in the loop after a
// multiply by a kernel argument (a core taken before the first store: replay computes every member's address).
__global__ void stride_poll(int *go, int *out, unsigned stride) {
  unsigned g = group_x();
  while (poll(go) == 0)
    __hip_atomic_store(&out[(g * block_x() + tid_x()) * stride + 1], (int)g, __ATOMIC_RELAXED,
                       __HIP_MEMORY_SCOPE_AGENT);
}

// mod3_poll: only workgroups whose id is 1 modulo 3 mark their word: a branch on the workgroup id (a class's
// workgroups share their id modulo the emulator's cache period, a power of two, not modulo 3: its members would not
// all take the representative's path, and the whole dispatch is replayed, with the same answer).
__global__ void mod3_poll(int *go, int *alive) {
  unsigned g = group_x() * block_x() + tid_x();
  while (poll(go) == 0)
    if (group_x() % 3 == 1)
      __hip_atomic_store(&alive[g], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// neighbour_poll: each work-item marks its own word and polls its right neighbour's (in the next workgroup for the
// last lane): the members' computed stores are read by other waves, so the argument must not stand.
__global__ void neighbour_poll(int *go, int *alive) {
  unsigned g = group_x() * block_x() + tid_x();
  while (poll(go) == 0) {
    __hip_atomic_store(&alive[g], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
    if (poll(&alive[g + 1]) == 2) break;
  }
}

// grid_poll: a hand-made grid barrier. Work-item 0 of each workgroup adds 1 to `count` (the returned value unused)
// and every wave polls `count` until `expected` workgroups arrived, then marks its own word. expected = the number
// of workgroups: every wave ends; more: a hang. The arrivals of a class's members are part of the answer: replay by
// symmetry runs each member's atomic too (right after its representative's), so `count` counts every workgroup.
__global__ void grid_poll(unsigned *count, int *alive, unsigned expected) {
  if (tid_x() == 0)
    __hip_atomic_fetch_add(count, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (__hip_atomic_load(count, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT) < expected) {
  }
  __hip_atomic_store(&alive[group_x() * block_x() + tid_x()], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// ticket_poll: like grid_poll, but each workgroup keeps the ticket the atomic returns and the last one to arrive
// (ticket == expected - 1) raises `go`, which the others poll: the returned value steers a branch, so the members
// cannot follow their representative (the whole dispatch is replayed).
__global__ void ticket_poll(unsigned *count, int *go, unsigned expected) {
  __shared__ unsigned ticket;
  if (tid_x() == 0)
    ticket = __hip_atomic_fetch_add(count, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __builtin_amdgcn_s_barrier();
  if (ticket == expected - 1)
    __hip_atomic_store(go, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  while (poll(go) == 0) {
  }
}

// flag_poll: each workgroup polls its own flag, flags[group id], and copies in[g] + 1 to out[g] while it waits:
// loads whose addresses differ between the members of a class (each reads its own words), followed into the
// store's data and the poll's compare.
__global__ void flag_poll(int *flags, const int *in, int *out) {
  unsigned g = group_x() * block_x() + tid_x();
  while (poll(&flags[group_x()]) == 0)
    __hip_atomic_store(&out[g], in[g] + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
