// A register-tiled fp32 GEMM for the KernelBench example candidates:
// C[m][n] = epilogue(sum_k A[m][k] * B(k, n), n), A row-major M x K; B given
// row-major K x N (kBTransposed false) or as W row-major N x K (true: the
// nn.Linear layout, C = A W^T). 64 x 64 tiles, 16 x 16 threads, 4 x 4
// outputs per thread. Any M, N, K (edges guarded).
#pragma once
#include <cuda_runtime.h>

namespace kb_example {

constexpr int kTile = 64, kDepth = 16;

template <bool kBTransposed, typename Epilogue>
__global__ void __launch_bounds__(256) Sgemm(const float* __restrict__ A, const float* __restrict__ B,
                                             float* __restrict__ C, int M, int N, int K, Epilogue epilogue) {
  __shared__ float a_tile[kDepth][kTile + 4];
  __shared__ float b_tile[kDepth][kTile + 4];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kDepth) {
    for (int i = threadIdx.x; i < kTile * kDepth; i += 256) {
      int r = i / kDepth, k = i % kDepth;  // A: 64 rows x 16 k
      int gr = row0 + r, gk = k0 + k;
      a_tile[k][r] = (gr < M && gk < K) ? A[static_cast<long long>(gr) * K + gk] : 0.0f;
      if (kBTransposed) {
        int gn = col0 + r;
        b_tile[k][r] = (gn < N && gk < K) ? B[static_cast<long long>(gn) * K + gk] : 0.0f;
      }
    }
    if (!kBTransposed) {
      for (int i = threadIdx.x; i < kTile * kDepth; i += 256) {
        int k = i / kTile, c = i % kTile;
        int gk = k0 + k, gn = col0 + c;
        b_tile[k][c] = (gk < K && gn < N) ? B[static_cast<long long>(gk) * N + gn] : 0.0f;
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kDepth; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = a_tile[k][ty + 16 * i];
#pragma unroll
      for (int j = 0; j < 4; ++j) b[j] = b_tile[k][tx + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    int r = row0 + ty + 16 * i;
    if (r >= M) continue;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      int c = col0 + tx + 16 * j;
      if (c < N) C[static_cast<long long>(r) * N + c] = epilogue(acc[i][j], c);
    }
  }
}

template <bool kBTransposed, typename Epilogue>
void LaunchSgemm(const float* A, const float* B, float* C, int M, int N, int K, Epilogue epilogue,
                 cudaStream_t stream) {
  dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  Sgemm<kBTransposed><<<grid, 256, 0, stream>>>(A, B, C, M, N, K, epilogue);
}

}  // namespace kb_example
