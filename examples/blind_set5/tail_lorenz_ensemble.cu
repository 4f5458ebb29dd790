// tail_lorenz_ensemble: blind set 5, kind other (tail effect: a partial last wave).
// An ensemble forecast with the Lorenz-63 system (weather-predictability teaching code): one trajectory per
// thread, 4,000 explicit midpoint steps in FP32 registers, uniform work per thread, 1,024-thread blocks.
// The ensemble size was chosen as "2.5 blocks per SM" of the development GPU, so the grid is 1.25 waves of
// two resident 1,024-thread blocks per SM: after the first full wave only a quarter of the block slots
// have work and the SMs run the last quarter of the blocks at a fraction of their capacity, about 40 % of
// the duration at 25 % occupancy. A grid of whole waves (or more, smaller blocks) removes the tail.
// Usage: ./tail_lorenz_ensemble [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSteps = 4000;
constexpr float kDt = 0.002f, kSigma = 10.0f, kRho = 28.0f, kBeta = 8.0f / 3.0f;

__host__ __device__ inline void lorenz_run(float& x, float& y, float& z) {
  for (int s = 0; s < kSteps; ++s) {
    float dx = kSigma * (y - x), dy = x * (kRho - z) - y, dz = x * y - kBeta * z;
    float xm = x + 0.5f * kDt * dx, ym = y + 0.5f * kDt * dy, zm = z + 0.5f * kDt * dz;
    x += kDt * kSigma * (ym - xm);
    y += kDt * (xm * (kRho - zm) - ym);
    z += kDt * (xm * ym - kBeta * zm);
  }
}

__global__ void __launch_bounds__(1024) tail_lorenz_ensemble(float4* __restrict__ state, int members) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= members) return;
  float4 s = state[i];
  lorenz_run(s.x, s.y, s.z);
  state[i] = s;
}

__global__ void perturb(float4* st, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) st[i] = make_float4(1.0f + 1e-4f * (i % 997), 1.0f, 20.0f + 1e-4f * (i % 389), 0.0f);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int blocks = sm_count() * 5 / 2, members = blocks * 1024;
  float4* state = device_alloc<float4>(members);
  auto launch = [&] {
    perturb<<<(members + 255) / 256, 256>>>(state, members);
    tail_lorenz_ensemble<<<blocks, 1024>>>(state, members);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 5000, members - 1}) {
    float x = 1.0f + 1e-4f * (i % 997), y = 1.0f, z = 20.0f + 1e-4f * (i % 389);
    lorenz_run(x, y, z);
    float4 got = read_back(state + i);
    // chaotic: 4,000 steps amplify rounding (FMA contraction differs from the host), so only the attractor's
    // bounds are checked
    if (!(std::isfinite(got.x) && std::fabs(got.x) < 30.0f && std::fabs(got.y) < 40.0f && got.z > 0.0f &&
          got.z < 60.0f && std::fabs(x) < 30.0f))
      fail("trajectory %d left the attractor: %f %f %f\n", i, got.x, got.y, got.z);
  }
  time_kernel("tail_lorenz_ensemble", reps, launch);
  free_device({state});
  printf("ok\n");
  return 0;
}
