// GEMM candidate: 128 x 128 C tile per block of 256 threads, 8 x 8 outputs
// per thread held in registers, k-slices of 8 staged in shared memory (A
// stored transposed so both operands are read as float4 along the tile).
// Global loads are float4 when the row length allows it and the vector lies
// inside the matrix, scalar with zero fill otherwise. The sum over k runs in
// increasing order with fma, like the reference. Correct for any M, N, K >= 1.
constexpr int kBlockM = 128;
constexpr int kBlockN = 128;
constexpr int kBlockK = 8;
constexpr int kThreadM = 8;
constexpr int kThreadN = 8;
constexpr int kThreads = 256;

// a_tile[k][m] = A[block_row + m][k0 + k] (0 outside A).
__device__ __forceinline__ void LoadTileA(const float* A, int M, int K, int block_row, int k0,
                                          float (*a_tile)[kBlockM]) {
  const int m = threadIdx.x / 2;
  const int k = (threadIdx.x % 2) * 4;
  const int row = block_row + m;
  const int col = k0 + k;
  float v[4];
  if (row < M && K % 4 == 0 && col + 3 < K) {
    const float4 q = *reinterpret_cast<const float4*>(A + static_cast<size_t>(row) * K + col);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q)
      v[q] = (row < M && col + q < K) ? A[static_cast<size_t>(row) * K + col + q] : 0.0f;
  }
#pragma unroll
  for (int q = 0; q < 4; ++q) a_tile[k + q][m] = v[q];
}

// b_tile[k][n] = B[k0 + k][block_col + n] (0 outside B).
__device__ __forceinline__ void LoadTileB(const float* B, int N, int K, int block_col, int k0,
                                          float (*b_tile)[kBlockN]) {
  const int k = threadIdx.x / 32;
  const int n = (threadIdx.x % 32) * 4;
  const int row = k0 + k;
  const int col = block_col + n;
  if (row < K && N % 4 == 0 && col + 3 < N) {
    *reinterpret_cast<float4*>(&b_tile[k][n]) =
        *reinterpret_cast<const float4*>(B + static_cast<size_t>(row) * N + col);
  } else {
#pragma unroll
    for (int q = 0; q < 4; ++q)
      b_tile[k][n + q] = (row < K && col + q < N) ? B[static_cast<size_t>(row) * N + col + q] : 0.0f;
  }
}

__global__ void __launch_bounds__(kThreads)
    gemm_register_blocked_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ __align__(16) float a_tile[kBlockK][kBlockM];
  __shared__ __align__(16) float b_tile[kBlockK][kBlockN];
  const int block_row = blockIdx.y * kBlockM;
  const int block_col = blockIdx.x * kBlockN;
  const int thread_row = (threadIdx.x / 16) * kThreadM;  // within the tile
  const int thread_col = (threadIdx.x % 16) * kThreadN;
  float acc[kThreadM][kThreadN];
#pragma unroll
  for (int i = 0; i < kThreadM; ++i)
#pragma unroll
    for (int j = 0; j < kThreadN; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += kBlockK) {
    LoadTileA(A, M, K, block_row, k0, a_tile);
    LoadTileB(B, N, K, block_col, k0, b_tile);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBlockK; ++k) {
      float a[kThreadM], b[kThreadN];
      const float4 a0 = *reinterpret_cast<const float4*>(&a_tile[k][thread_row]);
      const float4 a1 = *reinterpret_cast<const float4*>(&a_tile[k][thread_row + 4]);
      const float4 b0 = *reinterpret_cast<const float4*>(&b_tile[k][thread_col]);
      const float4 b1 = *reinterpret_cast<const float4*>(&b_tile[k][thread_col + 4]);
      a[0] = a0.x, a[1] = a0.y, a[2] = a0.z, a[3] = a0.w, a[4] = a1.x, a[5] = a1.y, a[6] = a1.z, a[7] = a1.w;
      b[0] = b0.x, b[1] = b0.y, b[2] = b0.z, b[3] = b0.w, b[4] = b1.x, b[5] = b1.y, b[6] = b1.z, b[7] = b1.w;
#pragma unroll
      for (int i = 0; i < kThreadM; ++i)
#pragma unroll
        for (int j = 0; j < kThreadN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < kThreadM; ++i) {
    const int row = block_row + thread_row + i;
    if (row >= M) break;
    const int col = block_col + thread_col;
    float* out = C + static_cast<size_t>(row) * N + col;
    if (N % 4 == 0 && col + kThreadN - 1 < N) {
      *reinterpret_cast<float4*>(out) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
      *reinterpret_cast<float4*>(out + 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    } else {
#pragma unroll
      for (int j = 0; j < kThreadN; ++j)
        if (col + j < N) out[j] = acc[i][j];
    }
  }
}

extern "C" void gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 blocks((N + kBlockN - 1) / kBlockN, (M + kBlockM - 1) / kBlockM);
  gemm_register_blocked_kernel<<<blocks, kThreads, 0, stream>>>(A, B, C, M, N, K);
}
