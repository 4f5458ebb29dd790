// fp64_gelu_literals: blind set, kind 1 (FP64 pipe in float code).
// A float tanh-GELU applied 16 times per element. The constants are double literals and tanh() gets a
// double argument, so every step runs on the FP64 pipe (DFMA/DMUL, the double tanh) with F2F conversions.
// Float code doing its work on the slow pipe: the fix is float literals (0.044715f) and tanhf.
// Usage: ./fp64_gelu_literals [reps]
#include "../kernels/example_common.cuh"

__global__ void fp64_gelu_literals(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < 16; ++k) {
    v = 0.5 * v * (1.0 + tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
    v = v * 1.5 + 0.125;
  }
  y[i] = v;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 23;
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(x, n, 101, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    fp64_gelu_literals<<<(n + 255) / 256, 256>>>(x, y, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float h = read_back(y + 77);
  if (!(h > 0.0f && h < 100.0f)) fail("wrong result %f\n", h);
  time_kernel("fp64_gelu_literals", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
