// cublas_tf32_gemm: blind set, HEALTHY (library kernel near its ceiling, kind 3).
// One cuBLAS SGEMM of 8192^3 with CUBLAS_COMPUTE_32F_FAST_TF32: cuBLAS picks a Hopper tensor-core kernel
// (wgmma, TMA, ldmatrix-free operand paths) that runs near the TF32 tensor ceiling. Its shared-memory
// wavefront counts come from TMA/wgmma operand traffic, not from bank conflicts. An expert has nothing
// above minor to say about the kernel itself.
// Usage: ./cublas_tf32_gemm [reps]   (build: nvcc ... -lcublas)
#include "../kernels/example_common.cuh"
#include "blind_common.cuh"

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 8192;
  float* A = device_alloc<float>(size_t(n) * n);
  float* B = device_alloc<float>(size_t(n) * n);
  float* C = device_alloc<float>(size_t(n) * n);
  fill_random<<<4096, 256>>>(A, size_t(n) * n, 110, 0.5f, 1.5f);
  fill_random<<<4096, 256>>>(B, size_t(n) * n, 111, 0.5f, 1.5f);
  CK(cudaGetLastError());
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const float one = 1.0f, zero = 0.0f;
  // Column-major C = A^T-view: with row-major A, B the call computes C^T = B^T A^T, i.e. row-major C = A B.
  auto launch = [&] {
    CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_32F, n, A, CUDA_R_32F, n, &zero, C,
                     CUDA_R_32F, n, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> arow(n), bcol(n), brow(n);
  CK(cudaMemcpy(arow.data(), A + size_t(5) * n, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int k = 0; k < n; ++k) bcol[k] = read_back(B + size_t(k) * n + 9);
  check_gemm_element(arow.data(), bcol.data(), n, read_back(C + size_t(5) * n + 9), 5e-3);
  time_kernel("cublas_tf32_gemm", reps, launch);
  CKB(cublasDestroy(h));
  free_device({A, B, C});
  printf("ok\n");
  return 0;
}
