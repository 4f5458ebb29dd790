// FAKE_RUNNER: energy_40_900
// IEEE division and expf
#include <cuda_runtime.h>
static const char kVersion[] = "a_ieee";
__global__ void saxpy_kernel(const float* x, const float* y, float* z, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}
extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, a, n);
}
