// warp_divergence: PLANTED BOTTLENECK = warp divergence (per-lane branches with heavy, distinct work).
// Lanes are split into 8 groups of 4 by (lane >> 2); each group runs a different 512-step loop, so every
// warp executes all 8 paths one after another with only 4 of 32 threads active (about 4/32 = 12.5% SIMT
// efficiency). Compute-only: memory traffic is 32 MB.
// Usage: ./warp_divergence [reps]
#include "example_common.cuh"

__global__ void warp_divergence(const float* __restrict__ in, float* __restrict__ out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i], y = x * 0.5f + 0.25f;
  switch ((threadIdx.x >> 2) & 7) {  // a different path for each group of 4 lanes
    case 0:
      for (int k = 0; k < iters; ++k) x = x * y + 0.5f * y;
      break;
    case 1:
      for (int k = 0; k < iters; ++k) x = x * x * 0.25f + y;
      break;
    case 2:
      for (int k = 0; k < iters; ++k) x = (x + y) * 0.5f - 0.125f;
      break;
    case 3:
      for (int k = 0; k < iters; ++k) x = fmaxf(x * 0.75f, y) + 0.125f;
      break;
    case 4:
      for (int k = 0; k < iters; ++k) x = fminf(x + 0.5f, y * 3.0f) * 0.9f;
      break;
    case 5:
      for (int k = 0; k < iters; ++k) x = x * 0.9f - y * 0.1f + 0.2f;
      break;
    case 6:
      for (int k = 0; k < iters; ++k) x = fabsf(x - y) * 0.8f + 0.3f;
      break;
    default:
      for (int k = 0; k < iters; ++k) x = (x * 0.5f + 0.1f) * (y * 0.25f + 0.7f);
      break;
  }
  out[i] = x;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22, iters = 512;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(in, n, 5, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    warp_divergence<<<n / 256, 256>>>(in, out, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> h(32);
  CK(cudaMemcpy(h.data(), out, 32 * sizeof(float), cudaMemcpyDeviceToHost));
  for (float v : h)
    if (!(v == v) || v == 0.0f) fail("wrong result %f\n", v);
  time_kernel("warp_divergence", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
