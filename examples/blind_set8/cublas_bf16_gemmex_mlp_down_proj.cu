// cublas_bf16_gemmex_mlp_down_proj: blind set 8, kind 3 (a vendor-tuned library kernel near its ceiling:
// healthy). The down projection of a LLaMA-7B MLP in bf16 training: Y (bf16) = H W^T for 4,096 tokens, an
// 11,008-wide intermediate and a 4,096-wide output, one cublasGemmEx call with bf16 operands and output and
// fp32 compute: 369 GFLOP, a Hopper bf16 tensor-core (wgmma/TMA) kernel near the tensor ceiling, about half a
// millisecond. Nothing to fix; the inputs are filled from the host (cudaMemcpy), so the GEMM is the first
// kernel launch. Usage: ./cublas_bf16_gemmex_mlp_down_proj [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include <cuda_bf16.h>

#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 4096, inter = 11008, out_dim = 4096;
  std::vector<__nv_bfloat16> hh(size_t(tokens) * inter), hw(size_t(out_dim) * inter);  // row-major
  unsigned s = 5151u;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return ((s >> 9) * (1.0f / 8388608.0f)) - 0.5f;
  };
  for (auto& v : hh) v = __float2bfloat16(next());
  for (auto& v : hw) v = __float2bfloat16(0.05f * next());
  __nv_bfloat16* h = device_alloc<__nv_bfloat16>(hh.size());
  __nv_bfloat16* w = device_alloc<__nv_bfloat16>(hw.size());
  __nv_bfloat16* y = device_alloc<__nv_bfloat16>(size_t(tokens) * out_dim);
  CK(cudaMemcpy(h, hh.data(), hh.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  const float alpha = 1.0f, beta = 0.0f;
  // column-major view: Y^T (out x tokens) = W (inter x out, transposed) * H^T (inter x tokens)
  auto launch = [&] {
    CKB(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, out_dim, tokens, inter, &alpha, w, CUDA_R_16BF, inter,
                     h, CUDA_R_16BF, inter, &beta, y, CUDA_R_16BF, out_dim, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (auto [t, o] : {std::pair{0, 0}, {2000, 4095}, {4095, 1234}}) {
    double want = 0, mag = 0;
    for (int k = 0; k < inter; ++k) {
      double p =
          double(__bfloat162float(hh[size_t(t) * inter + k])) * __bfloat162float(hw[size_t(o) * inter + k]);
      want += p;
      mag += std::fabs(p);
    }
    float got = __bfloat162float(read_back(y + size_t(t) * out_dim + o));
    if (!(std::fabs(got - want) <= 1e-2 * mag + 1e-3))
      fail("wrong output (%d,%d): %g vs %g\n", t, o, got, want);
  }
  time_kernel("cublas_bf16_gemmex_mlp_down_proj", reps, launch);
  CKB(cublasDestroy(handle));
  free_device({h, w, y});
  printf("ok\n");
  return 0;
}
