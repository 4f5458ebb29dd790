// swish: y = x / (1 + exp(-x)) over 64 M floats, two ways: IEEE division and accurate expf
// (swish_ieee) and the intrinsics (swish_fast). Element-wise, DRAM-bound: the energy-only
// finding's case (issue 15, "Energy in explain"). Usage: ./swish
#include <cuda_runtime.h>

#include <cstdio>

__global__ void fill(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = ((i * 2654435761u) >> 8) * (1.0f / 16777216.0f) * 8.0f - 4.0f;
}
__global__ void swish_ieee(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = v / (1.0f + expf(-v));
  }
}
__global__ void swish_fast(const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = __fdividef(v, 1.0f + __expf(-v));
  }
}
int main() {
  const int n = 1 << 26;
  float *x, *y;
  if (cudaMalloc(&x, n * 4) != cudaSuccess || cudaMalloc(&y, n * 4) != cudaSuccess) return 1;
  fill<<<(n + 255) / 256, 256>>>(x, n);
  for (int r = 0; r < 3; ++r) {
    swish_ieee<<<(n + 255) / 256, 256>>>(x, y, n);
    swish_fast<<<(n + 255) / 256, 256>>>(x, y, n);
  }
  cudaError_t e = cudaDeviceSynchronize();
  float h = 0;
  cudaMemcpy(&h, y + 12345, 4, cudaMemcpyDeviceToHost);
  printf("%s y[12345]=%f\n", cudaGetErrorString(e), h);
  return e == cudaSuccess ? 0 : 1;
}
