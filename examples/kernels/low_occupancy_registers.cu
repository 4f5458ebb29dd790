// low_occupancy_registers: PLANTED BOTTLENECK = low theoretical occupancy, limited by registers.
// Each thread keeps R = 160 floats live in registers across the loop (~170 registers per thread), so only
// one 256-thread block (8 warps of 64, 12.5%) fits per SM. The work is one long dependent FFMA chain per
// thread: with 2 warps per scheduler the FFMA latency is not hidden (stall "wait"), and issue sits near
// 50%; with a quarter of the live state, 4x the warps would fit and hide it.
// Usage: ./low_occupancy_registers [reps]
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

#define R 160
__global__ void __launch_bounds__(256)
    low_occupancy_registers(const float* __restrict__ in, float* __restrict__ out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  float r[R];  // compile-time indices only: all in registers
#pragma unroll
  for (int j = 0; j < R; ++j) r[j] = x * (0.2f + 0.001f * j);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < R; ++j) {
      x = fmaf(r[j], x, 0.1875f);  // dependent chain through x
      r[j] = x;
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < R; ++j) s += r[j];
  out[i] = s;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 8, iters = 192, n = blocks * 256;
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  fill_random<<<1024, 256>>>(in, n, 6, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    low_occupancy_registers<<<blocks, 256>>>(in, out, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float s;
  CK(cudaMemcpy(&s, out + 3, sizeof(float), cudaMemcpyDeviceToHost));
  if (!(s > 0.0f && s < 1e6f)) {
    fprintf(stderr, "wrong result %f\n", s);
    return 1;
  }
  time_kernel("low_occupancy_registers", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
