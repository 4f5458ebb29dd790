// launch_overhead: PLANTED BOTTLENECK = launch overhead (many tiny kernel launches).
// The program updates a 16 KB array 10,000 times, one launch of 16 x 256 threads each. Each kernel runs
// for about 2 us, about as long as it takes to launch it, so the GPU is idle between launches for much of
// the wall time. The fix is to fuse the steps into one kernel (loop inside), or to capture a CUDA graph.
// Usage: ./launch_overhead [reps]   (with reps: times one launch, and the 10,000-launch loop per launch)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(call)                                                                             \
  do {                                                                                       \
    cudaError_t e_ = (call);                                                                 \
    if (e_ != cudaSuccess) {                                                                 \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1);                                                                               \
    }                                                                                        \
  } while (0)

// Non-zero pseudo-random values in [lo, hi) (lo > 0), generated on the device.
__global__ void fill_random(float* p, size_t n, unsigned seed, float lo, float hi) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed * 0x9e3779b9u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    p[i] = lo + (hi - lo) * ((h >> 8) * (1.0f / 16777216.0f));
  }
}

// Times `launch` reps times with CUDA events (after the first, profiled launch) and prints the median.
template <class F>
static void time_kernel(const char* name, int reps, F launch) {
  if (reps <= 0) return;
  std::vector<float> t(reps);
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaEventElapsedTime(&t[r], a, b));
  }
  std::sort(t.begin(), t.end());
  printf("TIME %s median_us=%.2f min_us=%.2f reps=%d\n", name, t[reps / 2] * 1e3f, t[0] * 1e3f, reps);
}

__global__ void launch_overhead(float* __restrict__ x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] * 0.999f + 0.001f;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int n = 4096, launches = 10000;
  float* x;
  CK(cudaMalloc(&x, n * sizeof(float)));
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
  float h;
  CK(cudaMemcpy(&h, x + 3, sizeof(float), cudaMemcpyDeviceToHost));
  if (!(h > 0.5f && h < 1.5f)) {
    fprintf(stderr, "wrong result %f\n", h);
    return 1;
  }
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
  CK(cudaFree(x));
  printf("ok\n");
  return 0;
}
