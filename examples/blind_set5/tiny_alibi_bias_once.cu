// tiny_alibi_bias_once: blind set 5, kind healthy (a tiny kernel launched once).
// The ALiBi attention bias table of a 32-head model for distances 0..2047, built once at model load:
// bias[h][d] = -slope_h * d with slope_h = 2^(-8 (h + 1) / 32), 64 K floats (256 KB) written with one
// exp2f per thread by 256 blocks. A few microseconds once per process: healthy, nothing to gain.
// Usage: ./tiny_alibi_bias_once [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kHeads = 32, kDist = 2048;

__global__ void tiny_alibi_bias_once(float* __restrict__ bias) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kHeads * kDist) return;
  int h = i / kDist, d = i % kDist;
  bias[i] = -exp2f(-8.0f * (h + 1) / kHeads) * d;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  float* bias = device_alloc<float>(kHeads * kDist);
  auto launch = [&] {
    tiny_alibi_bias_once<<<kHeads * kDist / 256, 256>>>(bias);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1, 5000, kHeads * kDist - 1}) {
    int h = i / kDist, d = i % kDist;
    double want = -std::exp2(-8.0 * (h + 1) / kHeads) * d;
    float got = read_back(bias + i);
    if (!(std::fabs(got - want) <= 1e-5 * std::fabs(want) + 1e-7))
      fail("wrong bias at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("tiny_alibi_bias_once", reps, launch);
  free_device({bias});
  printf("ok\n");
  return 0;
}
