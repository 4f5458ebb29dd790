// sgemm_regtile_pointnet_mlp: blind set 8, kind 5 (an FP32 SIMT GEMM that should use tensor cores).
// The shared MLP of a PointNet encoder (a 1x1 convolution over points): Y[points][256] = X[points][128] W^T
// for 262,144 points of a batch of point clouds, a hand-written register-tiled SGEMM (64 x 64 block tile,
// 4 x 4 outputs per thread, k-tiles of 16 staged in shared memory), the fp32 FMA pipe at best: 17.2 GFLOP,
// ~0.4 ms at the 51 TFLOP/s fp32 peak, where TF32/BF16 tensor cores (cuBLAS, or wgmma) would take a fraction.
// Usage: ./sgemm_regtile_pointnet_mlp [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTile = 64, kK = 16, kIn = 128, kOut = 256;

// Y[M][N] = X[M][K] * W[N][K]^T, M % 64 == 0, N % 64 == 0, K % 16 == 0; 256 threads, 4 x 4 outputs each.
__global__ void sgemm_regtile_pointnet_mlp(const float* __restrict__ X, const float* __restrict__ W,
                                           float* __restrict__ Y, int M, int N, int K) {
  __shared__ float sx[kK][kTile + 4];
  __shared__ float sw[kK][kTile + 4];
  const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  float acc[4][4] = {};
  for (int k0 = 0; k0 < K; k0 += kK) {
    for (int e = threadIdx.x; e < kTile * kK; e += 256) {
      int r = e / kK, k = e % kK;
      sx[k][r] = X[size_t(row0 + r) * K + k0 + k];
      sw[k][r] = W[size_t(col0 + r) * K + k0 + k];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kK; ++k) {
      float a[4], b[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) a[i] = sx[k][ty * 4 + i], b[i] = sw[k][tx * 4 + i];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) Y[size_t(row0 + ty * 4 + i) * N + col0 + tx * 4 + j] = acc[i][j];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 262144, N = kOut, K = kIn;
  float* X = device_alloc<float>(size_t(M) * K);
  float* W = device_alloc<float>(size_t(N) * K);
  float* Y = device_alloc<float>(size_t(M) * N);
  fill_random<<<2048, 256>>>(X, size_t(M) * K, 891, -1.0f, 1.0f);
  fill_random<<<128, 256>>>(W, size_t(N) * K, 892, -0.1f, 0.1f);
  CK(cudaGetLastError());
  auto launch = [&] {
    sgemm_regtile_pointnet_mlp<<<dim3(N / kTile, M / kTile), 256>>>(X, W, Y, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> xr(K), wr(K);
  for (auto [m, o] : {std::pair{0, 0}, {100000, 255}, {M - 1, 77}}) {
    CK(cudaMemcpy(xr.data(), X + size_t(m) * K, K * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(wr.data(), W + size_t(o) * K, K * 4, cudaMemcpyDeviceToHost));
    double want = 0;
    for (int k = 0; k < K; ++k) want += double(xr[k]) * wr[k];
    float got = read_back(Y + size_t(m) * N + o);
    if (!(std::fabs(got - want) <= 1e-4 * (1 + std::fabs(want))))
      fail("wrong Y(%d,%d): %g vs %g\n", m, o, got, want);
  }
  time_kernel("sgemm_regtile_pointnet_mlp", reps, launch);
  free_device({X, W, Y});
  printf("ok\n");
  return 0;
}
