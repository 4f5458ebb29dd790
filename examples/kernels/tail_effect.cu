// tail_effect: PLANTED BOTTLENECK = partial last wave (tail effect).
// Uniform, long-running 1024-thread blocks (FFMA chains), 2 resident per SM (100% theoretical occupancy).
// The grid is one full wave (2 x #SMs blocks) plus #SMs/8 more: the extra 1/16 of the work runs as a
// second wave in which about 16 of the 132 SMs are busy and the rest idle, so the kernel takes about 1.5
// wave-times for 1.06 waves of work.
// Usage: ./tail_effect [reps]
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

__global__ void __launch_bounds__(1024)
    tail_effect(const float* __restrict__ in, float* __restrict__ out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x0 = in[i], x1 = x0 + 0.1f, x2 = x0 + 0.2f, x3 = x0 + 0.3f, b = x0 * 0.001f;
  for (int k = 0; k < iters; ++k) {
    x0 = fmaf(x0, 0.999f, b);
    x1 = fmaf(x1, 0.998f, b);
    x2 = fmaf(x2, 0.997f, b);
    x3 = fmaf(x3, 0.996f, b);
  }
  out[i] = x0 + x1 + x2 + x3;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  int sms = 0, per_sm = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tail_effect, 1024, 0));
  const int blocks = per_sm * sms + sms / 8, iters = 16384, n = blocks * 1024;
  printf("blocks per SM: %d, grid: %d blocks = %.3f waves\n", per_sm, blocks,
         double(blocks) / (per_sm * sms));
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  fill_random<<<1024, 256>>>(in, n, 10, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    tail_effect<<<blocks, 1024>>>(in, out, iters);
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
  time_kernel("tail_effect", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
