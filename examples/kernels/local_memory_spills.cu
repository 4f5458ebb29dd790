// local_memory_spills: PLANTED BOTTLENECK = local memory (per-thread array indexed at run time).
// Each thread keeps float a[64] and reads/writes it at pseudo-random run-time indices, so the compiler
// cannot keep it in registers: it lives in local memory (256-byte stack frame, LDL/STL in SASS). Lanes use
// different indices, so each LDL/STL touches up to 32 sectors, and the 512 KB of local data per SM
// (64 warps x 8 KB) overflows L1 into L2.
// Size: 2^20 threads, 64 floats each read once from a 256 MB input; 64 local read+write steps each.
// Usage: ./local_memory_spills [reps]
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

#define LEN 64
__global__ void local_memory_spills(const float* __restrict__ in, float* __restrict__ out, int n, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float a[LEN];  // indexed with run-time values below: placed in local memory
  for (int j = 0; j < LEN; ++j) a[j] = in[(size_t)j * n + i];
  unsigned h = i * 2654435761u;
  float s = 0.0f;
  for (int k = 0; k < iters; ++k) {
    h = h * 1664525u + 1013904223u;
    float v = a[h >> 26];
    s += v;
    a[(h >> 20) & (LEN - 1)] = v * 0.5f + 0.25f;
  }
  out[i] = s;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int n = 1 << 20, iters = 64;
  float *in, *out;
  CK(cudaMalloc(&in, (size_t)n * LEN * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)n * sizeof(float)));
  fill_random<<<4096, 256>>>(in, (size_t)n * LEN, 4, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    local_memory_spills<<<n / 256, 256>>>(in, out, n, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float s;
  CK(cudaMemcpy(&s, out + 11, sizeof(float), cudaMemcpyDeviceToHost));
  if (!(s > 0.0f && s < 2.0f * iters)) {
    fprintf(stderr, "wrong result %f\n", s);
    return 1;
  }
  time_kernel("local_memory_spills", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
