// achieved_occupancy_gap: PLANTED BOTTLENECK = achieved occupancy far below theoretical.
// 1024-thread blocks with few registers: theoretical occupancy is 100% (2 blocks, 64 warps per SM). But
// only 2 of the 32 warps of each block (warp % 16 == 0) run the long dependent FFMA chain; the other 30
// finish after 1/64 of the work and exit, while the block (and its SM slot) stays resident until its
// two long warps end. Achieved occupancy is ~12% of 64 warps, and nothing hides the FFMA latency.
// Usage: ./achieved_occupancy_gap [reps]
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

__global__ void achieved_occupancy_gap(const float* __restrict__ in, float* __restrict__ out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int warp = threadIdx.x >> 5;
  int my_iters = (warp & 15) == 0 ? iters : iters / 64;  // warp-uniform: no divergence, uneven warps
  float x = in[i], a = 0.999f, b = x * 0.001f;
  for (int k = 0; k < my_iters; ++k) x = fmaf(x, a, b);
  out[i] = x;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 2 * 8, iters = 16384, n = blocks * 1024;
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  fill_random<<<1024, 256>>>(in, n, 9, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    achieved_occupancy_gap<<<blocks, 1024>>>(in, out, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float s;
  CK(cudaMemcpy(&s, out + 1, sizeof(float), cudaMemcpyDeviceToHost));
  if (!(s > 0.0f && s < 10.0f)) {
    fprintf(stderr, "wrong result %f\n", s);
    return 1;
  }
  time_kernel("achieved_occupancy_gap", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
