// hmma_on_hopper: PLANTED BOTTLENECK = tensor-core GEMM on Hopper's older path (HMMA via wmma/mma.sync)
// instead of warpgroup MMA (wgmma -> HGMMA) with TMA. C = A * B, fp16 in, fp32 accumulate,
// M = N = K = 4096: a 128x128x32 shared-memory tiled wmma kernel (8 warps, 64x32 per warp). Its SASS shows
// HMMA.16816 and no HGMMA; it reaches about 110 TFLOP/s on the H200, far below the chip's fp16 peak.
// Usage: ./hmma_on_hopper [reps]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                             \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

// Non-zero pseudo-random values in [lo, hi) (lo > 0), generated on the device.
__global__ void fill_random(float* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed * 0x9e3779b9u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    p[i] = lo + (hi - lo) * ((h >> 8) * (1.0f / 16777216.0f));
  }
}

// Times `launch` reps times with CUDA events (after the first, profiled launch) and prints the median.
template <class F>
static void time_kernel(const char* name, int reps, F launch) {
  if (reps <= 0) return;
  std::vector<float> t(reps);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&t[r], a, b));
  }
  std::sort(t.begin(), t.end());
  printf("TIME %s median_us=%.2f min_us=%.2f reps=%d\n", name, t[reps / 2] * 1e3f, t[0] * 1e3f, reps);
}
#include <cuda_fp16.h>
#include <mma.h>
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
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int M = 4096, N = 4096, K = 4096;
  float *tmp, *C;
  __half *A, *B;
  CK(cudaMalloc(&tmp, (size_t)M * K * sizeof(float)));
  CK(cudaMalloc(&A, (size_t)M * K * sizeof(__half)));
  CK(cudaMalloc(&B, (size_t)K * N * sizeof(__half)));
  CK(cudaMalloc(&C, (size_t)M * N * sizeof(float)));
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
    if (fabs(ref - hC[(size_t)r * N + c]) > 1e-3 * fabs(ref)) {
      fprintf(stderr, "wrong result\n");
      return 1;
    }
  }
  time_kernel("hmma_on_hopper", reps, launch);
  CK(cudaFree(tmp));
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
  printf("ok\n");
  return 0;
}
