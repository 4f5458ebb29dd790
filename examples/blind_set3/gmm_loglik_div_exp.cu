// gmm_loglik_div_exp: blind set 3, kind 1 (the busy unit is the wrong one: MUFU and IEEE division).
// Log-likelihood of 4 M scalar samples under a 64-component 1-D Gaussian mixture, written straight from
// the formula: for each component z = (x - mu) / sigma (an IEEE division), a term expf(-0.5 z^2) * w / sigma
// (a full-accuracy expf and a second IEEE division), summed, then logf. The parameters sit in constant
// memory and the samples are read once, so the divisions' reciprocal sequences and the accurate
// exponentials are the whole cost: precomputed 1/sigma and w/sigma with __expf (or exp2f of a
// pre-scaled argument) would do the same work in a fraction of the instructions.
// Usage: ./gmm_loglik_div_exp [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kComponents = 64;
__constant__ float c_mu[kComponents], c_sigma[kComponents], c_weight[kComponents];

__global__ void gmm_loglik_div_exp(const float* __restrict__ x, float* __restrict__ loglik, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  float p = 0.0f;
  for (int k = 0; k < kComponents; ++k) {
    float z = (v - c_mu[k]) / c_sigma[k];
    p += c_weight[k] * expf(-0.5f * z * z) / c_sigma[k];
  }
  loglik[i] = logf(p * 0.3989422804f);  // 1 / sqrt(2 pi)
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22;
  float mu[kComponents], sigma[kComponents], weight[kComponents];
  for (int k = 0; k < kComponents; ++k) {
    mu[k] = -4.0f + 8.0f * k / kComponents;
    sigma[k] = 0.3f + 0.02f * (k % 7);
    weight[k] = 1.0f / kComponents;
  }
  CK(cudaMemcpyToSymbol(c_mu, mu, sizeof(mu)));
  CK(cudaMemcpyToSymbol(c_sigma, sigma, sizeof(sigma)));
  CK(cudaMemcpyToSymbol(c_weight, weight, sizeof(weight)));
  float* x = device_alloc<float>(n);
  float* loglik = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(x, n, 333, -4.0f, 4.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    gmm_loglik_div_exp<<<(n + 255) / 256, 256>>>(x, loglik, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 99999, n - 1}) {
    double v = read_back(x + i), p = 0;
    for (int k = 0; k < kComponents; ++k) {
      double z = (v - mu[k]) / sigma[k];
      p += weight[k] * exp(-0.5 * z * z) / sigma[k];
    }
    double want = log(p * 0.3989422804014327);
    float got = read_back(loglik + i);
    if (!(fabs(got - want) <= 1e-4 * fabs(want) + 1e-5)) fail("wrong result at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("gmm_loglik_div_exp", reps, launch);
  free_device({x, loglik});
  printf("ok\n");
  return 0;
}
