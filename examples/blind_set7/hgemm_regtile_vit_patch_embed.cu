// hgemm_regtile_vit_patch_embed: blind set 7, kind 5 (an FP16 SIMT GEMM that should use tensor cores).
// ViT-B/16 patch embedding of a 256-image batch (50,176 patches x 768 inputs -> 768 outputs, fp16 in/out,
// fp32 accumulate) as a hand-written register-tiled GEMM on the CUDA cores: 64 x 64 block tiles, 4 x 4
// outputs per thread in registers, half loads converted to float and FFMA. 59 GFLOP at best near the FP32
// SIMT ceiling (~1 ms), where the fp16 tensor cores (mma/wgmma, cuBLAS or a conv) reach ~15x the rate.
// Usage: ./hgemm_regtile_vit_patch_embed [reps]
#include <cuda_fp16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kBM = 64, kBN = 64, kBK = 16;

// A [M][K] patches, B [K][N] weights (both fp16 row-major), C [M][N] fp16; 256 threads, 4 x 4 per thread
__global__ void __launch_bounds__(256)
    hgemm_regtile_vit_patch_embed(const __half* __restrict__ A, const __half* __restrict__ B,
                                  __half* __restrict__ C, int M, int N, int K) {
  __shared__ float sa[kBK][kBM + 4], sb[kBK][kBN];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kBK) {
    for (int e = threadIdx.x; e < kBM * kBK; e += 256) {
      int r = e / kBK, k = e % kBK;
      sa[k][r] = __half2float(A[size_t(m0 + r) * K + k0 + k]);
      int kb = e / kBN, c = e % kBN;
      sb[kb][c] = __half2float(B[size_t(k0 + kb) * N + n0 + c]);
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kBK; ++k) {
      float a[4], b[4];
      for (int i = 0; i < 4; ++i) a[i] = sa[k][ty * 4 + i], b[i] = sb[k][tx * 4 + i];
      for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) C[size_t(m0 + ty * 4 + i) * N + n0 + tx * 4 + j] = __float2half(acc[i][j]);
}

__global__ void to_half(const float* in, __half* out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2half(in[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 256 * 196, N = 768, K = 768;
  float* tmp = device_alloc<float>(size_t(M) * K);
  __half* A = device_alloc<__half>(size_t(M) * K);
  __half* B = device_alloc<__half>(size_t(K) * N);
  __half* C = device_alloc<__half>(size_t(M) * N);
  fill_random<<<2048, 256>>>(tmp, size_t(M) * K, 716, -1.0f, 1.0f);
  to_half<<<2048, 256>>>(tmp, A, size_t(M) * K);
  fill_random<<<256, 256>>>(tmp, size_t(K) * N, 717, -0.05f, 0.05f);
  to_half<<<256, 256>>>(tmp, B, size_t(K) * N);
  CK(cudaGetLastError());
  auto launch = [&] {
    hgemm_regtile_vit_patch_embed<<<dim3(N / kBN, M / kBM), 256>>>(A, B, C, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__half> hb(size_t(K) * N), ha(K);
  CK(cudaMemcpy(hb.data(), B, hb.size() * 2, cudaMemcpyDeviceToHost));
  for (auto [r, c] : {std::pair{0, 0}, {25000, 700}, {M - 1, N - 1}}) {
    CK(cudaMemcpy(ha.data(), A + size_t(r) * K, K * 2, cudaMemcpyDeviceToHost));
    double want = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      double p = double(__half2float(ha[k])) * __half2float(hb[size_t(k) * N + c]);
      want += p, mag += std::fabs(p);
    }
    float got = __half2float(read_back(C + size_t(r) * N + c));
    if (!(std::fabs(got - want) <= 2e-3 * mag + 1e-3))
      fail("wrong output (%d,%d): %g vs %g\n", r, c, got, want);
  }
  time_kernel("hgemm_regtile_vit_patch_embed", reps, launch);
  free_device({tmp, A, B, C});
  printf("ok\n");
  return 0;
}
