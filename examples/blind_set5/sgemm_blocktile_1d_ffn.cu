// sgemm_blocktile_1d_ffn: blind set 5, kind 5 (a SIMT GEMM that should use tensor cores).
// The up-projection of a feed-forward block, 4096 tokens x 4096 -> 4096 in fp32, hand-written with 64 x 64
// shared-memory block tiles, BK = 8 and eight outputs per thread along a column (a "1D block-tiling" SGEMM,
// 512 threads per block): coalesced tile loads, register reuse of each B value across 8 rows, no bank
// conflicts to speak of. It is a decent FP32 FMA kernel, but it is an FP32 GEMM on CUDA cores: TF32 (or
// bf16) tensor cores through cuBLAS/CUTLASS are several times faster at the same size.
// Usage: ./sgemm_blocktile_1d_ffn [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int BM = 64, BN = 64, BK = 8, TM = 8;

// C (M x N) = A (M x K) B (K x N), all row-major; blockDim.x = BM * BN / TM = 512.
__global__ void sgemm_blocktile_1d_ffn(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  const int tcol = threadIdx.x % BN, trow = threadIdx.x / BN;  // trow in [0, 8)
  const int a_r = threadIdx.x / BK, a_c = threadIdx.x % BK;    // 64 x 8 tile of A
  const int b_r = threadIdx.x / BN, b_c = threadIdx.x % BN;    // 8 x 64 tile of B
  float acc[TM] = {};
  for (int k0 = 0; k0 < K; k0 += BK) {
    As[a_r * BK + a_c] = A[size_t(row0 + a_r) * K + k0 + a_c];
    Bs[b_r * BN + b_c] = B[size_t(k0 + b_r) * N + col0 + b_c];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float b = Bs[k * BN + tcol];
#pragma unroll
      for (int m = 0; m < TM; ++m) acc[m] += As[(trow * TM + m) * BK + k] * b;
    }
    __syncthreads();
  }
#pragma unroll
  for (int m = 0; m < TM; ++m) C[size_t(row0 + trow * TM + m) * N + col0 + tcol] = acc[m];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 4096, N = 4096, K = 4096;
  float* A = device_alloc<float>(size_t(M) * K);
  float* B = device_alloc<float>(size_t(K) * N);
  float* C = device_alloc<float>(size_t(M) * N);
  fill_random<<<2048, 256>>>(A, size_t(M) * K, 551, 0.5f, 1.5f);
  fill_random<<<2048, 256>>>(B, size_t(K) * N, 552, 0.01f, 0.02f);
  CK(cudaGetLastError());
  auto launch = [&] {
    sgemm_blocktile_1d_ffn<<<dim3(N / BN, M / BM), BM * BN / TM>>>(A, B, C, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> arow(K), bcol(K);
  for (auto [i, j] : {std::pair{0, 0}, {1234, 4095}, {4095, 77}}) {
    CK(cudaMemcpy(arow.data(), A + size_t(i) * K, K * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy2D(bcol.data(), 4, B + j, size_t(N) * 4, 4, K, cudaMemcpyDeviceToHost));
    double want = 0;
    for (int k = 0; k < K; ++k) want += double(arow[k]) * bcol[k];
    float got = read_back(C + size_t(i) * N + j);
    if (!(std::fabs(got - want) <= 1e-3 * want)) fail("wrong C(%d,%d): %f vs %f\n", i, j, got, want);
  }
  time_kernel("sgemm_blocktile_1d_ffn", reps, launch);
  free_device({A, B, C});
  printf("ok\n");
  return 0;
}
