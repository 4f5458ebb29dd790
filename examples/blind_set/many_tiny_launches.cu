// many_tiny_launches: blind set, kind 7 (launch overhead: 20,000 tiny launches).
// A time-stepping loop of 20,000 launches, each of an 8-block kernel that advances 2,048 floats one step
// (a few microseconds of work, comparable to the launch cost); back to back, the GPU idles between
// launches for much of the wall time. The fix: loop inside one kernel (persistent, grid-wide sync or
// cooperative launch), or capture the loop in a CUDA graph.
// Usage: ./many_tiny_launches [reps]   (with reps: also times the whole loop)
#include <chrono>

#include "../kernels/example_common.cuh"

__global__ void tiny_step(float* __restrict__ u, const float* __restrict__ f, int n, float dt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) u[i] += dt * (f[i] - u[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 2048, launches = 20000;
  float* u = device_alloc<float>(n);
  float* f = device_alloc<float>(n);
  fill_random<<<8, 256>>>(u, n, 129, 0.5f, 1.5f);
  fill_random<<<8, 256>>>(f, n, 130, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto loop = [&] {
    for (int r = 0; r < launches; ++r) tiny_step<<<n / 256, 256>>>(u, f, n, 1e-4f);
    CK(cudaGetLastError());
  };
  auto t0 = std::chrono::steady_clock::now();
  loop();
  CK(cudaDeviceSynchronize());
  double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  float h = read_back(u + 3);
  if (!(h > 0.4f && h < 1.6f)) fail("wrong result %f\n", h);
  if (reps > 0) {
    printf("TIME many_tiny_launches_first_loop wall_ms=%.2f per_launch_us=%.2f launches=%d\n", wall_ms,
           wall_ms * 1e3 / launches, launches);
    time_kernel("tiny_step", reps, [&] { tiny_step<<<n / 256, 256>>>(u, f, n, 1e-4f); });
  }
  free_device({u, f});
  printf("ok\n");
  return 0;
}
