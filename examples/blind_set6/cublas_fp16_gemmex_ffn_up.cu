// cublas_fp16_gemmex_ffn_up: blind set 6, kind 3 (a vendor-tuned library kernel near its ceiling: healthy).
// The FFN up-projection of a Llama-style layer in fp16 inference (prefill of 4,096 tokens, hidden 4,096,
// intermediate 14,336): Y = X W^T through cublasGemmEx with fp16 operands and output and fp32 compute,
// 481 GFLOP in one call, a Hopper tensor-core (wgmma/TMA) cuBLAS kernel near the fp16 tensor ceiling.
// Nothing to fix; the inputs are filled from the host (cudaMemcpy), so the GEMM is the first kernel launch.
// Usage: ./cublas_fp16_gemmex_ffn_up [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include <cuda_fp16.h>

#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 4096, hidden = 4096, inter = 14336;
  std::vector<__half> hx(size_t(tokens) * hidden), hw(size_t(inter) * hidden);  // row-major [tokens][hidden], [inter][hidden]
  unsigned s = 777u;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return ((s >> 9) * (1.0f / 8388608.0f)) - 0.5f;
  };
  for (auto& v : hx) v = __float2half(next());
  for (auto& v : hw) v = __float2half(0.05f * next());
  __half* x = device_alloc<__half>(hx.size());
  __half* w = device_alloc<__half>(hw.size());
  __half* y = device_alloc<__half>(size_t(tokens) * inter);
  CK(cudaMemcpy(x, hx.data(), hx.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const float alpha = 1.0f, beta = 0.0f;
  // column-major view: Y^T (inter x tokens) = W (as hidden x inter, transposed) * X^T (hidden x tokens)
  auto launch = [&] {
    CKB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, inter, tokens, hidden, &alpha, w, CUDA_R_16F, hidden, x,
                     CUDA_R_16F, hidden, &beta, y, CUDA_R_16F, inter, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (auto [t, o] : {std::pair{0, 0}, {17, 14000}, {4095, 777}}) {
    double want = 0, mag = 0;
    for (int k = 0; k < hidden; ++k) {
      double p = double(__half2float(hx[size_t(t) * hidden + k])) * __half2float(hw[size_t(o) * hidden + k]);
      want += p;
      mag += std::fabs(p);
    }
    float got = __half2float(read_back(y + size_t(t) * inter + o));
    if (!(std::fabs(got - want) <= 2e-3 * mag + 1e-3)) fail("wrong output (%d,%d): %g vs %g\n", t, o, got, want);
  }
  time_kernel("cublas_fp16_gemmex_ffn_up", reps, launch);
  CKB(cublasDestroy(h));
  free_device({x, w, y});
  printf("ok\n");
  return 0;
}
