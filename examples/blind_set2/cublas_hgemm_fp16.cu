// cublas_hgemm_fp16: blind set 2, kind 3 (a vendor-tuned library kernel near its ceiling: healthy).
// cublasGemmEx, FP16 inputs and output with FP32 accumulation, 8192 x 8192 x 8192: cuBLAS picks a Hopper
// tensor-core kernel (wgmma/TMA) that runs near the FP16 tensor ceiling. Nothing above minor is right;
// its ldmatrix/wgmma/TMA shared-memory wavefronts are not bank conflicts.
// Usage: ./cublas_hgemm_fp16 [reps]
#include <cuda_fp16.h>

#include "../kernels/example_common.cuh"
#include "../blind_set/blind_common.cuh"

__global__ void to_half(const float* __restrict__ in, __half* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2half(in[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 8192;
  const size_t elements = size_t(n) * n;
  float* staging = device_alloc<float>(elements);
  __half* A = device_alloc<__half>(elements);
  __half* B = device_alloc<__half>(elements);
  __half* C = device_alloc<__half>(elements);
  fill_random<<<1024, 256>>>(staging, elements, 208, 0.5f, 1.5f);
  to_half<<<1024, 256>>>(staging, A, elements);
  fill_random<<<1024, 256>>>(staging, elements, 209, 0.5f, 1.5f);
  to_half<<<1024, 256>>>(staging, B, elements);
  CK(cudaGetLastError());
  cublasHandle_t handle;
  CKB(cublasCreate(&handle));
  const float alpha = 1.0f / 8192, beta = 0.0f;
  auto launch = [&] {
    CKB(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, A, CUDA_R_16F, n, B, CUDA_R_16F, n, &beta, C,
                     CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  float got = __half2float(read_back(C + 4242));
  if (!(got > 0.5f && got < 2.5f)) fail("wrong result %f\n", got);  // mean of products of U(0.5,1.5): ~1
  time_kernel("cublas_hgemm_fp16", reps, launch);
  CKB(cublasDestroy(handle));
  free_device({staging, A, B, C});
  printf("ok\n");
  return 0;
}
