// mufu_division_pressure: PLANTED BOTTLENECK = special-function unit (MUFU/XU) and IEEE-division pressure.
// Each element runs 32 steps of x = expf(-x) / (0.5f + sqrtf(x)) + __sinf(x) * 0.25f: per step four MUFU
// instructions (EX2, RSQ, RCP, SIN) plus the IEEE-division and sqrt fix-up code. MUFU runs at 16 lanes
// per cycle per SM against 128 for FFMA, so the XU pipe saturates while the FMA pipe idles.
// Size: 2^24 floats in and out.
// Usage: ./mufu_division_pressure [reps]
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

__global__ void mufu_division_pressure(const float* __restrict__ in, float* __restrict__ out, int n,
                                       int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  for (int k = 0; k < iters; ++k) x = expf(-x) / (0.5f + sqrtf(x)) + __sinf(x) * 0.25f;
  out[i] = x;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int n = 1 << 24, iters = 32;
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  fill_random<<<4096, 256>>>(in, n, 16, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    mufu_division_pressure<<<(n + 255) / 256, 256>>>(in, out, n, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float x, y;
  CK(cudaMemcpy(&x, in + 9, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&y, out + 9, sizeof(float), cudaMemcpyDeviceToHost));
  for (int k = 0; k < iters; ++k) x = expf(-x) / (0.5f + sqrtf(x)) + sinf(x) * 0.25f;
  if (fabsf(x - y) > 1e-4f) {
    fprintf(stderr, "wrong result %f %f\n", x, y);
    return 1;
  }
  time_kernel("mufu_division_pressure", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
