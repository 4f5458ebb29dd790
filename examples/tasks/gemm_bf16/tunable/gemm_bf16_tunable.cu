// Tunable bf16 GEMM on tensor cores (nvcuda::wmma, 16x16x16 bf16 -> f32;
// docs/tuning.md): a block of WARPS_M x WARPS_N warps computes a
// (WARPS_M * FRAGS_M * 16) x (WARPS_N * FRAGS_N * 16) tile of C, each warp
// FRAGS_M x FRAGS_N accumulator fragments; k-slices of BLOCK_K staged in
// shared memory (rows padded by 8 elements against bank conflicts). Global
// loads are 16-byte vectors when the row length is a multiple of 8 and the
// vector lies inside the matrix, element-wise with zero fill otherwise. The
// epilogue goes through a per-warp shared staging tile with bounds checks.
// Correct for any M, N, K >= 1. Compiles as is with the defaults below.
//
// kopt:tune WARPS_M values=1,2,4,8 role=block_size
// kopt:tune WARPS_N values=1,2,4,8 role=block_size
// kopt:tune FRAGS_M values=1,2,4 role=thread_tile_y
// kopt:tune FRAGS_N values=1,2,4 role=thread_tile_x
// kopt:tune BLOCK_K values=16,32,64 role=tile_k
// kopt:restrict WARPS_M * WARPS_N <= 16
// kopt:restrict WARPS_M * FRAGS_M * 16 >= 64
// kopt:restrict WARPS_N * FRAGS_N * 16 >= 64
// kopt:restrict 2 * (WARPS_M * FRAGS_M * 16 * (BLOCK_K + 8) + BLOCK_K * (WARPS_N * FRAGS_N * 16 + 8)) + 1024 * WARPS_M * WARPS_N <= 49152
#include <mma.h>

#ifndef WARPS_M
#define WARPS_M 2
#endif
#ifndef WARPS_N
#define WARPS_N 4
#endif
#ifndef FRAGS_M
#define FRAGS_M 4
#endif
#ifndef FRAGS_N
#define FRAGS_N 2
#endif
#ifndef BLOCK_K
#define BLOCK_K 32
#endif

namespace {
constexpr int kBlockM = WARPS_M * FRAGS_M * 16;
constexpr int kBlockN = WARPS_N * FRAGS_N * 16;
constexpr int kPad = 8;
constexpr int kLdA = BLOCK_K + kPad;
constexpr int kLdB = kBlockN + kPad;
constexpr int kWarps = WARPS_M * WARPS_N;
constexpr int kThreads = kWarps * 32;

using Bits = unsigned short;  // bf16 moved as raw bits; 0 is +0.0

// a_tile[m][k] = A[block_row + m][k0 + k] (0 outside A).
__device__ __forceinline__ void LoadTileA(const Bits* A, int M, int K, int block_row, int k0, Bits* a_tile) {
  for (int chunk = threadIdx.x; chunk < kBlockM * BLOCK_K / 8; chunk += kThreads) {
    const int m = chunk / (BLOCK_K / 8);
    const int k = (chunk % (BLOCK_K / 8)) * 8;
    const int row = block_row + m;
    const int col = k0 + k;
    Bits* dst = a_tile + m * kLdA + k;
    if (row < M && K % 8 == 0 && col + 7 < K) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(A + static_cast<size_t>(row) * K + col);
    } else {
#pragma unroll
      for (int q = 0; q < 8; ++q) dst[q] = (row < M && col + q < K) ? A[static_cast<size_t>(row) * K + col + q] : Bits(0);
    }
  }
}

// b_tile[k][n] = B[k0 + k][block_col + n] (0 outside B).
__device__ __forceinline__ void LoadTileB(const Bits* B, int N, int K, int block_col, int k0, Bits* b_tile) {
  for (int chunk = threadIdx.x; chunk < BLOCK_K * kBlockN / 8; chunk += kThreads) {
    const int k = chunk / (kBlockN / 8);
    const int n = (chunk % (kBlockN / 8)) * 8;
    const int row = k0 + k;
    const int col = block_col + n;
    Bits* dst = b_tile + k * kLdB + n;
    if (row < K && N % 8 == 0 && col + 7 < N) {
      *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(B + static_cast<size_t>(row) * N + col);
    } else {
#pragma unroll
      for (int q = 0; q < 8; ++q) dst[q] = (row < K && col + q < N) ? B[static_cast<size_t>(row) * N + col + q] : Bits(0);
    }
  }
}
}  // namespace

__global__ void __launch_bounds__(kThreads)
    gemm_bf16_tunable_kernel(const Bits* A, const Bits* B, float* C, int M, int N, int K) {
  using namespace nvcuda;
  __shared__ __align__(128) Bits a_tile[kBlockM * kLdA];
  __shared__ __align__(128) Bits b_tile[BLOCK_K * kLdB];
  __shared__ __align__(128) float stage[kWarps][16 * 16];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int warp_row = (warp / WARPS_N) * (FRAGS_M * 16);
  const int warp_col = (warp % WARPS_N) * (FRAGS_N * 16);
  const int block_row = blockIdx.y * kBlockM;
  const int block_col = blockIdx.x * kBlockN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FRAGS_M][FRAGS_N];
#pragma unroll
  for (int i = 0; i < FRAGS_M; ++i)
#pragma unroll
    for (int j = 0; j < FRAGS_N; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
    LoadTileA(A, M, K, block_row, k0, a_tile);
    LoadTileB(B, N, K, block_col, k0, b_tile);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BLOCK_K; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a_frag[FRAGS_M];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b_frag[FRAGS_N];
#pragma unroll
      for (int i = 0; i < FRAGS_M; ++i) {
        wmma::load_matrix_sync(a_frag[i],
                               reinterpret_cast<const __nv_bfloat16*>(a_tile + (warp_row + i * 16) * kLdA + kk), kLdA);
      }
#pragma unroll
      for (int j = 0; j < FRAGS_N; ++j) {
        wmma::load_matrix_sync(b_frag[j], reinterpret_cast<const __nv_bfloat16*>(b_tile + kk * kLdB + warp_col + j * 16),
                               kLdB);
      }
#pragma unroll
      for (int i = 0; i < FRAGS_M; ++i)
#pragma unroll
        for (int j = 0; j < FRAGS_N; ++j) wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
    }
    __syncthreads();
  }

  float* my_stage = stage[warp];
#pragma unroll
  for (int i = 0; i < FRAGS_M; ++i) {
#pragma unroll
    for (int j = 0; j < FRAGS_N; ++j) {
      wmma::store_matrix_sync(my_stage, acc[i][j], 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 16 * 16; e += 32) {
        const int row = block_row + warp_row + i * 16 + e / 16;
        const int col = block_col + warp_col + j * 16 + e % 16;
        if (row < M && col < N) C[static_cast<size_t>(row) * N + col] = my_stage[e];
      }
      __syncwarp();
    }
  }
}

extern "C" void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                          cudaStream_t stream) {
  const dim3 blocks((N + kBlockN - 1) / kBlockN, (M + kBlockM - 1) / kBlockM);
  gemm_bf16_tunable_kernel<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<const Bits*>(A),
                                                            reinterpret_cast<const Bits*>(B), C, M, N, K);
}
