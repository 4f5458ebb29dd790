// mufu_studentt_mixture: blind set 5, kind 1 (transcendental/division-bound code that could use intrinsics).
// Log-likelihood of 4 M daily returns under a 32-component Student-t mixture (a risk model's tail fit),
// written straight from the formula: per component an IEEE division (x - mu)^2 / (nu s^2), logf of the
// scale and of 1 + z, and expf for the running log-sum-exp, all accurate versions; 128 M component terms
// on 8 bytes of global traffic per return. The MUFU (LG2, EX2, RCP) operations and the division and
// logf/expf fix-up sequences are the instruction mix; per-component constants hoisted to the host
// (log s, 1 / (nu s^2), (nu + 1) / 2) plus __logf/__expf would leave a few FMAs per term.
// Usage: ./mufu_studentt_mixture [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kComp = 32;

struct Component {
  float log_w, mu, s, nu;
};

__global__ void mufu_studentt_mixture(const float* __restrict__ x, const Component* __restrict__ comps,
                                      float* __restrict__ loglik, int n) {
  __shared__ Component c[kComp];
  if (threadIdx.x < kComp) c[threadIdx.x] = comps[threadIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float xi = x[i];
  float m = -INFINITY, acc = 0.0f;
  for (int k = 0; k < kComp; ++k) {
    float d = xi - c[k].mu;
    float z = d * d / (c[k].nu * c[k].s * c[k].s);
    float lp = c[k].log_w - logf(c[k].s) - 0.5f * (c[k].nu + 1.0f) * logf(1.0f + z);
    if (lp > m) {
      acc = acc * expf(m - lp) + 1.0f;
      m = lp;
    } else {
      acc += expf(lp - m);
    }
  }
  loglik[i] = m + logf(acc);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22;
  std::vector<Component> hc(kComp);
  for (int k = 0; k < kComp; ++k)
    hc[k] = {std::log(1.0f / kComp), -0.05f + 0.1f * k / kComp, 0.005f + 0.001f * k, 3.0f + 0.25f * k};
  float* x = device_alloc<float>(n);
  Component* comps = device_alloc<Component>(kComp);
  float* ll = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(x, n, 621, -0.08f + 1e-6f, 0.08f);
  CK(cudaMemcpy(comps, hc.data(), sizeof(Component) * kComp, cudaMemcpyHostToDevice));
  CK(cudaGetLastError());
  auto launch = [&] {
    mufu_studentt_mixture<<<n / 256, 256>>>(x, comps, ll, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 17, 2000000, n - 1}) {
    double xi = read_back(x + i), m = -INFINITY;
    std::vector<double> lp(kComp);
    for (int k = 0; k < kComp; ++k) {
      double d = xi - hc[k].mu, z = d * d / (double(hc[k].nu) * hc[k].s * hc[k].s);
      lp[k] = hc[k].log_w - std::log(double(hc[k].s)) - 0.5 * (hc[k].nu + 1.0) * std::log1p(z);
      m = std::max(m, lp[k]);
    }
    double acc = 0;
    for (double v : lp) acc += std::exp(v - m);
    double want = m + std::log(acc);
    float got = read_back(ll + i);
    if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-4))
      fail("wrong loglik at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("mufu_studentt_mixture", reps, launch);
  free_device({x, comps, ll});
  printf("ok\n");
  return 0;
}
