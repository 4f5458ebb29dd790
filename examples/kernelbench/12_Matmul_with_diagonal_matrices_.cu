// kopt candidate for KernelBench level1/12_Matmul_with_diagonal_matrices_:
// out = diag(A) B, i.e. row i of B scaled by A[i]; N = M = 4096, fp32.
// float4 loads and stores, one row slice per thread.
#include <cuda_runtime.h>

__global__ void diag_scale(const float* __restrict__ A, const float4* __restrict__ B,
                           float4* __restrict__ out, int rows, int cols4) {
  long long total = static_cast<long long>(rows) * cols4;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    float a = __ldg(A + i / cols4);
    float4 b = B[i];
    out[i] = make_float4(a * b.x, a * b.y, a * b.z, a * b.w);
  }
}

extern "C" void model_forward(const float* A, const float* B, float* out, cudaStream_t stream) {
  constexpr int N = 4096, M = 4096;
  diag_scale<<<132 * 16, 256, 0, stream>>>(A, reinterpret_cast<const float4*>(B),
                                           reinterpret_cast<float4*>(out), N, M / 4);
}
