// kopt candidate for KernelBench level2/63_Gemm_ReLU_Divide: out =
// relu(x W^T + b) / 2, x 1024 x 8192, W (linear.weight) 8192 x 8192, b
// (linear.bias) 8192, fp32; divisor 2.0 comes from get_init_inputs().
#include "kb_sgemm.cuh"

struct BiasReluDivide {
  const float* bias;
  __device__ float operator()(float v, int column) const { return fmaxf(v + bias[column], 0.0f) / 2.0f; }
};

extern "C" void model_forward(const float* x, const float* linear_weight, const float* linear_bias,
                              float* out, cudaStream_t stream) {
  constexpr int M = 1024, N = 8192, K = 8192;
  kb_example::LaunchSgemm<true>(x, linear_weight, out, M, N, K, BiasReluDivide{linear_bias}, stream);
}
