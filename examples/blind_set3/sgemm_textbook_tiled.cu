// sgemm_textbook_tiled: blind set 3, kind 5 (an FP32 SIMT GEMM that should use tensor cores).
// The CUDA programming guide's shared-memory GEMM: 16 x 16 tiles of A and B staged in shared memory, one
// output element per thread, C [2,048 x 3,072] = A [2,048 x 1,024] B [1,024 x 3,072] in float (12.9 GFLOP).
// Correct and coalesced, but every FFMA needs two shared-memory loads and the whole product runs on
// the FP32 pipe; a TF32 (or BF16) tensor-core GEMM — cuBLAS, or wgmma/mma.sync — is several times faster
// where the tolerance allows, far more than any retuning of this loop.
// Usage: ./sgemm_textbook_tiled [reps]
#include "../kernels/example_common.cuh"
// after example_common.cuh, whose helpers it uses
#include "../blind_set/blind_common.cuh"

constexpr int kTile = 16;

__global__ void sgemm_textbook_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                     float* __restrict__ C, int M, int N, int K) {
  __shared__ float As[kTile][kTile];
  __shared__ float Bs[kTile][kTile];
  int row = blockIdx.y * kTile + threadIdx.y, col = blockIdx.x * kTile + threadIdx.x;
  float sum = 0.0f;
  for (int t = 0; t < K; t += kTile) {
    As[threadIdx.y][threadIdx.x] = A[(size_t)row * K + t + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(size_t)(t + threadIdx.y) * N + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k) sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  C[(size_t)row * N + col] = sum;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 2048, N = 3072, K = 1024;
  float* A = device_alloc<float>(size_t(M) * K);
  float* B = device_alloc<float>(size_t(K) * N);
  float* C = device_alloc<float>(size_t(M) * N);
  fill_random<<<1024, 256>>>(A, size_t(M) * K, 317, 0.5f, 1.5f);
  fill_random<<<1024, 256>>>(B, size_t(K) * N, 318, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    sgemm_textbook_tiled<<<dim3(N / kTile, M / kTile), dim3(kTile, kTile)>>>(A, B, C, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> arow(K), bcol(K);
  for (int i : {0, 1000, M - 1}) {
    CK(cudaMemcpy(arow.data(), A + size_t(i) * K, K * sizeof(float), cudaMemcpyDeviceToHost));
    for (int j : {0, 2222, N - 1}) {
      CK(cudaMemcpy2D(bcol.data(), sizeof(float), B + j, N * sizeof(float), sizeof(float), K,
                      cudaMemcpyDeviceToHost));
      check_gemm_element(arow.data(), bcol.data(), K, read_back(C + size_t(i) * N + j), 1e-4);
    }
  }
  time_kernel("sgemm_textbook_tiled", reps, launch);
  free_device({A, B, C});
  printf("ok\n");
  return 0;
}
