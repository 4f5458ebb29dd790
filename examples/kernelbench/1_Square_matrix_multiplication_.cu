// kopt candidate for KernelBench level1/1_Square_matrix_multiplication_
// (import it with `kopt task import-kernelbench`): C = A B, N = 4096, fp32,
// a register-tiled GEMM (no tensor cores: fp32 as the problem states).
#include "kb_sgemm.cuh"

struct Identity {
  __device__ float operator()(float v, int) const { return v; }
};

extern "C" void model_forward(const float* A, const float* B, float* out, cudaStream_t stream) {
  constexpr int N = 4096;
  kb_example::LaunchSgemm<false>(A, B, out, N, N, N, Identity{}, stream);
}
