// bf16 GEMM candidate without tensor cores: 32 x 32 tiles of A and B are
// converted to f32 while staged in shared memory (zero outside the
// matrices); each of the 32 x 8 threads computes four outputs with f32 fma
// over k in increasing order (the reference's order). A baseline for the
// tensor-core candidate. Correct for any M, N, K >= 1.
constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;

__global__ void gemm_bf16_tile32_kernel(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M,
                                        int N, int K) {
  __shared__ float a_tile[kTile][kTile + 1];
  __shared__ float b_tile[kTile][kTile + 1];
  const int col = blockIdx.x * kTile + threadIdx.x;
  const int row0 = blockIdx.y * kTile;
  float acc[kTile / kRowsPerPass] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += kTile) {
    for (int r = threadIdx.y; r < kTile; r += kRowsPerPass) {
      const int a_row = row0 + r;
      const int a_col = k0 + threadIdx.x;
      a_tile[r][threadIdx.x] =
          (a_row < M && a_col < K) ? __bfloat162float(A[static_cast<size_t>(a_row) * K + a_col]) : 0.0f;
      const int b_row = k0 + r;
      b_tile[r][threadIdx.x] =
          (b_row < K && col < N) ? __bfloat162float(B[static_cast<size_t>(b_row) * N + col]) : 0.0f;
    }
    __syncthreads();
#pragma unroll 8
    for (int k = 0; k < kTile; ++k) {
      const float b = b_tile[k][threadIdx.x];
#pragma unroll
      for (int i = 0; i < kTile / kRowsPerPass; ++i) {
        acc[i] = fmaf(a_tile[threadIdx.y + i * kRowsPerPass][k], b, acc[i]);
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < kTile / kRowsPerPass; ++i) {
    const int row = row0 + threadIdx.y + i * kRowsPerPass;
    if (row < M && col < N) C[static_cast<size_t>(row) * N + col] = acc[i];
  }
}

extern "C" void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, float* C, int M, int N, int K,
                          cudaStream_t stream) {
  const dim3 threads(kTile, kRowsPerPass);
  const dim3 blocks((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  gemm_bf16_tile32_kernel<<<blocks, threads, 0, stream>>>(A, B, C, M, N, K);
}
