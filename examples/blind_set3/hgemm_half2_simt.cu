// hgemm_half2_simt: blind set 3, kind 5 (a SIMT GEMM that should use tensor cores).
// An FP16 GEMM written for the SIMT cores (pre-Volta style): C [4,096 x 4,096] = A [4,096 x 2,048] B
// [2,048 x 4,096] in half, 64 x 64 block tiles staged through shared memory, each of 256 threads
// accumulating a 4 x 4 patch with half2 FMAs (HFMA2, fp16 accumulation). 68.7 GFLOP on the FMA pipe in
// fp16, when the same data in the same precision feed the FP16 tensor cores (wgmma / mma.sync, or
// cublasGemmEx) at an order of magnitude more throughput: missing tensor cores is the finding.
// Usage: ./hgemm_half2_simt [reps]
#include <cuda_fp16.h>

#include "../kernels/example_common.cuh"

constexpr int kBM = 64, kBN = 64, kBK = 16;

__global__ void hgemm_half2_simt(const __half* __restrict__ A, const __half* __restrict__ B,
                                 __half* __restrict__ C, int M, int N, int K) {
  __shared__ __half As[kBK][kBM];                          // transposed: As[k][m]
  __shared__ __half2 Bs[kBK][kBN / 2];                     // Bs[k][n / 2]
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;  // thread owns rows ty*4.., columns tx*4..
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  __half2 acc[4][2];
  for (int r = 0; r < 4; ++r) acc[r][0] = acc[r][1] = __float2half2_rn(0.0f);
  for (int k0 = 0; k0 < K; k0 += kBK) {
    // A tile 64 x 16 (1,024 halves): 4 per thread; B tile 16 x 64: 2 half2 per thread
    for (int e = threadIdx.x; e < kBM * kBK; e += 256) {
      int m = e / kBK, k = e % kBK;
      As[k][m] = A[(size_t)(m0 + m) * K + k0 + k];
    }
    for (int e = threadIdx.x; e < kBK * kBN / 2; e += 256) {
      int k = e / (kBN / 2), n2 = e % (kBN / 2);
      Bs[k][n2] = reinterpret_cast<const __half2*>(B + (size_t)(k0 + k) * N + n0)[n2];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      __half2 b0 = Bs[k][tx * 2], b1 = Bs[k][tx * 2 + 1];
#pragma unroll
      for (int r = 0; r < 4; ++r) {
        __half2 a = __half2half2(As[k][ty * 4 + r]);
        acc[r][0] = __hfma2(a, b0, acc[r][0]);
        acc[r][1] = __hfma2(a, b1, acc[r][1]);
      }
    }
    __syncthreads();
  }
  for (int r = 0; r < 4; ++r) {
    __half2* out = reinterpret_cast<__half2*>(C + (size_t)(m0 + ty * 4 + r) * N + n0 + tx * 4);
    out[0] = acc[r][0];
    out[1] = acc[r][1];
  }
}

__global__ void to_half_scaled(const float* __restrict__ in, __half* __restrict__ out, size_t n, float s) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2half(in[i] * s);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 4096, N = 4096, K = 2048;
  float* staging = device_alloc<float>(size_t(M) * K);
  __half* A = device_alloc<__half>(size_t(M) * K);
  __half* B = device_alloc<__half>(size_t(K) * N);
  __half* C = device_alloc<__half>(size_t(M) * N);
  // products average ~1/2048, so a row of K = 2,048 sums to ~1 and stays well inside fp16's range
  fill_random<<<1024, 256>>>(staging, size_t(M) * K, 319, 0.5f, 1.5f);
  to_half_scaled<<<1024, 256>>>(staging, A, size_t(M) * K, 1.0f / 32);
  fill_random<<<1024, 256>>>(staging, size_t(K) * N, 320, 0.5f, 1.5f);
  to_half_scaled<<<1024, 256>>>(staging, B, size_t(K) * N, 1.0f / 64);
  CK(cudaGetLastError());
  auto launch = [&] {
    hgemm_half2_simt<<<dim3(N / kBN, M / kBM), 256>>>(A, B, C, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__half> arow(K), bcol(K);
  for (int i : {0, 1999, M - 1}) {
    CK(cudaMemcpy(arow.data(), A + size_t(i) * K, K * sizeof(__half), cudaMemcpyDeviceToHost));
    for (int j : {0, 3333, N - 1}) {
      CK(cudaMemcpy2D(bcol.data(), sizeof(__half), B + j, N * sizeof(__half), sizeof(__half), K,
                      cudaMemcpyDeviceToHost));
      double want = 0;
      for (int k = 0; k < K; ++k) want += double(__half2float(arow[k])) * __half2float(bcol[k]);
      float got = __half2float(read_back(C + size_t(i) * N + j));
      if (!(fabs(got - want) <= 0.06 * want)) fail("wrong result (%d, %d): %f vs %f\n", i, j, got, want);
    }
  }
  time_kernel("hgemm_half2_simt", reps, launch);
  free_device({staging, A, B, C});
  printf("ok\n");
  return 0;
}
