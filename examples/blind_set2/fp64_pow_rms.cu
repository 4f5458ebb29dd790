// fp64_pow_rms: blind set 2, kind 1 (the busy unit is the wrong one: FP64 for float data).
// y = x * rsqrt(mean of squares over a 64-float window), with the square written pow(x, 2.0) and the root
// sqrt() of a double sum: every step runs on the FP64 pipe (DFMA/DMUL/F2F), for float data where float
// arithmetic (x * x, rsqrtf) is as accurate as the task needs.
// Usage: ./fp64_pow_rms [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void fp64_pow_rms(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double sum = 0;
  for (int k = 0; k < 64; ++k) sum += pow(x[(i + k * 32) & (n - 1)], 2.0);  // n is a power of two
  y[i] = x[i] / sqrt(sum / 64.0 + 1e-6);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22;
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(x, n, 201, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    fp64_pow_rms<<<(n + 255) / 256, 256>>>(x, y, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float h = read_back(y + 77);
  if (!(h > 0.2f && h < 2.0f)) fail("wrong result %f\n", h);
  time_kernel("fp64_pow_rms", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
