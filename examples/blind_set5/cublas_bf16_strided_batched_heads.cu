// cublas_bf16_strided_batched_heads: blind set 5, kind 3 (a vendor-tuned library kernel near its ceiling:
// healthy). The per-head output projection of a mixture of 16 low-rank adapters, done as one
// cublasGemmStridedBatchedEx in bf16 with fp32 accumulation: 16 independent 2048 x 2048 x 2048 products
// (275 GFLOP) in one launch. cuBLAS picks a Hopper tensor-core (wgmma/TMA) kernel that runs near the bf16
// tensor ceiling; its shared-memory wavefront counts are ldmatrix/wgmma/TMA traffic, not bank conflicts.
// Usage: ./cublas_bf16_strided_batched_heads [reps]   (build: nvcc ... -lcublas -lcublasLt)
#include <cuda_bf16.h>

#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int batch = 16, m = 2048, n = 2048, k = 2048;
  const size_t sa = size_t(m) * k, sb = size_t(k) * n, sc = size_t(m) * n;
  float* staging = device_alloc<float>(sa * batch);
  __nv_bfloat16* a = device_alloc<__nv_bfloat16>(sa * batch);
  __nv_bfloat16* b = device_alloc<__nv_bfloat16>(sb * batch);
  __nv_bfloat16* c = device_alloc<__nv_bfloat16>(sc * batch);
  fill_random<<<2048, 256>>>(staging, sa * batch, 521, 0.5f, 1.5f);
  to_bf16<<<2048, 256>>>(staging, a, sa * batch);
  fill_random<<<2048, 256>>>(staging, sb * batch, 522, 0.01f, 0.02f);
  to_bf16<<<2048, 256>>>(staging, b, sb * batch);
  CK(cudaGetLastError());
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  const float alpha = 1.0f, beta = 0.0f;
  auto launch = [&] {
    // column-major: C_b (m x n) = A_b (m x k) B_b (k x n)
    CKB(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, CUDA_R_16BF, m, sa, b,
                                   CUDA_R_16BF, k, sb, &beta, c, CUDA_R_16BF, m, sc, batch,
                                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  };
  launch();
  CK(cudaDeviceSynchronize());
  const int probes[3][3] = {{0, 0, 0}, {7, 100, 2000}, {15, 2047, 5}};
  for (const auto& pr : probes) {
    const int bt = pr[0], i = pr[1], j = pr[2];
    double want = 0;
    for (int kk = 0; kk < k; ++kk)
      want += double(__bfloat162float(read_back(a + bt * sa + size_t(kk) * m + i))) *
              __bfloat162float(read_back(b + bt * sb + size_t(j) * k + kk));
    float got = __bfloat162float(read_back(c + bt * sc + size_t(j) * m + i));
    if (!(std::fabs(got - want) <= 1e-2 * std::fabs(want)))
      fail("wrong product (%d,%d,%d): %f vs %f\n", bt, i, j, got, want);
  }
  time_kernel("cublas_bf16_strided_batched_heads", reps, launch);
  CKB(cublasDestroy(h));
  free_device({staging, a, b, c});
  printf("ok\n");
  return 0;
}
