// achieved_occupancy_gap: PLANTED BOTTLENECK = achieved occupancy far below theoretical.
// 1024-thread blocks with few registers: theoretical occupancy is 100% (2 blocks, 64 warps per SM). But
// only 2 of the 32 warps of each block (warp % 16 == 0) run the long dependent FFMA chain; the other 30
// finish after 1/64 of the work and exit, while the block (and its SM slot) stays resident until its
// two long warps end. Achieved occupancy is ~12% of 64 warps, and nothing hides the FFMA latency.
// Usage: ./achieved_occupancy_gap [reps]
#include "example_common.cuh"

__global__ void achieved_occupancy_gap(const float* __restrict__ in, float* __restrict__ out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = threadIdx.x >> 5;
  int my_iters = (warp & 15) == 0 ? iters : iters / 64;  // warp-uniform: no divergence, uneven warps
  float x = in[i], a = 0.999f, b = x * 0.001f;
  for (int k = 0; k < my_iters; ++k) x = fmaf(x, a, b);
  out[i] = x;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int sms = sm_count();
  const int blocks = sms * 2 * 8, iters = 16384, n = blocks * 1024;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(in, n, 9, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    achieved_occupancy_gap<<<blocks, 1024>>>(in, out, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float s = read_back(out + 1);
  if (!(s > 0.0f && s < 10.0f)) fail("wrong result %f\n", s);
  time_kernel("achieved_occupancy_gap", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
