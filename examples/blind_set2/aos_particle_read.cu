// aos_particle_read: blind set 2, uncoalesced loads.
// Particles stored as an array of 64-byte structs (position, velocity, mass, charge, 8 more floats of
// state); the kernel updates the x position from the x velocity only. Consecutive threads read floats
// 64 bytes apart: each 32-byte sector carries one useful float (4 of 32 bytes). A structure of arrays
// (or a 16-byte vector of the fields needed) is the fix.
// Usage: ./aos_particle_read [reps]
#include "../kernels/example_common.cuh"

struct Particle {
  float x, y, z, vx, vy, vz, mass, charge, state[8];
};

__global__ void aos_particle_read(const Particle* __restrict__ p, float* __restrict__ new_x, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) new_x[i] = p[i].x + dt * p[i].vx;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 23;
  Particle* p = device_alloc<Particle>(n);
  float* new_x = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(reinterpret_cast<float*>(p), size_t(n) * 16, 213, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    aos_particle_read<<<(n + 255) / 256, 256>>>(p, new_x, n, 0.01f);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  Particle q = read_back(p + 321);
  float got = read_back(new_x + 321);
  if (got != q.x + 0.01f * q.vx) fail("wrong result\n");
  time_kernel("aos_particle_read", reps, launch);
  free_device({p, new_x});
  printf("ok\n");
  return 0;
}
