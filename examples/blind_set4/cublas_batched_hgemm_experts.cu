// cublas_batched_hgemm_experts: blind set 4, kind 3 (a vendor-tuned library kernel near its ceiling:
// healthy).
// The up-projection of a mixture-of-experts layer with equal expert loads, as one
// cublasGemmStridedBatchedEx call: 32 experts, each y_e = x_e W_e^T with x_e [2048 tokens x 1024] and
// W_e [2048 x 1024] in fp16, fp32 accumulation, fp16 output (275 GFLOP per call). cuBLAS runs a Hopper
// fp16 tensor-core kernel over the batch near the fp16 tensor ceiling; nothing is left to fix in the
// kernel (its operand-feeding wavefronts are not bank conflicts).
// Usage: ./cublas_batched_hgemm_experts [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include <cuda_fp16.h>

#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

__global__ void to_half_scaled(const float* __restrict__ in, __half* __restrict__ out, size_t n, float s) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2half(in[i] * s);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int experts = 32, tokens = 2048, d_model = 1024, d_ff = 2048;
  const size_t nx = size_t(experts) * tokens * d_model, nw = size_t(experts) * d_ff * d_model,
               ny = size_t(experts) * tokens * d_ff;
  float* staging = device_alloc<float>(std::max(nx, nw));
  __half* x = device_alloc<__half>(nx);
  __half* w = device_alloc<__half>(nw);
  __half* y = device_alloc<__half>(ny);
  fill_random<<<2048, 256>>>(staging, nx, 410, 0.5f, 1.5f);
  to_half_scaled<<<2048, 256>>>(staging, x, nx, 1.0f);
  fill_random<<<2048, 256>>>(staging, nw, 411, 0.5f, 1.5f);
  to_half_scaled<<<2048, 256>>>(staging, w, nw, 1.0f / 64);
  CK(cudaGetLastError());
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const float alpha = 1.0f, beta = 0.0f;
  // per expert, column-major view: y_e^T (d_ff x tokens) = W_e (op T) * x_e^T
  auto launch = [&] {
    CKB(cublasGemmStridedBatchedEx(
        h, CUBLAS_OP_T, CUBLAS_OP_N, d_ff, tokens, d_model, &alpha, w, CUDA_R_16F, d_model,
        (long long)d_ff * d_model, x, CUDA_R_16F, d_model, (long long)tokens * d_model, &beta, y, CUDA_R_16F,
        d_ff, (long long)tokens * d_ff, experts, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__half> hx(d_model), hw(d_model);
  std::vector<float> fx(d_model), fw(d_model);
  for (int e : {0, experts - 1})
    for (int t : {0, 1500, tokens - 1}) {
      CK(cudaMemcpy(hx.data(), x + (size_t(e) * tokens + t) * d_model, d_model * sizeof(__half),
                    cudaMemcpyDeviceToHost));
      for (int k = 0; k < d_model; ++k) fx[k] = __half2float(hx[k]);
      for (int n : {0, 999, d_ff - 1}) {
        CK(cudaMemcpy(hw.data(), w + (size_t(e) * d_ff + n) * d_model, d_model * sizeof(__half),
                      cudaMemcpyDeviceToHost));
        for (int k = 0; k < d_model; ++k) fw[k] = __half2float(hw[k]);
        float got = __half2float(read_back(y + (size_t(e) * tokens + t) * d_ff + n));
        check_gemm_element(fx.data(), fw.data(), d_model, got, 2e-3);
      }
    }
  time_kernel("cublas_batched_hgemm_experts", reps, launch);
  CKB(cublasDestroy(h));
  free_device({staging, x, w, y});
  printf("ok\n");
  return 0;
}
