// fp32_gemm_no_tensor_cores: PLANTED BOTTLENECK = matrix multiply on the FP32 FMA pipe, not tensor cores.
// C = A * B with fp16 inputs and fp32 accumulation (M = N = K = 2048), a classic shared-memory tiled SGEMM
// (64x64 block tile, 4x4 outputs per thread): the inputs are converted to float and multiplied with FFMA.
// The same product on tensor cores (HMMA, or HGMMA/wgmma on Hopper) has roughly 15x the peak rate.
// Usage: ./fp32_gemm_no_tensor_cores [reps]
#include <cuda_fp16.h>

#include "example_common.cuh"

#define BM 64
#define BN 64
#define BK 16
__global__ void __launch_bounds__(256)
    fp32_gemm_no_tensor_cores(const __half* __restrict__ A, const __half* __restrict__ B,
                              float* __restrict__ C, int M, int N, int K) {
  __shared__ __align__(16) float As[BK][BM + 4];  // A tile, transposed
  __shared__ __align__(16) float Bs[BK][BN];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16, row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = threadIdx.x; e < BM * BK; e += 256)
      As[e % BK][e / BK] = __half2float(A[(size_t)(row0 + e / BK) * K + k0 + e % BK]);
    for (int e = threadIdx.x; e < BK * BN; e += 256)
      Bs[e / BN][e % BN] = __half2float(B[(size_t)(k0 + e / BN) * N + col0 + e % BN]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float4 a = *(const float4*)&As[k][ty * 4], b = *(const float4*)&Bs[k][tx * 4];
      float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) C[(size_t)(row0 + ty * 4 + i) * N + col0 + tx * 4 + j] = acc[i][j];
}

__global__ void to_half(const float* f, __half* h, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    h[i] = __float2half(f[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 2048, N = 2048, K = 2048;
  float* tmp = device_alloc<float>((size_t)M * K);
  __half* A = device_alloc<__half>((size_t)M * K);
  __half* B = device_alloc<__half>((size_t)K * N);
  float* C = device_alloc<float>((size_t)M * N);
  fill_random<<<1024, 256>>>(tmp, (size_t)M * K, 11, 0.5f, 1.5f);
  CK(cudaGetLastError());
  to_half<<<1024, 256>>>(tmp, A, (size_t)M * K);
  CK(cudaGetLastError());
  fill_random<<<1024, 256>>>(tmp, (size_t)K * N, 12, 0.5f, 1.5f);
  CK(cudaGetLastError());
  to_half<<<1024, 256>>>(tmp, B, (size_t)K * N);
  CK(cudaGetLastError());
  auto launch = [&] {
    fp32_gemm_no_tensor_cores<<<dim3(N / BN, M / BM), 256>>>(A, B, C, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__half> hA((size_t)M * K), hB((size_t)K * N);
  std::vector<float> hC((size_t)M * N);
  CK(cudaMemcpy(hA.data(), A, hA.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hB.data(), B, hB.size() * 2, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hC.data(), C, hC.size() * 4, cudaMemcpyDeviceToHost));
  for (int t = 0; t < 8; ++t) {
    int r = (t * 977) % M, c = (t * 1291 + 5) % N;
    double ref = 0;
    for (int k = 0; k < K; ++k)
      ref += (double)__half2float(hA[(size_t)r * K + k]) * __half2float(hB[(size_t)k * N + c]);
    if (fabs(ref - hC[(size_t)r * N + c]) > 1e-3 * fabs(ref)) fail("wrong result\n");
  }
  time_kernel("fp32_gemm_no_tensor_cores", reps, launch);
  free_device({tmp, A, B, C});
  printf("ok\n");
  return 0;
}
