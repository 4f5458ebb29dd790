// tail_effect: PLANTED BOTTLENECK = partial last wave (tail effect).
// Uniform, long-running 1024-thread blocks (FFMA chains), 2 resident per SM (100% theoretical occupancy).
// The grid is one full wave (2 x #SMs blocks) plus #SMs/8 more: the extra 1/16 of the work runs as a
// second wave in which about 16 of the 132 SMs are busy and the rest idle, so the kernel takes about 1.5
// wave-times for 1.06 waves of work.
// Usage: ./tail_effect [reps]
#include "example_common.cuh"

__global__ void __launch_bounds__(1024)
    tail_effect(const float* __restrict__ in, float* __restrict__ out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x0 = in[i], x1 = x0 + 0.1f, x2 = x0 + 0.2f, x3 = x0 + 0.3f, b = x0 * 0.001f;
  for (int k = 0; k < iters; ++k) {
    x0 = fmaf(x0, 0.999f, b);
    x1 = fmaf(x1, 0.998f, b);
    x2 = fmaf(x2, 0.997f, b);
    x3 = fmaf(x3, 0.996f, b);
  }
  out[i] = x0 + x1 + x2 + x3;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int sms = sm_count();
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tail_effect, 1024, 0));
  const int blocks = per_sm * sms + sms / 8, iters = 16384, n = blocks * 1024;
  printf("blocks per SM: %d, grid: %d blocks = %.3f waves\n", per_sm, blocks,
         double(blocks) / (per_sm * sms));
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(in, n, 10, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    tail_effect<<<blocks, 1024>>>(in, out, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float s = read_back(out + 1);
  if (!(s > 0.0f && s < 10.0f)) fail("wrong result %f\n", s);
  time_kernel("tail_effect", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
