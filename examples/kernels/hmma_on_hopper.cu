// hmma_on_hopper: PLANTED BOTTLENECK = tensor-core GEMM on Hopper's older path (HMMA via wmma/mma.sync)
// instead of warpgroup MMA (wgmma -> HGMMA) with TMA. C = A * B, fp16 in, fp32 accumulate,
// M = N = K = 4096: a 128x128x32 shared-memory tiled wmma kernel (8 warps, 64x32 per warp). Its SASS shows
// HMMA.16816 and no HGMMA; it reaches about 110 TFLOP/s on the H200, far below the chip's fp16 peak.
// Usage: ./hmma_on_hopper [reps]
#include <cuda_fp16.h>
#include <mma.h>

#include "example_common.cuh"
using namespace nvcuda;

__global__ void __launch_bounds__(256)
    hmma_on_hopper(const __half* __restrict__ A, const __half* __restrict__ B, float* __restrict__ C, int M,
                   int N, int K) {
  __shared__ __align__(32) __half As[128][40];  // 32 + 8 padding halves per row
  __shared__ __align__(32) __half Bs[32][136];  // 128 + 8
  int warp = threadIdx.x / 32, wm = warp / 4, wn = warp % 4, row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
  for (int k0 = 0; k0 < K; k0 += 32) {
    for (int e = threadIdx.x; e < 128 * 4; e += 256)  // 16-byte vectors
      *(int4*)&As[e / 4][(e % 4) * 8] = *(const int4*)&A[(size_t)(row0 + e / 4) * K + k0 + (e % 4) * 8];
    for (int e = threadIdx.x; e < 32 * 16; e += 256)
      *(int4*)&Bs[e / 16][(e % 16) * 8] = *(const int4*)&B[(size_t)(k0 + e / 16) * N + col0 + (e % 16) * 8];
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < 32; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a[4];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b[2];
      for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], &As[wm * 64 + i * 16][kk], 40);
      for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn * 32 + j * 16], 136);
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j)
      wmma::store_matrix_sync(&C[(size_t)(row0 + wm * 64 + i * 16) * N + col0 + wn * 32 + j * 16], acc[i][j],
                              N, wmma::mem_row_major);
}

__global__ void to_half(const float* f, __half* h, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    h[i] = __float2half(f[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 4096, N = 4096, K = 4096;
  float* tmp = device_alloc<float>((size_t)M * K);
  __half* A = device_alloc<__half>((size_t)M * K);
  __half* B = device_alloc<__half>((size_t)K * N);
  float* C = device_alloc<float>((size_t)M * N);
  fill_random<<<1024, 256>>>(tmp, (size_t)M * K, 13, 0.5f, 1.5f);
  CK(cudaGetLastError());
  to_half<<<1024, 256>>>(tmp, A, (size_t)M * K);
  CK(cudaGetLastError());
  fill_random<<<1024, 256>>>(tmp, (size_t)K * N, 14, 0.5f, 1.5f);
  CK(cudaGetLastError());
  to_half<<<1024, 256>>>(tmp, B, (size_t)K * N);
  CK(cudaGetLastError());
  auto launch = [&] {
    hmma_on_hopper<<<dim3(N / 128, M / 128), 256>>>(A, B, C, M, N, K);
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
  time_kernel("hmma_on_hopper", reps, launch);
  free_device({tmp, A, B, C});
  printf("ok\n");
  return 0;
}
