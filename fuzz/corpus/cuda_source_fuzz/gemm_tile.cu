#define BM 64
#define BK (BM / 8)
template <int N>
__global__ void gemm(const float* __restrict__ A, const float* B, float* C, int M, int K) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BM][BK + 1];
  int row = blockIdx.y * BM + threadIdx.y, col = blockIdx.x * BM + threadIdx.x;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += BK) {
    As[threadIdx.y][threadIdx.x] = A[row * K + k0 + threadIdx.x];
    __syncthreads();
    for (int k = 0; k < BK; ++k) acc += As[k][threadIdx.y] * Bs[threadIdx.x][k];
    __syncthreads();
  }
  C[col * M + row] = acc / (float)K;
}
