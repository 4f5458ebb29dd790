// hgemm_naive_linear: blind set 4, kind 5 (a SIMT GEMM that should use tensor cores).
// A first-draft fp16 linear layer y = x W (x [4096 x 2048], W already transposed to [2048 x 4096],
// fp16 in and out, fp32 accumulation): one thread per output element, a 16 x 16 thread block, and a plain
// k loop that converts both fp16 operands and does one FFMA. The W reads are coalesced across the block's
// x threads and the x reads are broadcasts, all served mostly by L1/L2; no shared-memory tiling, no
// register blocking. 69 GFLOP as scalar FFMA on fp16 data that could go straight into the tensor cores
// (cuBLAS or a wgmma/mma kernel would be one to two orders of magnitude faster).
// Usage: ./hgemm_naive_linear [reps]
#include <cuda_fp16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void to_half_scaled(const float* __restrict__ in, __half* __restrict__ out, size_t n, float s) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2half(in[i] * s);
}

__global__ void hgemm_naive_linear(const __half* __restrict__ x, const __half* __restrict__ w,
                                   __half* __restrict__ y, int M, int N, int K) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < K; ++k)
    acc += __half2float(x[size_t(row) * K + k]) * __half2float(w[size_t(k) * N + col]);
  y[size_t(row) * N + col] = __float2half(acc);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 4096, N = 4096, K = 2048;
  float* staging = device_alloc<float>(size_t(N) * K);
  __half* x = device_alloc<__half>(size_t(M) * K);
  __half* w = device_alloc<__half>(size_t(K) * N);
  __half* y = device_alloc<__half>(size_t(M) * N);
  fill_random<<<2048, 256>>>(staging, size_t(M) * K, 416, 0.5f, 1.5f);
  to_half_scaled<<<2048, 256>>>(staging, x, size_t(M) * K, 1.0f);
  fill_random<<<2048, 256>>>(staging, size_t(K) * N, 417, 0.5f, 1.5f);
  to_half_scaled<<<2048, 256>>>(staging, w, size_t(K) * N, 1.0f / 128);
  CK(cudaGetLastError());
  auto launch = [&] {
    hgemm_naive_linear<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(x, w, y, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__half> hx(K), hcol(K);
  for (int r : {0, 2047, M - 1}) {
    CK(cudaMemcpy(hx.data(), x + size_t(r) * K, K * sizeof(__half), cudaMemcpyDeviceToHost));
    for (int c : {0, 1001, N - 1}) {
      CK(cudaMemcpy2D(hcol.data(), sizeof(__half), w + c, N * sizeof(__half), sizeof(__half), K,
                      cudaMemcpyDeviceToHost));
      double want = 0;
      for (int k = 0; k < K; ++k) want += double(__half2float(hx[k])) * __half2float(hcol[k]);
      float got = __half2float(read_back(y + size_t(r) * N + c));
      if (!(fabs(got - want) <= 2e-3 * fabs(want)))
        fail("wrong result (%d, %d): %f vs %f\n", r, c, got, want);
    }
  }
  time_kernel("hgemm_naive_linear", reps, launch);
  free_device({staging, x, w, y});
  printf("ok\n");
  return 0;
}
