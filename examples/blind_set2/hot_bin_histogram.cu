// hot_bin_histogram: blind set 2, kind 6 (contended atomics).
// A 64-bin histogram of 32 M values with one global atomicAdd per element; the values are skewed so
// that about 90 % fall into two bins: thousands of warps serialize on the same two addresses in L2.
// Privatized per-block histograms in shared memory (or warp-aggregated atomics) are the fix.
// Usage: ./hot_bin_histogram [reps]
#include "../kernels/example_common.cuh"

__global__ void hot_bin_histogram(const float* __restrict__ x, unsigned* __restrict__ bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  int bin = v < 1.4f ? (v < 0.95f ? 0 : 1) : 2 + int((v - 1.4f) * 600.0f) % 62;
  atomicAdd(&bins[bin], 1u);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 25;
  float* x = device_alloc<float>(n);
  unsigned* bins = device_alloc<unsigned>(64);
  fill_random<<<1024, 256>>>(x, n, 204, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    CK(cudaMemset(bins, 0, 64 * sizeof(unsigned)));
    hot_bin_histogram<<<(n + 255) / 256, 256>>>(x, bins, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> h(64);
  CK(cudaMemcpy(h.data(), bins, 64 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long total = 0;
  for (unsigned c : h) total += c;
  if (total != (unsigned long long)n) fail("wrong total %llu\n", total);
  time_kernel("hot_bin_histogram", reps, launch);
  free_device({x, bins});
  printf("ok\n");
  return 0;
}
