// mufu_poisson_nll_templates: blind set 4, kind 1 (the busy unit is the wrong one: IEEE division and
// an accurate logf per term).
// Source detection in a photon-count image: for each of 2 M pixels, the Poisson negative log-likelihood
// of 48 candidate point-source templates (a Lorentzian profile lam = bg + a / (1 + r^2 / w^2)) is
// nll = lam - k log(lam), and the best template and its nll are kept. Per template: a handful of FMAs
// for r^2, two IEEE divisions (r^2 / w^2 and a / (...)) and an accurate logf: MUFU.RCP/LG2 and the
// division's refinement and range-check sequences are most of the instruction mix; the pixel's 12 bytes
// are read once. Precomputed 1 / w^2, one reciprocal per term and __logf would do.
// Usage: ./mufu_poisson_nll_templates [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTemplates = 48, kWidth = 2048;

struct Template {
  float cx, cy, amp, w2;
};
__constant__ Template c_templates[kTemplates];

__global__ void mufu_poisson_nll_templates(const float* __restrict__ counts, const float* __restrict__ bg,
                                           int n, float* __restrict__ best_nll, int* __restrict__ best_t) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float k = counts[i], b = bg[i];
  float px = float(i % kWidth) * (1.0f / kWidth), py = float(i / kWidth) * (1.0f / kWidth);
  float best = INFINITY;
  int arg = 0;
  for (int t = 0; t < kTemplates; ++t) {
    Template tp = c_templates[t];
    float dx = px - tp.cx, dy = py - tp.cy;
    float r2 = dx * dx + dy * dy;
    float lam = b + tp.amp / (1.0f + r2 / tp.w2);
    float nll = lam - k * logf(lam);
    if (nll < best) {
      best = nll;
      arg = t;
    }
  }
  best_nll[i] = best;
  best_t[i] = arg;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = kWidth * 1024;
  float* counts = device_alloc<float>(n);
  float* bg = device_alloc<float>(n);
  float* best = device_alloc<float>(n);
  int* arg = device_alloc<int>(n);
  fill_random<<<1024, 256>>>(counts, n, 404, 0.5f, 20.0f);
  fill_random<<<1024, 256>>>(bg, n, 405, 0.5f, 2.0f);
  CK(cudaGetLastError());
  Template ht[kTemplates];
  for (int t = 0; t < kTemplates; ++t)
    ht[t] = {float((t * 37) % 48) / 48.0f, float((t * 11) % 24) / 48.0f, 2.0f + 0.5f * (t % 7),
             0.0004f * (1 + t % 5)};
  CK(cudaMemcpyToSymbol(c_templates, ht, sizeof(ht)));
  auto launch = [&] {
    mufu_poisson_nll_templates<<<(n + 255) / 256, 256>>>(counts, bg, n, best, arg);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 4099, 1000000, n - 1}) {
    double k = read_back(counts + i), b = read_back(bg + i);
    double px = double(i % kWidth) / kWidth, py = double(i / kWidth) / kWidth, want = 1e300;
    for (int t = 0; t < kTemplates; ++t) {
      double dx = px - ht[t].cx, dy = py - ht[t].cy;
      double lam = b + ht[t].amp / (1.0 + (dx * dx + dy * dy) / ht[t].w2);
      want = std::min(want, lam - k * std::log(lam));
    }
    float got = read_back(best + i);
    if (!(fabs(got - want) <= 1e-4 * (1 + fabs(want)))) fail("wrong nll at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("mufu_poisson_nll_templates", reps, launch);
  free_device({counts, bg, best, arg});
  printf("ok\n");
  return 0;
}
