// warp_divergence: PLANTED BOTTLENECK = warp divergence (per-lane branches with heavy, distinct work).
// Lanes are split into 8 groups of 4 by (lane >> 2); each group runs a different 512-step loop, so every
// warp executes all 8 paths one after another with only 4 of 32 threads active (about 4/32 = 12.5% SIMT
// efficiency). Compute-only: memory traffic is 32 MB.
// Usage: ./warp_divergence [reps]
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

__global__ void warp_divergence(const float* __restrict__ in, float* __restrict__ out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i], y = x * 0.5f + 0.25f;
  switch ((threadIdx.x >> 2) & 7) {  // a different path for each group of 4 lanes
    case 0:
      for (int k = 0; k < iters; ++k) x = x * y + 0.5f * y;
      break;
    case 1:
      for (int k = 0; k < iters; ++k) x = x * x * 0.25f + y;
      break;
    case 2:
      for (int k = 0; k < iters; ++k) x = (x + y) * 0.5f - 0.125f;
      break;
    case 3:
      for (int k = 0; k < iters; ++k) x = fmaxf(x * 0.75f, y) + 0.125f;
      break;
    case 4:
      for (int k = 0; k < iters; ++k) x = fminf(x + 0.5f, y * 3.0f) * 0.9f;
      break;
    case 5:
      for (int k = 0; k < iters; ++k) x = x * 0.9f - y * 0.1f + 0.2f;
      break;
    case 6:
      for (int k = 0; k < iters; ++k) x = fabsf(x - y) * 0.8f + 0.3f;
      break;
    default:
      for (int k = 0; k < iters; ++k) x = (x * 0.5f + 0.1f) * (y * 0.25f + 0.7f);
      break;
  }
  out[i] = x;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int n = 1 << 22, iters = 512;
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  fill_random<<<4096, 256>>>(in, n, 5, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    warp_divergence<<<n / 256, 256>>>(in, out, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> h(32);
  CK(cudaMemcpy(h.data(), out, 32 * sizeof(float), cudaMemcpyDeviceToHost));
  for (float v : h)
    if (!(v == v) || v == 0.0f) {
      fprintf(stderr, "wrong result %f\n", v);
      return 1;
    }
  time_kernel("warp_divergence", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
