// amddbg plugin-test kernel (HIP, device-only, no HIP headers): a struct that a pretty-printer formats, held
// in a local, in an array of locals and as a member of another struct, stopped by a trap so a core holds them.
// Built at -O0 so the locals live in private memory at the trap (corefiles/particles/build.py).
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

struct Particle {
  float x, y, z;
  int id;
};

typedef struct Particle particle_t;

struct Cell {
  int count;
  Particle first;
};

__global__ void particles(Particle *ps, int *out, int trap_id) {
  unsigned lane = __builtin_amdgcn_workitem_id_x();
  Particle p = ps[lane];
  particle_t pair[2] = {p, p};
  pair[1].x += 1.0f;
  Cell cell = {1, p};
  p.z = p.x + p.y;
  if (p.id == trap_id) {
    __builtin_trap();
  }
  out[lane] = (int)(p.z + pair[1].x) + cell.count;
}
