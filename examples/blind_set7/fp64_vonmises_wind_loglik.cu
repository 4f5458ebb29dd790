// fp64_vonmises_wind_loglik: blind set 7, kind 1 (the FP64 pipe used by float code).
// Meteorology: the log-likelihood of hourly wind directions (float radians) under each of 256 candidate
// von Mises mixture components, kappa cos(theta - mu) - log(2 pi I0(kappa)), ported from a NumPy reference
// with `cos(theta - mu)` on a double mean direction and `2.0 * M_PI`: the cos runs in double (range reduction
// and polynomial, ~40 FP64 instructions) for each of 4 M observations x 256 components (1.07 G pairs) from
// shared memory (about 43 G FP64 instructions, ~2.5 ms on the FP64 pipe); global traffic is 16 MB read and
// 16 MB of per-observation maxima written. The FP64 pipe limits it; cosf or __cosf in float would do.
// Usage: ./fp64_vonmises_wind_loglik [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kComponents = 256;

__global__ void fp64_vonmises_wind_loglik(const float* __restrict__ theta, const double* __restrict__ mu,
                                          const float* __restrict__ kappa, const float* __restrict__ log_norm,
                                          float* __restrict__ best, int n) {
  __shared__ double s_mu[kComponents];
  __shared__ float s_kappa[kComponents], s_norm[kComponents];
  for (int c = threadIdx.x; c < kComponents; c += blockDim.x) {
    s_mu[c] = mu[c];
    s_kappa[c] = kappa[c];
    s_norm[c] = log_norm[c];
  }
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float t = theta[i], m = -1e30f;
  for (int c = 0; c < kComponents; ++c) {
    float ll = s_kappa[c] * cos(t - s_mu[c]) - s_norm[c];
    m = fmaxf(m, ll);
  }
  best[i] = m;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22;
  std::vector<double> hmu(kComponents);
  std::vector<float> hk(kComponents), hn(kComponents);
  for (int c = 0; c < kComponents; ++c) {
    hmu[c] = 2.0 * M_PI * c / kComponents;
    hk[c] = 0.5f + 0.05f * (c % 40);
    hn[c] = std::log(2.0 * M_PI * std::cyl_bessel_i(0.0, (double)hk[c]));
  }
  float* theta = device_alloc<float>(n);
  double* mu = device_alloc<double>(kComponents);
  float* kappa = device_alloc<float>(kComponents);
  float* lnorm = device_alloc<float>(kComponents);
  float* best = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(theta, n, 702, 0.0f, 6.2831853f);
  CK(cudaGetLastError());
  CK(cudaMemcpy(mu, hmu.data(), kComponents * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(kappa, hk.data(), kComponents * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(lnorm, hn.data(), kComponents * 4, cudaMemcpyHostToDevice));
  auto launch = [&] {
    fp64_vonmises_wind_loglik<<<n / 256, 256>>>(theta, mu, kappa, lnorm, best, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 999, n - 1}) {
    double t = read_back(theta + i), want = -1e30;
    for (int c = 0; c < kComponents; ++c)
      want = std::fmax(want, (double)(float)(hk[c] * std::cos(t - hmu[c])) - hn[c]);
    float got = read_back(best + i);
    if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-4))
      fail("wrong max loglik %d: %g vs %g\n", i, got, want);
  }
  time_kernel("fp64_vonmises_wind_loglik", reps, launch);
  free_device({theta, mu, kappa, lnorm, best});
  printf("ok\n");
  return 0;
}
