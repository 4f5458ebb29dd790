// cublas_bf16_gemmex_lm_head: blind set 7, kind 3 (a vendor-tuned library kernel near its ceiling: healthy).
// The LM head of a 7B-class model in bf16 training/eval: logits (fp32) = H W^T for 2,048 tokens, hidden 4,096
// and a 32,000-word vocabulary, one cublasGemmEx call with bf16 operands, fp32 output and fp32 compute:
// 537 GFLOP, a Hopper bf16 tensor-core (wgmma/TMA) kernel near the tensor ceiling, under a millisecond.
// Nothing to fix; the inputs are filled from the host (cudaMemcpy), so the GEMM is the first kernel launch.
// Usage: ./cublas_bf16_gemmex_lm_head [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include <cuda_bf16.h>

#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 2048, hidden = 4096, vocab = 32000;
  std::vector<__nv_bfloat16> hh(size_t(tokens) * hidden),
      hw(size_t(vocab) * hidden);  // row-major [tokens][hidden], [vocab][hidden]
  unsigned s = 4242u;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return ((s >> 9) * (1.0f / 8388608.0f)) - 0.5f;
  };
  for (auto& v : hh) v = __float2bfloat16(next());
  for (auto& v : hw) v = __float2bfloat16(0.05f * next());
  __nv_bfloat16* h = device_alloc<__nv_bfloat16>(hh.size());
  __nv_bfloat16* w = device_alloc<__nv_bfloat16>(hw.size());
  float* logits = device_alloc<float>(size_t(tokens) * vocab);
  CK(cudaMemcpy(h, hh.data(), hh.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  const float alpha = 1.0f, beta = 0.0f;
  // column-major view: logits^T (vocab x tokens) = W (hidden x vocab, transposed) * H^T (hidden x tokens)
  auto launch = [&] {
    CKB(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, vocab, tokens, hidden, &alpha, w, CUDA_R_16BF, hidden,
                     h, CUDA_R_16BF, hidden, &beta, logits, CUDA_R_32F, vocab, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (auto [t, o] : {std::pair{0, 0}, {1000, 31999}, {2047, 12345}}) {
    double want = 0, mag = 0;
    for (int k = 0; k < hidden; ++k) {
      double p =
          double(__bfloat162float(hh[size_t(t) * hidden + k])) * __bfloat162float(hw[size_t(o) * hidden + k]);
      want += p;
      mag += std::fabs(p);
    }
    float got = read_back(logits + size_t(t) * vocab + o);
    if (!(std::fabs(got - want) <= 1e-3 * mag + 1e-4))
      fail("wrong logit (%d,%d): %g vs %g\n", t, o, got, want);
  }
  time_kernel("cublas_bf16_gemmex_lm_head", reps, launch);
  CKB(cublasDestroy(handle));
  free_device({h, w, logits});
  printf("ok\n");
  return 0;
}
