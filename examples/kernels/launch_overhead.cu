// launch_overhead: PLANTED BOTTLENECK = launch overhead (many tiny kernel launches).
// The program updates a 16 KB array 10,000 times, one launch of 16 x 256 threads each. Each kernel runs
// for about 2 us, about as long as it takes to launch it, so the GPU is idle between launches for much of
// the wall time. The fix is to fuse the steps into one kernel (loop inside), or to capture a CUDA graph.
// Usage: ./launch_overhead [reps]   (with reps: times one launch, and the 10,000-launch loop per launch)
#include "example_common.cuh"

__global__ void launch_overhead(float* __restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.999f + 0.001f;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 4096, launches = 10000;
  float* x = device_alloc<float>(n);
  fill_random<<<16, 256>>>(x, n, 18, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto loop = [&] {
    for (int r = 0; r < launches; ++r) {
      launch_overhead<<<n / 256, 256>>>(x, n);
      CK(cudaGetLastError());
    }
  };
  loop();
  CK(cudaDeviceSynchronize());
  float h = read_back(x + 3);
  if (!(h > 0.5f && h < 1.5f)) fail("wrong result %f\n", h);
  time_kernel("launch_overhead", reps, [&] {
    launch_overhead<<<n / 256, 256>>>(x, n);
    CK(cudaGetLastError());
  });
  if (reps > 0) {
    cudaEvent_t a, b;
    float ms = 0.0f;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaEventRecord(a));
    loop();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&ms, a, b));
    printf("TIME launch_overhead_loop per_launch_us=%.2f launches=%d total_ms=%.2f\n", ms * 1e3f / launches,
           launches, ms);
  }
  free_device({x});
  printf("ok\n");
  return 0;
}
