// mufu_softplus_sigmoid: blind set, kind 1 (transcendental-bound, could use intrinsics).
// 20 steps per element of softplus(x) = logf(1 + expf(x)) followed by a sigmoid with an IEEE division,
// compiled without --use_fast_math: expf/logf are MUFU.EX2/LG2 plus range-reduction FMAs and the
// division is MUFU.RCP plus Newton steps and a slow-path check. The work is special functions at full
// accuracy where __expf/__logf/__fdividef (or --use_fast_math) would do.
// Usage: ./mufu_softplus_sigmoid [reps]
#include "../kernels/example_common.cuh"

__global__ void mufu_softplus_sigmoid(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < 20; ++k) {
    float s = logf(1.0f + expf(v));
    v = 2.0f / (1.0f + expf(-s)) - 0.5f + v / (s + 3.0f);
  }
  y[i] = v;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 24;
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(x, n, 103, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    mufu_softplus_sigmoid<<<(n + 255) / 256, 256>>>(x, y, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float h = read_back(y + 9);
  if (!(h > 0.0f && h < 100.0f)) fail("wrong result %f\n", h);
  time_kernel("mufu_softplus_sigmoid", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
