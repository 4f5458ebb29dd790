// Tunable register-blocked SIMT GEMM, C = A * B, f32 (docs/tuning.md): a
// BLOCK_M x BLOCK_N tile of C per block of (BLOCK_M / THREAD_M) x
// (BLOCK_N / THREAD_N) threads, each holding THREAD_M x THREAD_N outputs in
// registers; k-slices of BLOCK_K staged in shared memory (A stored
// transposed so both operands are read as float4 along the tile; each tile
// row padded by PAD floats against bank conflicts of the transposed stores). Global
// loads are float4 when the row length allows it and the vector lies inside
// the matrix, scalar with zero fill otherwise. The sum over k runs in
// increasing order with fma, like the reference. Correct for any M, N, K >= 1.
// Compiles as is with the defaults below.
//
// kopt:tune BLOCK_M values=32,64,128,256 role=tile_y
// kopt:tune BLOCK_N values=32,64,128,256 role=tile_x
// kopt:tune BLOCK_K values=8,16 role=tile_k
// kopt:tune THREAD_M values=4,8 role=thread_tile_y
// kopt:tune THREAD_N values=4,8 role=thread_tile_x
// kopt:tune PAD values=0,4 role=padding
// kopt:restrict BLOCK_M * BLOCK_N / (THREAD_M * THREAD_N) <= 1024
// kopt:restrict BLOCK_M * BLOCK_N / (THREAD_M * THREAD_N) >= 64
// kopt:restrict (BLOCK_M + BLOCK_N + 2 * PAD) * BLOCK_K <= 12288
#ifndef BLOCK_M
#define BLOCK_M 128
#endif
#ifndef BLOCK_N
#define BLOCK_N 128
#endif
#ifndef BLOCK_K
#define BLOCK_K 8
#endif
#ifndef THREAD_M
#define THREAD_M 8
#endif
#ifndef THREAD_N
#define THREAD_N 8
#endif
#ifndef PAD
#define PAD 0
#endif

namespace {
constexpr int kThreadsN = BLOCK_N / THREAD_N;
constexpr int kThreads = (BLOCK_M / THREAD_M) * kThreadsN;

// a_tile[k][m] = A[block_row + m][k0 + k] (0 outside A).
__device__ __forceinline__ void LoadTileA(const float* A, int M, int K, int block_row, int k0,
                                          float (*a_tile)[BLOCK_M + PAD]) {
  for (int chunk = threadIdx.x; chunk < BLOCK_M * BLOCK_K / 4; chunk += kThreads) {
    const int m = chunk / (BLOCK_K / 4);
    const int k = (chunk % (BLOCK_K / 4)) * 4;
    const int row = block_row + m;
    const int col = k0 + k;
    float v[4];
    if (row < M && K % 4 == 0 && col + 3 < K) {
      const float4 q = *reinterpret_cast<const float4*>(A + static_cast<size_t>(row) * K + col);
      v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q) v[q] = (row < M && col + q < K) ? A[static_cast<size_t>(row) * K + col + q] : 0.0f;
    }
#pragma unroll
    for (int q = 0; q < 4; ++q) a_tile[k + q][m] = v[q];
  }
}

// b_tile[k][n] = B[k0 + k][block_col + n] (0 outside B).
__device__ __forceinline__ void LoadTileB(const float* B, int N, int K, int block_col, int k0,
                                          float (*b_tile)[BLOCK_N + PAD]) {
  for (int chunk = threadIdx.x; chunk < BLOCK_K * BLOCK_N / 4; chunk += kThreads) {
    const int k = chunk / (BLOCK_N / 4);
    const int n = (chunk % (BLOCK_N / 4)) * 4;
    const int row = k0 + k;
    const int col = block_col + n;
    if (row < K && N % 4 == 0 && col + 3 < N) {
      *reinterpret_cast<float4*>(&b_tile[k][n]) = *reinterpret_cast<const float4*>(B + static_cast<size_t>(row) * N + col);
    } else {
#pragma unroll
      for (int q = 0; q < 4; ++q)
        b_tile[k][n + q] = (row < K && col + q < N) ? B[static_cast<size_t>(row) * N + col + q] : 0.0f;
    }
  }
}

// Reads `count` floats (a multiple of 4) from shared memory as float4s.
template <int count>
__device__ __forceinline__ void ReadVector(const float* source, float* destination) {
#pragma unroll
  for (int q = 0; q < count; q += 4) {
    const float4 v = *reinterpret_cast<const float4*>(source + q);
    destination[q] = v.x, destination[q + 1] = v.y, destination[q + 2] = v.z, destination[q + 3] = v.w;
  }
}
}  // namespace

__global__ void __launch_bounds__(kThreads)
    gemm_f32_tunable_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  __shared__ __align__(16) float a_tile[BLOCK_K][BLOCK_M + PAD];
  __shared__ __align__(16) float b_tile[BLOCK_K][BLOCK_N + PAD];
  const int block_row = blockIdx.y * BLOCK_M;
  const int block_col = blockIdx.x * BLOCK_N;
  const int thread_row = (threadIdx.x / kThreadsN) * THREAD_M;
  const int thread_col = (threadIdx.x % kThreadsN) * THREAD_N;
  float acc[THREAD_M][THREAD_N];
#pragma unroll
  for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
    for (int j = 0; j < THREAD_N; ++j) acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BLOCK_K) {
    LoadTileA(A, M, K, block_row, k0, a_tile);
    LoadTileB(B, N, K, block_col, k0, b_tile);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_K; ++k) {
      float a[THREAD_M], b[THREAD_N];
      ReadVector<THREAD_M>(&a_tile[k][thread_row], a);
      ReadVector<THREAD_N>(&b_tile[k][thread_col], b);
#pragma unroll
      for (int i = 0; i < THREAD_M; ++i)
#pragma unroll
        for (int j = 0; j < THREAD_N; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }

#pragma unroll
  for (int i = 0; i < THREAD_M; ++i) {
    const int row = block_row + thread_row + i;
    if (row >= M) break;
    const int col = block_col + thread_col;
    float* out = C + static_cast<size_t>(row) * N + col;
    if (N % 4 == 0 && col + THREAD_N - 1 < N) {
#pragma unroll
      for (int j = 0; j < THREAD_N; j += 4)
        *reinterpret_cast<float4*>(out + j) = make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
    } else {
#pragma unroll
      for (int j = 0; j < THREAD_N; ++j)
        if (col + j < N) out[j] = acc[i][j];
    }
  }
}

extern "C" void gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  const dim3 blocks((N + BLOCK_N - 1) / BLOCK_N, (M + BLOCK_M - 1) / BLOCK_M);
  gemm_f32_tunable_kernel<<<blocks, kThreads, 0, stream>>>(A, B, C, M, N, K);
}
