// bf16 GEMM candidate on tensor cores (nvcuda::wmma, 16x16x16 bf16 -> f32).
// 128 x 128 C tile per block of 8 warps (2 x 4), each warp 64 x 32 = 4 x 2
// accumulator fragments; k-slices of 32 staged in shared memory (rows padded
// by 8 elements against bank conflicts). Global loads are 16-byte vectors
// when the row length is a multiple of 8 and the vector lies inside the
// matrix, element-wise with zero fill otherwise. The epilogue goes through a
// per-warp shared staging tile with bounds checks. Correct for any
// M, N, K >= 1.
#include <mma.h>

namespace {
constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 32;
constexpr int kPad = 8;
constexpr int kLdA = kBlockK + kPad;  // 40 elements (80 bytes) per row of a_tile
constexpr int kLdB = kBlockN + kPad;  // 136 elements (272 bytes) per row of b_tile
constexpr int kThreads = 256;
constexpr int kWarpTilesM = 4;  // 16-row fragments per warp
constexpr int kWarpTilesN = 2;  // 16-column fragments per warp

using Bits = unsigned short;  // bf16 moved as raw bits; 0 is +0.0

// a_tile[m][k] = A[block_row + m][k0 + k] (0 outside A).
__device__ __forceinline__ void LoadTileA(const Bits* A, int M, int K, int block_row, int k0, Bits* a_tile) {
#pragma unroll
  for (int pass = 0; pass < 2; ++pass) {
    const int chunk = threadIdx.x + pass * kThreads;  // 512 chunks of 8 elements
    const int m = chunk / 4;
    const int k = (chunk % 4) * 8;
    const int row = block_row + m;
    const int col = k0 + k;
    Bits* dst = a_tile + m * kLdA + k;
    if (row < M && K % 8 == 0 && col + 7 < K) {
      *reinterpret_cast<uint4*>(dst) =
          *reinterpret_cast<const uint4*>(A + static_cast<size_t>(row) * K + col);
    } else {
#pragma unroll
      for (int q = 0; q < 8; ++q)
        dst[q] = (row < M && col + q < K) ? A[static_cast<size_t>(row) * K + col + q] : Bits(0);
    }
  }
}

// b_tile[k][n] = B[k0 + k][block_col + n] (0 outside B).
__device__ __forceinline__ void LoadTileB(const Bits* B, int N, int K, int block_col, int k0, Bits* b_tile) {
#pragma unroll
  for (int pass = 0; pass < 2; ++pass) {
    const int chunk = threadIdx.x + pass * kThreads;  // 512 chunks of 8 elements
    const int k = chunk / 16;
    const int n = (chunk % 16) * 8;
    const int row = k0 + k;
    const int col = block_col + n;
    Bits* dst = b_tile + k * kLdB + n;
    if (row < K && N % 8 == 0 && col + 7 < N) {
      *reinterpret_cast<uint4*>(dst) =
          *reinterpret_cast<const uint4*>(B + static_cast<size_t>(row) * N + col);
    } else {
#pragma unroll
      for (int q = 0; q < 8; ++q)
        dst[q] = (row < K && col + q < N) ? B[static_cast<size_t>(row) * N + col + q] : Bits(0);
    }
  }
}
}  // namespace

__global__ void __launch_bounds__(kThreads)
    gemm_bf16_wmma_kernel(const Bits* A, const Bits* B, float* C, int M, int N, int K) {
  using namespace nvcuda;
  __shared__ __align__(128) Bits a_tile[kBlockM * kLdA];
  __shared__ __align__(128) Bits b_tile[kBlockK * kLdB];
  __shared__ __align__(128) float stage[kThreads / 32][16 * 16];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int warp_row = (warp / 4) * (kWarpTilesM * 16);  // 0 or 64
  const int warp_col = (warp % 4) * (kWarpTilesN * 16);  // 0, 32, 64, 96
  const int block_row = blockIdx.y * kBlockM;
  const int block_col = blockIdx.x * kBlockN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[kWarpTilesM][kWarpTilesN];
#pragma unroll
  for (int i = 0; i < kWarpTilesM; ++i)
#pragma unroll
    for (int j = 0; j < kWarpTilesN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += kBlockK) {
    LoadTileA(A, M, K, block_row, k0, a_tile);
    LoadTileB(B, N, K, block_col, k0, b_tile);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBlockK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a_frag[kWarpTilesM];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b_frag[kWarpTilesN];
#pragma unroll
      for (int i = 0; i < kWarpTilesM; ++i) {
        wmma::load_matrix_sync(
            a_frag[i], reinterpret_cast<const __nv_bfloat16*>(a_tile + (warp_row + i * 16) * kLdA + kk),
            kLdA);
      }
#pragma unroll
      for (int j = 0; j < kWarpTilesN; ++j) {
        wmma::load_matrix_sync(
            b_frag[j], reinterpret_cast<const __nv_bfloat16*>(b_tile + kk * kLdB + warp_col + j * 16), kLdB);
      }
#pragma unroll
      for (int i = 0; i < kWarpTilesM; ++i)
#pragma unroll
        for (int j = 0; j < kWarpTilesN; ++j) wmma::mma_sync(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
    }
    __syncthreads();
  }

  float* my_stage = stage[warp];
#pragma unroll
  for (int i = 0; i < kWarpTilesM; ++i) {
#pragma unroll
    for (int j = 0; j < kWarpTilesN; ++j) {
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
  gemm_bf16_wmma_kernel<<<blocks, kThreads, 0, stream>>>(reinterpret_cast<const Bits*>(A),
                                                         reinterpret_cast<const Bits*>(B), C, M, N, K);
}
