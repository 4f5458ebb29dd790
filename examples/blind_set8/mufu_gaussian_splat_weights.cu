// mufu_gaussian_splat_weights: blind set 8, kind 1 (transcendental / division-bound code).
// A 2D Gaussian-splatting rasterizer tile pass written from the formula: each pixel accumulates the weights
// of 256 anisotropic Gaussians held in shared memory, w = expf(-0.5 * (dx^2 / sx^2 + dy^2 / sy^2)) /
// (2 pi sx sy) * opacity: three IEEE fp32 divisions (MUFU.RCP + Newton + slow-path check each) and an
// accurate expf per (pixel, Gaussian) pair, 4 M pixels x 256 = 1.07 G pairs, against 16 MB of output.
// Precomputed inverse variances and __expf would make it a few FMAs per pair.
// Usage: ./mufu_gaussian_splat_weights [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSplats = 256, kW = 2048, kH = 2048;

__global__ void mufu_gaussian_splat_weights(const float4* __restrict__ splats,
                                            const float* __restrict__ opacity, float* __restrict__ weight) {
  __shared__ float4 s[kSplats];  // cx, cy, sx, sy
  __shared__ float s_o[kSplats];
  for (int k = threadIdx.x; k < kSplats; k += blockDim.x) s[k] = splats[k], s_o[k] = opacity[k];
  __syncthreads();
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= kW * kH) return;
  float px = (p % kW) + 0.5f, py = (p / kW) + 0.5f, acc = 0.0f;
  for (int k = 0; k < kSplats; ++k) {
    float dx = px - s[k].x, dy = py - s[k].y;
    float q = dx * dx / (s[k].z * s[k].z) + dy * dy / (s[k].w * s[k].w);
    acc += s_o[k] * expf(-0.5f * q) / (6.2831853f * s[k].z * s[k].w);
  }
  weight[p] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = kW * kH;
  float* sp = device_alloc<float>(4 * kSplats);
  float* op = device_alloc<float>(kSplats);
  float* w = device_alloc<float>(n);
  std::vector<float> hs(4 * kSplats), ho(kSplats);
  for (int k = 0; k < kSplats; ++k) {
    hs[4 * k] = float((k * 97) % kW), hs[4 * k + 1] = float((k * 389) % kH);
    hs[4 * k + 2] = 40.0f + (k % 13) * 20.0f, hs[4 * k + 3] = 30.0f + (k % 7) * 35.0f;
    ho[k] = 0.2f + 0.003f * k;
  }
  CK(cudaMemcpy(sp, hs.data(), hs.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(op, ho.data(), ho.size() * 4, cudaMemcpyHostToDevice));
  auto launch = [&] {
    mufu_gaussian_splat_weights<<<(n + 255) / 256, 256>>>((const float4*)sp, op, w);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int p : {0, 777777, n - 1}) {
    double px = (p % kW) + 0.5, py = (p / kW) + 0.5, want = 0;
    for (int k = 0; k < kSplats; ++k) {
      double dx = px - hs[4 * k], dy = py - hs[4 * k + 1], sx = hs[4 * k + 2], sy = hs[4 * k + 3];
      want += ho[k] * std::exp(-0.5 * (dx * dx / (sx * sx) + dy * dy / (sy * sy))) / (6.2831853 * sx * sy);
    }
    float got = read_back(w + p);
    if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-9))
      fail("wrong weight %d: %g vs %g\n", p, got, want);
  }
  time_kernel("mufu_gaussian_splat_weights", reps, launch);
  free_device({sp, op, w});
  printf("ok\n");
  return 0;
}
