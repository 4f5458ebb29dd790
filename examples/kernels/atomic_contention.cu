// atomic_contention: PLANTED BOTTLENECK = atomic contention.
// Every thread of a 2^24-thread grid does atomicAdd(&bins[i & 7], x[i]): all atomics of the whole grid go
// to 8 floats in one 32-byte sector, which one L2 slice must serialise. The fix is a per-warp/per-block
// reduction (shuffles, shared memory) and one atomic per block.
// Usage: ./atomic_contention [reps]
#include "example_common.cuh"

__global__ void atomic_contention(const float* __restrict__ x, float* __restrict__ bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[i & 7], x[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 24;
  float* x = device_alloc<float>(n);
  float* bins = device_alloc<float>(8);
  CK(cudaMemset(bins, 0, 8 * sizeof(float)));  // accumulators start at zero; the input is random
  fill_random<<<4096, 256>>>(x, n, 17, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    atomic_contention<<<(n + 255) / 256, 256>>>(x, bins, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float h[8];
  CK(cudaMemcpy(h, bins, sizeof(h), cudaMemcpyDeviceToHost));
  for (float v : h)  // each bin sums n/8 values in [0.5, 1.5)
    if (!(v > 0.4f * (n / 8) && v < 1.6f * (n / 8))) fail("wrong result %f\n", v);
  time_kernel("atomic_contention", reps, launch);
  free_device({x, bins});
  printf("ok\n");
  return 0;
}
