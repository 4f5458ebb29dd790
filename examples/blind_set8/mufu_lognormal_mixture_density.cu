// mufu_lognormal_mixture_density: blind set 8, kind 1 (transcendental / division-bound code).
// Insurance claim-size modelling: the density of a 128-component shifted-lognormal mixture at 2 M claim
// amounts, written from the textbook formula per component: logf(x - shift), an accurate expf and two IEEE
// divisions (by 2 sigma^2 and by (x - shift) sigma sqrt(2 pi)) per (claim, component) pair: 268 M pairs of
// MUFU LG2/EX2/RCP plus range reduction, Newton steps and slow-path checks, against 16 MB of traffic.
// Hoisted 1/sigma terms, __logf/__expf and one log per claim would remove most of the instruction stream.
// Usage: ./mufu_lognormal_mixture_density [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kComp = 128;

__global__ void mufu_lognormal_mixture_density(const float* __restrict__ x, const float4* __restrict__ comp,
                                               float* __restrict__ density, int n) {
  __shared__ float4 s[kComp];  // weight, mu, sigma, shift
  for (int c = threadIdx.x; c < kComp; c += blockDim.x) s[c] = comp[c];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = x[i], acc = 0.0f;
  for (int c = 0; c < kComp; ++c) {
    float y = fmaxf(xi - s[c].w, 1e-3f);
    float z = logf(y) - s[c].y;
    acc += s[c].x * expf(-z * z / (2.0f * s[c].z * s[c].z)) / (y * s[c].z * 2.5066283f);
  }
  density[i] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 2 << 20;
  float* x = device_alloc<float>(n);
  float* d = device_alloc<float>(n);
  float* comp = device_alloc<float>(4 * kComp);
  fill_random<<<1024, 256>>>(x, n, 821, 100.0f, 100000.0f);
  CK(cudaGetLastError());
  std::vector<float> hc(4 * kComp);
  for (int c = 0; c < kComp; ++c)
    hc[4 * c] = 1.0f / kComp, hc[4 * c + 1] = 5.0f + 0.04f * c, hc[4 * c + 2] = 0.5f + 0.01f * c,
           hc[4 * c + 3] = 0.2f * c;
  CK(cudaMemcpy(comp, hc.data(), hc.size() * 4, cudaMemcpyHostToDevice));
  auto launch = [&] {
    mufu_lognormal_mixture_density<<<(n + 255) / 256, 256>>>(x, (const float4*)comp, d, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 99999, n - 1}) {
    double xi = read_back(x + i), want = 0;
    for (int c = 0; c < kComp; ++c) {
      double y = std::max(xi - hc[4 * c + 3], 1e-3), z = std::log(y) - hc[4 * c + 1], sg = hc[4 * c + 2];
      want += hc[4 * c] * std::exp(-z * z / (2 * sg * sg)) / (y * sg * 2.5066283);
    }
    float got = read_back(d + i);
    if (!(std::fabs(got - want) <= 1e-3 * std::fabs(want) + 1e-12))
      fail("wrong density %d: %g vs %g\n", i, got, want);
  }
  time_kernel("mufu_lognormal_mixture_density", reps, launch);
  free_device({x, d, comp});
  printf("ok\n");
  return 0;
}
