// barrier_stalls: PLANTED BOTTLENECK = barrier stalls (__syncthreads with uneven work between barriers).
// 1024-thread blocks run 128 phases; in each phase one warp (rotating) runs a 256-step dependent FFMA
// chain while the other 31 warps do 4 steps, then all exchange values through shared memory between two
// __syncthreads(). 31 of 32 warps spend most of each phase waiting at the barrier (stall "barrier").
// Usage: ./barrier_stalls [reps]
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
    barrier_stalls(const float* __restrict__ in, float* __restrict__ out, int phases, int heavy) {
  __shared__ float s[1024];
  int t = threadIdx.x, warp = t >> 5;
  size_t i = (size_t)blockIdx.x * 1024 + t;
  float x = in[i];
  for (int p = 0; p < phases; ++p) {
    int work = warp == (p & 31) ? heavy : 4;  // one warp per phase does 64x the work
    for (int k = 0; k < work; ++k) x = fmaf(x, 0.999f, 0.001f);
    s[t] = x;
    __syncthreads();
    x = 0.5f * (x + s[(t + 32) & 1023]);
    __syncthreads();
  }
  out[i] = x;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 2 * 4, phases = 128, heavy = 256;
  const size_t n = (size_t)blocks * 1024;
  float *in, *out;
  CK(cudaMalloc(&in, n * sizeof(float)));
  CK(cudaMalloc(&out, n * sizeof(float)));
  fill_random<<<1024, 256>>>(in, n, 21, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    barrier_stalls<<<blocks, 1024>>>(in, out, phases, heavy);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float y;
  CK(cudaMemcpy(&y, out + 77, sizeof(float), cudaMemcpyDeviceToHost));
  if (!(y > 0.4f && y < 1.6f)) {
    fprintf(stderr, "wrong result %f\n", y);
    return 1;
  }
  time_kernel("barrier_stalls", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
