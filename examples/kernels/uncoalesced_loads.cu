// uncoalesced_loads: PLANTED BOTTLENECK = uncoalesced global loads (strided gather).
// Thread i reads in[(33*i) mod n]: neighbouring lanes are 132 bytes apart, so each warp-wide 4-byte load
// touches 32 sectors instead of the ideal 4; stores are coalesced. (H200: 4.3 GB read from DRAM.)
// Size: n = 2^26 floats, 256 MB in + 256 MB out (about 8x the 60 MB L2).
// Usage: ./uncoalesced_loads [reps]   (one launch; with reps, also times reps more launches)
#include "example_common.cuh"

__global__ void uncoalesced_loads(const float* __restrict__ in, float* __restrict__ out, unsigned mask) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[(i * 33u) & mask] * 2.0f + 1.0f;  // 33 is odd: a permutation of [0, n), 132 B between lanes
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(1) << 26;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(in, n, 1, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    uncoalesced_loads<<<unsigned(n / 256), 256>>>(in, out, unsigned(n - 1));
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float y = read_back(out + 5);
  float x = read_back(in + 5 * 33);
  if (y != x * 2.0f + 1.0f) fail("wrong result\n");
  time_kernel("uncoalesced_loads", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
