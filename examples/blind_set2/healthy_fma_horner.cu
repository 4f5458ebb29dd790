// healthy_fma_horner: blind set 2, HEALTHY (compute-bound at the FP32 FMA ceiling).
// Each thread evaluates a degree-32 polynomial by Horner's rule, 256 times, on 8 independent values held
// in registers (8 dependency chains per thread, full occupancy): almost every instruction is an FFMA
// and the FMA pipe runs near its peak. The work is the arithmetic itself; nothing above minor is right.
// Usage: ./healthy_fma_horner [reps]
#include "../kernels/example_common.cuh"

__global__ void healthy_fma_horner(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v[8], acc[8];
#pragma unroll
  for (int k = 0; k < 8; ++k) v[k] = x[i] * (0.1f + 0.01f * k), acc[k] = 0.0f;
#pragma unroll 1
  for (int rep = 0; rep < 256; ++rep) {
#pragma unroll
    for (int c = 0; c < 32; ++c)
#pragma unroll
      for (int k = 0; k < 8; ++k) acc[k] = fmaf(acc[k], v[k], 0.03125f * (c + 1));
  }
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 8; ++k) s += acc[k];
  y[i] = s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 132 * 2048 * 4;
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(x, n, 216, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    healthy_fma_horner<<<n / 256, 256>>>(x, y, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float got = read_back(y + 4321);
  if (!(got > 0.0f && got < 1e6f)) fail("wrong result %f\n", got);
  time_kernel("healthy_fma_horner", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
