// FAKE_RUNNER: timed_50
// four elements per thread; the tile shape from CuTe's make_layout
#include <cuda_runtime.h>
#include <cute/layout.hpp>
__global__ void saxpy_kernel(const float* x, const float* y, float* z, float a, int n) {
  int i = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
  for (int k = i; k < i + 4 && k < n; ++k) z[k] = a * x[k] + y[k];
}
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_kernel<<<(n + 1023) / 1024, 256, 0, stream>>>(x, y, z, a, n);
}
