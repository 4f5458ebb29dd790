// kopt candidate for KernelBench level2/76_Gemm_Add_ReLU: out = relu(x W^T +
// bias), x 1024 x 8192, W (gemm.weight) 8192 x 8192, bias 8192, fp32; the
// bias and ReLU fused into the GEMM's epilogue. The imported task passes the
// model's parameters as inputs in PyTorch's order (named_parameters: the
// model's own `bias` before the submodule's `gemm.weight`).
#include "kb_sgemm.cuh"

struct BiasRelu {
  const float* bias;
  __device__ float operator()(float v, int column) const { return fmaxf(v + bias[column], 0.0f); }
};

extern "C" void model_forward(const float* x, const float* bias, const float* gemm_weight, float* out,
                              cudaStream_t stream) {
  constexpr int M = 1024, N = 8192, K = 8192;
  kb_example::LaunchSgemm<true>(x, gemm_weight, out, M, N, K, BiasRelu{bias}, stream);
}
