// atomic_contention: PLANTED BOTTLENECK = atomic contention.
// Every thread of a 2^24-thread grid does atomicAdd(&bins[i & 7], x[i]): all atomics of the whole grid go
// to 8 floats in one 32-byte sector, which one L2 slice must serialise. The fix is a per-warp/per-block
// reduction (shuffles, shared memory) and one atomic per block.
// Usage: ./atomic_contention [reps]
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

__global__ void atomic_contention(const float* __restrict__ x, float* __restrict__ bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[i & 7], x[i]);
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int n = 1 << 24;
  float *x, *bins;
  CK(cudaMalloc(&x, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&bins, 8 * sizeof(float)));
  CK(cudaMemset(bins, 0, 8 * sizeof(float)));  // accumulators start at zero; the input is random
  fill_random<<<4096, 256>>>(x, n, 17, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    atomic_contention<<<(n + 255) / 256, 256>>>(x, bins, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float h[8];
  CK(cudaMemcpy(h, bins, sizeof(h), cudaMemcpyDeviceToHost));
  for (float v : h)  // each bin sums n/8 values in [0.5, 1.5)
    if (!(v > 0.4f * (n / 8) && v < 1.6f * (n / 8))) {
      fprintf(stderr, "wrong result %f\n", v);
      return 1;
    }
  time_kernel("atomic_contention", reps, launch);
  CK(cudaFree(x));
  CK(cudaFree(bins));
  printf("ok\n");
  return 0;
}
