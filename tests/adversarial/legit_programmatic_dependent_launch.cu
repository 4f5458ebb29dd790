// Control candidate (task gelu) -- expected: pass.
// An honest pattern the runtime defences must keep passing (issue 30):
// programmatic dependent launch. GELU runs in two kernels on the harness
// stream, the first over the first half of the elements, the second over the
// rest; the second is launched with cudaLaunchAttributeProgrammaticStreamSerialization
// so it may start while the first drains, and waits in
// cudaGridDependencySynchronize before its work (the first triggers early
// with cudaTriggerProgrammaticLaunchCompletion). Everything is on the timed
// stream; the host only enqueues.
#include <cuda_runtime.h>

__global__ void gelu_first(const float* x, float* y, int end) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  cudaTriggerProgrammaticLaunchCompletion();
  if (i < end) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

__global__ void gelu_second(const float* x, float* y, int begin, int n) {
  cudaGridDependencySynchronize();
  int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  int half = n / 2;
  gelu_first<<<(half + 255) / 256, 256, 0, stream>>>(x, y, half);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3((n - half + 255) / 256);
  config.blockDim = dim3(256);
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = 1;
  cudaLaunchKernelEx(&config, gelu_second, x, y, half, n);
}
