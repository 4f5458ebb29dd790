// heat_step_launches: blind set 3, kind 7 (launch overhead of many tiny launches).
// An explicit 1-D heat-diffusion solver on a periodic rod of 8,192 cells, advanced 4,000 time steps with
// one launch per step (32 blocks of 256 threads, ping-ponging two buffers): each launch does about a
// microsecond of work, so the GPU idles between launches for most of the run. Many steps per launch
// (shared-memory time blocking, or a persistent kernel with a grid barrier) or a CUDA graph is the fix.
// Usage: ./heat_step_launches [reps]
#include "../kernels/example_common.cuh"

constexpr int kCells = 8192, kSteps = 4000;
constexpr float kAlpha = 0.25f;

__global__ void heat_step(const float* __restrict__ u, float* __restrict__ next) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float left = u[(i + kCells - 1) % kCells], mid = u[i], right = u[(i + 1) % kCells];
  next[i] = mid + kAlpha * (left - 2.0f * mid + right);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  float* a = device_alloc<float>(kCells);
  float* b = device_alloc<float>(kCells);
  fill_random<<<32, 256>>>(a, kCells, 325, 0.0f, 1.0f);
  CK(cudaGetLastError());
  std::vector<float> h0(kCells), h1(kCells);
  CK(cudaMemcpy(h0.data(), a, kCells * sizeof(float), cudaMemcpyDeviceToHost));
  auto simulate = [&] {
    for (int s = 0; s < kSteps; ++s) {
      heat_step<<<kCells / 256, 256>>>(s % 2 ? b : a, s % 2 ? a : b);
    }
    CK(cudaGetLastError());
  };
  simulate();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h1.data(), kSteps % 2 ? b : a, kCells * sizeof(float), cudaMemcpyDeviceToHost));
  // periodic diffusion conserves the total heat and smooths the profile
  double sum0 = 0, sum1 = 0, lo = 1e30, hi = -1e30;
  for (int i = 0; i < kCells; ++i) {
    sum0 += h0[i];
    sum1 += h1[i];
    lo = std::min(lo, double(h1[i]));
    hi = std::max(hi, double(h1[i]));
  }
  if (!(fabs(sum1 - sum0) <= 1e-4 * sum0)) fail("heat not conserved: %f vs %f\n", sum1, sum0);
  if (!(hi - lo < 0.5)) fail("profile not smoothed: range %f\n", hi - lo);
  time_kernel("heat_step_launches", reps, simulate);
  free_device({a, b});
  printf("ok\n");
  return 0;
}
