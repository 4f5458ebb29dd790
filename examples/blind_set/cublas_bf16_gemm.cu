// cublas_bf16_gemm: blind set, HEALTHY (library kernel near its ceiling, kind 3).
// One cuBLAS GEMM of 8192^3 in bf16 with fp32 accumulation (cublasGemmEx, CUBLAS_COMPUTE_32F): a Hopper
// wgmma/TMA kernel near the bf16 tensor ceiling (~787 TFLOP/s measured on our H200 at this size). Nothing
// above minor is expected.
// Usage: ./cublas_bf16_gemm [reps]   (build: nvcc ... -lcublas)
#include <cuda_bf16.h>

#include "../kernels/example_common.cuh"
#include "blind_common.cuh"

__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 8192;
  const size_t nn = size_t(n) * n;
  float* tmp = device_alloc<float>(nn);
  __nv_bfloat16* A = device_alloc<__nv_bfloat16>(nn);
  __nv_bfloat16* B = device_alloc<__nv_bfloat16>(nn);
  float* C = device_alloc<float>(nn);
  fill_random<<<4096, 256>>>(tmp, nn, 112, 0.5f, 1.5f);
  to_bf16<<<4096, 256>>>(tmp, A, nn);
  fill_random<<<4096, 256>>>(tmp, nn, 113, 0.5f, 1.5f);
  to_bf16<<<4096, 256>>>(tmp, B, nn);
  CK(cudaGetLastError());
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const float one = 1.0f, zero = 0.0f;
  auto launch = [&] {  // row-major C = A B (see cublas_tf32_gemm.cu)
    CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, B, CUDA_R_16BF, n, A, CUDA_R_16BF, n, &zero, C,
                     CUDA_R_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> arow(n);
  std::vector<float> a(n), b(n);
  CK(cudaMemcpy(arow.data(), A + size_t(3) * n, n * sizeof(__nv_bfloat16), cudaMemcpyDeviceToHost));
  for (int k = 0; k < n; ++k) a[k] = __bfloat162float(arow[k]), b[k] = __bfloat162float(read_back(B + size_t(k) * n + 11));
  check_gemm_element(a.data(), b.data(), n, read_back(C + size_t(3) * n + 11), 2e-3);
  time_kernel("cublas_bf16_gemm", reps, launch);
  CKB(cublasDestroy(h));
  free_device({tmp, A, B, C});
  printf("ok\n");
  return 0;
}
