// cublas_tf32_qkv_projection: blind set 4, kind 3 (a vendor-tuned library kernel near its ceiling:
// healthy).
// The fused Q/K/V projection of a transformer layer through cublasGemmEx with
// CUBLAS_COMPUTE_32F_FAST_TF32: y = x W^T with x [8192 tokens x 4096] and W [12288 x 4096] in float
// (nn.Linear's row-major layout), 824 GFLOP per call. cuBLAS picks a Hopper TF32 tensor-core kernel
// (wgmma with TMA-fed shared-memory tiles) that runs near the TF32 ceiling. Nothing above minor is right:
// its ldmatrix/wgmma/TMA wavefront counts are how the operands are fed, not bank conflicts.
// Usage: ./cublas_tf32_qkv_projection [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 8192, d_model = 4096, n_out = 3 * 4096;
  float* x = device_alloc<float>(size_t(tokens) * d_model);
  float* w = device_alloc<float>(size_t(n_out) * d_model);
  float* y = device_alloc<float>(size_t(tokens) * n_out);
  fill_random<<<2048, 256>>>(x, size_t(tokens) * d_model, 408, 0.5f, 1.5f);
  fill_random<<<2048, 256>>>(w, size_t(n_out) * d_model, 409, 0.01f, 0.03f);
  CK(cudaGetLastError());
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const float alpha = 1.0f, beta = 0.0f;
  // column-major view: y^T (n_out x tokens) = W (op T of the K x n_out view) * x^T (K x tokens)
  auto launch = [&] {
    CKB(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n_out, tokens, d_model, &alpha, w, CUDA_R_32F, d_model, x,
                     CUDA_R_32F, d_model, &beta, y, CUDA_R_32F, n_out, CUBLAS_COMPUTE_32F_FAST_TF32,
                     CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(d_model), hw(d_model);
  for (int t : {0, 5000, tokens - 1}) {
    CK(cudaMemcpy(hx.data(), x + size_t(t) * d_model, d_model * sizeof(float), cudaMemcpyDeviceToHost));
    for (int n : {0, 4097, n_out - 1}) {
      CK(cudaMemcpy(hw.data(), w + size_t(n) * d_model, d_model * sizeof(float), cudaMemcpyDeviceToHost));
      check_gemm_element(hx.data(), hw.data(), d_model, read_back(y + size_t(t) * n_out + n), 5e-3);
    }
  }
  time_kernel("cublas_tf32_qkv_projection", reps, launch);
  CKB(cublasDestroy(h));
  free_device({x, w, y});
  printf("ok\n");
  return 0;
}
