// healthy_fp32_fma: HEALTHY (no planted bottleneck) - FFMA-bound near the FP32 ceiling.
// Full occupancy, 8 independent FFMA chains per thread, the loop unrolled so FFMA is nearly every issued
// instruction: the FMA pipe should sit near 100% of its peak. Memory traffic is negligible (8 MB).
// Usage: ./healthy_fp32_fma [reps]
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

__global__ void healthy_fp32_fma(const float* __restrict__ in, float* __restrict__ out, float a, float b,
                                 int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x[8];
#pragma unroll
  for (int j = 0; j < 8; ++j) x[j] = in[i] + 0.125f * j;
#pragma unroll 16
  for (int k = 0; k < iters; ++k)
#pragma unroll
    for (int j = 0; j < 8; ++j) x[j] = fmaf(x[j], a, b);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 8; ++j) s += x[j];
  out[i] = s;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 8 * 4, n = blocks * 256, iters = 2048;  // 4 full waves at 2048 threads/SM
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  fill_random<<<1024, 256>>>(in, n, 24, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    healthy_fp32_fma<<<blocks, 256>>>(in, out, 0.999f, 0.001f, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float y;
  CK(cudaMemcpy(&y, out + 5, sizeof(float), cudaMemcpyDeviceToHost));
  if (!(y > 0.5f && y < 20.0f)) {
    fprintf(stderr, "wrong result %f\n", y);
    return 1;
  }
  time_kernel("healthy_fp32_fma", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
