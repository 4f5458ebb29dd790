// tiny_timestep_embedding_once: blind set 7, kind healthy (a tiny kernel launched once).
// Diffusion-model sampling set-up: the sinusoidal timestep embeddings of the 50 DDIM timesteps (dim 320,
// half sin, half cos with frequencies 10000^(-i/160)) computed once before the sampling loop: 16,000 floats
// written by 63 blocks, one expf/sincosf per value, a few microseconds once per run: nothing to optimize.
// Usage: ./tiny_timestep_embedding_once [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSteps = 50, kDim = 320, kHalf = kDim / 2;

__global__ void tiny_timestep_embedding_once(const int* __restrict__ timesteps, float* __restrict__ emb) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kSteps * kDim) return;
  int s = i / kDim, d = i % kDim, f = d % kHalf;
  float arg = timesteps[s] * expf(-9.210340372f * f / kHalf);  // ln(10000)
  emb[i] = d < kHalf ? sinf(arg) : cosf(arg);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<int> ht(kSteps);
  for (int s = 0; s < kSteps; ++s) ht[s] = 999 - 20 * s;
  int* timesteps = device_alloc<int>(kSteps);
  float* emb = device_alloc<float>(kSteps * kDim);
  CK(cudaMemcpy(timesteps, ht.data(), kSteps * 4, cudaMemcpyHostToDevice));
  auto launch = [&] {
    tiny_timestep_embedding_once<<<(kSteps * kDim + 255) / 256, 256>>>(timesteps, emb);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> got(kSteps * kDim);
  CK(cudaMemcpy(got.data(), emb, got.size() * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kSteps * kDim; ++i) {
    int s = i / kDim, d = i % kDim, f = d % kHalf;
    double arg = ht[s] * std::exp(-9.210340372 * f / kHalf), want = d < kHalf ? std::sin(arg) : std::cos(arg);
    if (!(std::fabs(got[i] - want) <= 2e-3)) fail("wrong embedding %d: %g vs %g\n", i, got[i], want);
  }
  time_kernel("tiny_timestep_embedding_once", reps, launch);
  free_device({timesteps, emb});
  printf("ok\n");
  return 0;
}
