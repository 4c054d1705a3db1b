// Faults whose address comes from a pointer the user can name: a NULL element of a pointer table picked by a
// kernel argument, an index that runs one past the end of an array argument, a pointer read from a field of a
// struct argument. `amddbg explain` must say where the pointer came from (`weights[3]`, `offsets[1024]`,
// `p->data`) at -O0 (pointers reloaded from the stack) and -O2 (address registers reused). Markers `@name` name
// lines the tests look up. Built by build.py (clang-19/22, gfx90a/gfx942/gfx1100/gfx1200, wave32/64, -O0/-O2);
// cores are written at test time with `amddbg run --core` (tests/replay/test_originfaults.py gives the launches).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define INLINE __device__ static inline __attribute__((always_inline))
#define WAVE ORIGINFAULTS_WAVE

INLINE unsigned tid() { return __builtin_amdgcn_workitem_id_x(); }

INLINE void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// null_weight: lanes 0-2 fill weights[0..2]; the kernel reads the layer its argument names, and weights[3] (the
// launch passes layer = 3) was never filled.
__global__ void null_weight(float **weights, const float *x, float *out, int layer) {
  unsigned t = tid();
  if (t < 3) weights[t] = (float *)x;
  __syncthreads();
  out[t] = weights[layer][t] * x[t]; // @weight-load
}

// past_loop: `<=` where `<` was meant: the lane whose stride reaches i == n reads offsets[n], one past the n
// elements the launch gives offsets.
__global__ void past_loop(const int *offsets, int *out, int n) {
  unsigned t = tid();
  int sum = 0;
  for (int i = (int)t; i <= n; i += WAVE) {
    sum += offsets[i]; // @loop-load
  }
  out[t] = sum;
}

struct Params {
  int n;
  int scale;
  const int *data;
};

// struct_field: the launch fills `n` and `scale`, never `data`: every lane reads through p->data, which is NULL.
__global__ void struct_field(const struct Params *p, int *out) {
  unsigned t = tid();
  int v = 0;
  if ((int)t < p->n) {
    v = p->data[t] * p->scale; // @field-load
  }
  out[t] = v;
}

// null_local: a local pointer that only one path sets; the launch takes the other (use_a = 0), so p stays NULL and
// every lane reads through it.
__global__ void null_local(const float *a, float *out, int use_a) {
  unsigned t = tid();
  const float *p = 0;
  if (use_a) p = a;
  out[t] = p[t] * 2.0f; // @local-load
}

// null_ternary: a pointer chosen by a ternary between a valid buffer and NULL: odd lanes pick NULL.
__global__ void null_ternary(const int *valid, int *out) {
  unsigned t = tid();
  const int *src = (t & 1) ? 0 : valid;
  out[t] = src[t] + 1; // @ternary-load
}

// past_store_le: a store loop with `<=` where `<` was meant: the lane whose stride reaches i == n writes hist[n].
__global__ void past_store_le(int *hist, int n) {
  unsigned t = tid();
#pragma clang loop unroll(disable)
  for (int i = (int)t; i <= n; i += WAVE) {
    hist[i] = i; // @le-store
  }
}

// past_arg_index: lane 0 reads the element at index n (the length the launch passes), one past the end.
__global__ void past_arg_index(const int *vals, int *out, int n) {
  unsigned t = tid();
  int v = vals[t];
  if (t == 0) v += vals[n]; // @arg-load
  out[t] = v;
}
