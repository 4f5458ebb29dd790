// healthy_philox_uniform: blind set 3, HEALTHY control (integer work that is the useful work).
// Fills 1 GiB with uniform floats from a counter-based Philox4x32-10 generator (as cuRAND and the
// frameworks' dropout masks do): one thread per float4, ten rounds of 32-bit multiply-high/low and xor
// per four outputs, one 16-byte store. The integer pipe does the generator's real work (there is no
// cheaper unit for it) and the stores stream at DRAM speed: nothing above minor is right.
// Usage: ./healthy_philox_uniform [reps]
#include "../kernels/example_common.cuh"

struct U4 {
  unsigned x, y, z, w;
};

__host__ __device__ inline U4 philox4x32_10(U4 ctr, unsigned k0, unsigned k1) {
  for (int round = 0; round < 10; ++round) {
    unsigned long long p0 = 0xD2511F53ull * ctr.x, p1 = 0xCD9E8D57ull * ctr.z;
    unsigned hi0 = unsigned(p0 >> 32), lo0 = unsigned(p0), hi1 = unsigned(p1 >> 32), lo1 = unsigned(p1);
    ctr = {hi1 ^ ctr.y ^ k0, lo1, hi0 ^ ctr.w ^ k1, lo0};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return ctr;
}

__host__ __device__ inline float to_unit(unsigned v) {
  return (v >> 8) * (1.0f / 16777216.0f);
}

__global__ void healthy_philox_uniform(float4* __restrict__ out, unsigned n4, unsigned seed_lo,
                                       unsigned seed_hi, unsigned offset) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  U4 r = philox4x32_10({i, offset, 0u, 0u}, seed_lo, seed_hi);
  out[i] = make_float4(to_unit(r.x), to_unit(r.y), to_unit(r.z), to_unit(r.w));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const unsigned n4 = 1u << 26;  // 2^28 floats, 1 GiB
  float4* out = device_alloc<float4>(n4);
  auto launch = [&] {
    healthy_philox_uniform<<<n4 / 256, 256>>>(out, n4, 0x1234567u, 0x89abcdefu, 331u);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (unsigned i : {0u, 1u, 123456u, n4 - 1}) {
    U4 r = philox4x32_10({i, 331u, 0u, 0u}, 0x1234567u, 0x89abcdefu);
    float4 got = read_back(out + i);
    if (got.x != to_unit(r.x) || got.y != to_unit(r.y) || got.z != to_unit(r.z) || got.w != to_unit(r.w))
      fail("wrong result at %u\n", i);
  }
  time_kernel("healthy_philox_uniform", reps, launch);
  free_device({out});
  printf("ok\n");
  return 0;
}
