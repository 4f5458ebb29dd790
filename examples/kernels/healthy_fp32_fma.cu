// healthy_fp32_fma: HEALTHY (no planted bottleneck) - FFMA-bound near the FP32 ceiling.
// Full occupancy, 8 independent FFMA chains per thread, the loop unrolled so FFMA is nearly every issued
// instruction: the FMA pipe should sit near 100% of its peak. Memory traffic is negligible (8 MB).
// Usage: ./healthy_fp32_fma [reps]
#include "example_common.cuh"

__global__ void healthy_fp32_fma(const float* __restrict__ in, float* __restrict__ out, float a, float b,
                                 int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) x[j] = in[i] + 0.125f * j;
#pragma unroll 16
  for (int k = 0; k < iters; ++k)
#pragma unroll
    for (int j = 0; j < 8; ++j) x[j] = fmaf(x[j], a, b);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += x[j];
  out[i] = s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int sms = sm_count();
  const int blocks = sms * 8 * 4, n = blocks * 256, iters = 2048;  // 4 full waves at 2048 threads/SM
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(in, n, 24, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    healthy_fp32_fma<<<blocks, 256>>>(in, out, 0.999f, 0.001f, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float y = read_back(out + 5);
  if (!(y > 0.5f && y < 20.0f)) fail("wrong result %f\n", y);
  time_kernel("healthy_fp32_fma", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
