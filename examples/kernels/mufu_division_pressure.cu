// mufu_division_pressure: PLANTED BOTTLENECK = special-function unit (MUFU/XU) and IEEE-division pressure.
// Each element runs 32 steps of x = expf(-x) / (0.5f + sqrtf(x)) + __sinf(x) * 0.25f: per step four MUFU
// instructions (EX2, RSQ, RCP, SIN) plus the IEEE-division and sqrt fix-up code. MUFU runs at 16 lanes
// per cycle per SM against 128 for FFMA, so the XU pipe saturates while the FMA pipe idles.
// Size: 2^24 floats in and out.
// Usage: ./mufu_division_pressure [reps]
#include "example_common.cuh"

__global__ void mufu_division_pressure(const float* __restrict__ in, float* __restrict__ out, int n,
                                       int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  for (int k = 0; k < iters; ++k) x = expf(-x) / (0.5f + sqrtf(x)) + __sinf(x) * 0.25f;
  out[i] = x;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 24, iters = 32;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(in, n, 16, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    mufu_division_pressure<<<(n + 255) / 256, 256>>>(in, out, n, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float x = read_back(in + 9);
  float y = read_back(out + 9);
  for (int k = 0; k < iters; ++k) x = expf(-x) / (0.5f + sqrtf(x)) + sinf(x) * 0.25f;
  if (fabsf(x - y) > 1e-4f) fail("wrong result %f %f\n", x, y);
  time_kernel("mufu_division_pressure", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
