// wave_string_step_launches: blind set 8, kind 7 (launch overhead: thousands of tiny launches).
// A vibrating-string simulation (1D wave equation, leapfrog finite differences) of 4,096 points advanced by
// 5,000 time steps, one kernel launch per step from the host loop: each wave_step launch updates 4,096 floats
// (16 blocks, 48 KB of traffic, well under a microsecond of work) while a launch costs 2-4 us, so the GPU is
// idle between launches most of the time. A persistent kernel (one block looping over the steps with a grid
// or block barrier) or a CUDA graph would remove it. The profiled launches are 10 of the wave_step launches.
// Usage: ./wave_string_step_launches [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kPoints = 4096, kSteps = 5000;

__global__ void wave_step(const float* __restrict__ prev, const float* __restrict__ cur,
                          float* __restrict__ next, float c2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kPoints) return;
  float left = i > 0 ? cur[i - 1] : 0.0f, right = i < kPoints - 1 ? cur[i + 1] : 0.0f;
  next[i] =
      (i == 0 || i == kPoints - 1) ? 0.0f : 2.0f * cur[i] - prev[i] + c2 * (left - 2.0f * cur[i] + right);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  float* u[3] = {device_alloc<float>(kPoints), device_alloc<float>(kPoints), device_alloc<float>(kPoints)};
  std::vector<float> h0(kPoints);
  for (int i = 0; i < kPoints; ++i)
    h0[i] = std::sin(3.14159265f * i / (kPoints - 1)) * std::exp(-std::pow((i - 1000.0f) / 200.0f, 2.0f));
  h0[0] = h0[kPoints - 1] = 0.0f;
  const float c2 = 0.25f;
  int final_index = 0;
  auto run = [&](int steps) {
    CK(cudaMemcpy(u[0], h0.data(), kPoints * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(u[1], h0.data(), kPoints * 4, cudaMemcpyHostToDevice));
    for (int s = 0; s < steps; ++s) {
      wave_step<<<kPoints / 256, 256>>>(u[s % 3], u[(s + 1) % 3], u[(s + 2) % 3], c2);
      CK(cudaGetLastError());
    }
    final_index = (steps + 1) % 3;
  };
  run(kSteps);
  CK(cudaDeviceSynchronize());
  // host replay of 200 steps against a short device run
  run(200);
  std::vector<float> got(kPoints);
  CK(cudaMemcpy(got.data(), u[final_index], kPoints * 4, cudaMemcpyDeviceToHost));
  std::vector<float> prev = h0, cur = h0, next(kPoints);
  for (int s = 0; s < 200; ++s) {
    for (int i = 0; i < kPoints; ++i)
      next[i] = (i == 0 || i == kPoints - 1)
                    ? 0.0f
                    : 2.0f * cur[i] - prev[i] + c2 * (cur[i - 1] - 2.0f * cur[i] + cur[i + 1]);
    prev.swap(cur);
    cur.swap(next);
  }
  for (int i = 0; i < kPoints; i += 97)
    if (!(std::fabs(got[i] - cur[i]) <= 1e-4f)) fail("wrong displacement %d: %g vs %g\n", i, got[i], cur[i]);
  time_kernel("wave_string_step_launches_run", reps > 0 ? 3 : 0, [&] { run(kSteps); });
  for (float* p : u) CK(cudaFree(p));
  printf("ok\n");
  return 0;
}
