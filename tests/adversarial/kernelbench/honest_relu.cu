// Honest control (problem relu_small): ReLU, float4 per thread. Must pass.
#include <cuda_runtime.h>

__global__ void relu_kernel(const float4* __restrict__ x, float4* __restrict__ y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    y[i] = make_float4(fmaxf(v.x, 0.f), fmaxf(v.y, 0.f), fmaxf(v.z, 0.f), fmaxf(v.w, 0.f));
  }
}

extern "C" void model_forward(const float* x, float* out, cudaStream_t stream) {
  constexpr int n4 = 512 * 4096 / 4;
  relu_kernel<<<(n4 + 255) / 256, 256, 0, stream>>>(reinterpret_cast<const float4*>(x),
                                                    reinterpret_cast<float4*>(out), n4);
}
