// kopt candidate for KernelBench level1/88_MinGPTNewGelu: the tanh GELU of
// minGPT, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), 8192 x 8192 fp32,
// float4 per thread.
#include <cuda_runtime.h>

__device__ __forceinline__ float new_gelu(float v) {
  return 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
}

__global__ void new_gelu_kernel(const float4* __restrict__ x, float4* __restrict__ y, long long n4) {
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n4;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    y[i] = make_float4(new_gelu(v.x), new_gelu(v.y), new_gelu(v.z), new_gelu(v.w));
  }
}

extern "C" void model_forward(const float* x, float* out, cudaStream_t stream) {
  constexpr long long n = 8192LL * 8192LL;
  new_gelu_kernel<<<132 * 16, 256, 0, stream>>>(reinterpret_cast<const float4*>(x),
                                                reinterpret_cast<float4*>(out), n / 4);
}
