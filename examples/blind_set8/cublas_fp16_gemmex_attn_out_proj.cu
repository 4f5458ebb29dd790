// cublas_fp16_gemmex_attn_out_proj: blind set 8, kind 3 (a vendor-tuned library kernel near its ceiling:
// healthy). The attention output projection of a 13B-class transformer in fp16 inference prefill: Y (fp16) =
// A W^T for 8,192 tokens and a 5,120 x 5,120 weight, one cublasGemmEx call with fp16 operands and output and
// fp32 compute: 429 GFLOP, a Hopper fp16 tensor-core (wgmma/TMA) kernel near the tensor ceiling, well under a
// millisecond. Nothing to fix; the inputs are filled from the host (cudaMemcpy), so the GEMM is the first
// kernel launch. Usage: ./cublas_fp16_gemmex_attn_out_proj [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include <cuda_fp16.h>

#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 8192, dim = 5120;
  std::vector<__half> ha(size_t(tokens) * dim), hw(size_t(dim) * dim);  // row-major [tokens][dim], [out][in]
  unsigned s = 9091u;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return ((s >> 9) * (1.0f / 8388608.0f)) - 0.5f;
  };
  for (auto& v : ha) v = __float2half(next());
  for (auto& v : hw) v = __float2half(0.05f * next());
  __half* a = device_alloc<__half>(ha.size());
  __half* w = device_alloc<__half>(hw.size());
  __half* y = device_alloc<__half>(size_t(tokens) * dim);
  CK(cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  const float alpha = 1.0f, beta = 0.0f;
  // column-major view: Y^T (dim x tokens) = W (dim_in x dim_out, transposed) * A^T (dim x tokens)
  auto launch = [&] {
    CKB(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, dim, tokens, dim, &alpha, w, CUDA_R_16F, dim, a,
                     CUDA_R_16F, dim, &beta, y, CUDA_R_16F, dim, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (auto [t, o] : {std::pair{0, 0}, {4000, 5119}, {8191, 2222}}) {
    double want = 0, mag = 0;
    for (int k = 0; k < dim; ++k) {
      double p = double(__half2float(ha[size_t(t) * dim + k])) * __half2float(hw[size_t(o) * dim + k]);
      want += p;
      mag += std::fabs(p);
    }
    float got = __half2float(read_back(y + size_t(t) * dim + o));
    if (!(std::fabs(got - want) <= 2e-3 * mag + 1e-3))
      fail("wrong output (%d,%d): %g vs %g\n", t, o, got, want);
  }
  time_kernel("cublas_fp16_gemmex_attn_out_proj", reps, launch);
  CKB(cublasDestroy(handle));
  free_device({a, w, y});
  printf("ok\n");
  return 0;
}
