// fp64_exp_decay: blind set, kind 1/2 (FP64 pipe in float code).
// Each thread iterates v = exp(-v * 0.5) + 0.25 on a float; exp() of a double expression is the double
// exp (a DFMA polynomial) and 0.5 / 0.25 are double literals, so the float data is promoted every step.
// The fix is expf/__expf and float literals.
// Usage: ./fp64_exp_decay [reps]
#include "../kernels/example_common.cuh"

__global__ void fp64_exp_decay(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < 24; ++k) v = exp(-v * 0.5) + 0.25;
  y[i] = v;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 23;
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(x, n, 102, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    fp64_exp_decay<<<(n + 255) / 256, 256>>>(x, y, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float h = read_back(y + 5);
  if (!(h > 0.25f && h < 1.25f)) fail("wrong result %f\n", h);
  time_kernel("fp64_exp_decay", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
