// barrier_haar_wavelet_levels: blind set 8, kind 1 (barrier-bound: a transform synchronizing at every level).
// A multi-level 1D Haar wavelet decomposition (signal denoising front end) of 16,384 windows of 2,048
// samples, one 1,024-thread block per window in shared memory: eleven levels, each with a __syncthreads()
// before the averages/differences are computed and another before they are written back, while the active
// thread count halves every level (1,024, 512, ... 1). 268 MB of coalesced traffic (~60 us at DRAM speed);
// 22 block-wide barriers for a few FMAs per thread are the stall. Usage: ./barrier_haar_wavelet_levels [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kLen = 2048;

__global__ void barrier_haar_wavelet_levels(const float* __restrict__ x, float* __restrict__ coeffs) {
  __shared__ float s[kLen];
  __shared__ float tmp[kLen];
  const float* xw = x + size_t(blockIdx.x) * kLen;
  float* cw = coeffs + size_t(blockIdx.x) * kLen;
  const int t = threadIdx.x;
  s[t] = xw[t];
  s[t + kLen / 2] = xw[t + kLen / 2];
  __syncthreads();
  for (int len = kLen; len > 1; len >>= 1) {
    const int half = len / 2;
    if (t < half) {
      float a = s[2 * t], b = s[2 * t + 1];
      tmp[t] = (a + b) * 0.70710678f;
      tmp[half + t] = (a - b) * 0.70710678f;
    }
    __syncthreads();
    if (t < half) s[t] = tmp[t], s[half + t] = tmp[half + t];
    __syncthreads();
  }
  cw[t] = s[t];
  cw[t + kLen / 2] = s[t + kLen / 2];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int windows = 16384;
  const size_t n = size_t(windows) * kLen;
  float* x = device_alloc<float>(n);
  float* c = device_alloc<float>(n);
  fill_random<<<2048, 256>>>(x, n, 861, -1.0f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    barrier_haar_wavelet_levels<<<windows, kLen / 2>>>(x, c);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(kLen), hc(kLen);
  for (int w : {0, 999, windows - 1}) {
    CK(cudaMemcpy(hx.data(), x + size_t(w) * kLen, kLen * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), c + size_t(w) * kLen, kLen * 4, cudaMemcpyDeviceToHost));
    std::vector<double> s(hx.begin(), hx.end()), tmp(kLen);
    for (int len = kLen; len > 1; len >>= 1) {
      int half = len / 2;
      for (int t = 0; t < half; ++t)
        tmp[t] = (s[2 * t] + s[2 * t + 1]) * 0.70710678,
        tmp[half + t] = (s[2 * t] - s[2 * t + 1]) * 0.70710678;
      for (int t = 0; t < len; ++t) s[t] = tmp[t];
    }
    for (int k = 0; k < kLen; ++k)
      if (!(std::fabs(hc[k] - s[k]) <= 1e-3 * (1 + std::fabs(s[k]))))
        fail("wrong coeff %d,%d: %g vs %g\n", w, k, hc[k], s[k]);
  }
  time_kernel("barrier_haar_wavelet_levels", reps, launch);
  free_device({x, c});
  printf("ok\n");
  return 0;
}
