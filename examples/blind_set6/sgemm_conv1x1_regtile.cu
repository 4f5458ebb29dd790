// sgemm_conv1x1_regtile: blind set 6, kind 5 (an FP32 SIMT GEMM that should use tensor cores).
// A 1x1 (pointwise) convolution of a MobileNet-style block as a GEMM, Y[1024][16384] = W[1024][1024] x
// X[1024][128*128], written as a well-tuned CUDA-core SGEMM: 128 x 128 block tiles, BK = 8, the A tile
// stored transposed, float4 global loads, 8 x 8 outputs per thread in registers (64 FFMA per 16 shared
// loads). 34 GFLOP: FFMA-bound at a good fraction of the FP32 ceiling, but the same product on the TF32
// (or bf16) tensor cores runs several times faster: that, not any tuning of the SIMT loop, is the change.
// Usage: ./sgemm_conv1x1_regtile [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;

__global__ void __launch_bounds__(256) sgemm_conv1x1_regtile(const float* __restrict__ w, const float* __restrict__ x,
                                                             float* __restrict__ y, int m, int n, int k) {
  __shared__ float as[BK][BM];
  __shared__ float bs[BK][BN];
  const int tid = threadIdx.x, tr = tid / 16, tc = tid % 16;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
    float4 a = *reinterpret_cast<const float4*>(&w[size_t(m0 + tid / 2) * k + k0 + (tid % 2) * 4]);
    as[(tid % 2) * 4 + 0][tid / 2] = a.x;
    as[(tid % 2) * 4 + 1][tid / 2] = a.y;
    as[(tid % 2) * 4 + 2][tid / 2] = a.z;
    as[(tid % 2) * 4 + 3][tid / 2] = a.w;
    *reinterpret_cast<float4*>(&bs[tid / 32][(tid % 32) * 4]) =
        *reinterpret_cast<const float4*>(&x[size_t(k0 + tid / 32) * n + n0 + (tid % 32) * 4]);
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      float ra[TM], rb[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) ra[i] = as[kk][tr * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) rb[j] = bs[kk][tc * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += ra[i] * rb[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    float* row = &y[size_t(m0 + tr * TM + i) * n + n0 + tc * TN];
    *reinterpret_cast<float4*>(row) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(row + 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int m = 1024, n = 128 * 128, k = 1024;
  float* w = device_alloc<float>(size_t(m) * k);
  float* x = device_alloc<float>(size_t(k) * n);
  float* y = device_alloc<float>(size_t(m) * n);
  fill_random<<<1024, 256>>>(w, size_t(m) * k, 631, -0.05f + 1e-6f, 0.05f);
  fill_random<<<2048, 256>>>(x, size_t(k) * n, 632, 1e-3f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    sgemm_conv1x1_regtile<<<dim3(n / BN, m / BM), 256>>>(w, x, y, m, n, k);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hw(size_t(m) * k), col(k);
  CK(cudaMemcpy(hw.data(), w, hw.size() * 4, cudaMemcpyDeviceToHost));
  for (auto [i, j] : {std::pair{0, 0}, {517, 9999}, {1023, 16383}}) {
    for (int kk = 0; kk < k; ++kk) col[kk] = read_back(x + size_t(kk) * n + j);
    double want = 0, mag = 0;
    for (int kk = 0; kk < k; ++kk) {
      want += double(hw[size_t(i) * k + kk]) * col[kk];
      mag += std::fabs(double(hw[size_t(i) * k + kk]) * col[kk]);
    }
    float got = read_back(y + size_t(i) * n + j);
    if (!(std::fabs(got - want) <= 1e-4 * mag)) fail("wrong output (%d,%d): %g vs %g\n", i, j, got, want);
  }
  time_kernel("sgemm_conv1x1_regtile", reps, launch);
  free_device({w, x, y});
  printf("ok\n");
  return 0;
}
