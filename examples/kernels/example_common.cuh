// example_common.cuh: host boilerplate shared by the example programs in examples/kernels/ (each
// program includes it; nvcc finds it next to the .cu file). It holds:
//   CK(call)              checks a CUDA runtime call; on failure prints "file:line: call text: error" to
//                         stderr and exits with status 1;
//   fill_random           the device kernel that fills the inputs with non-zero pseudo-random values (its
//                         name and signature appear in the captured SASS fixtures; keep them);
//   time_kernel           the CUDA-event timing loop that prints "TIME name median_us=.. min_us=.. reps=..".
//   reps_arg, sm_count, device_alloc, read_back, fail, free_device: small host helpers for main().
// The planted bottleneck kernels and their launches stay in the programs.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
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

// The timing count: the first command-line argument, 0 (no timed launches) when absent.
inline int reps_arg(int argc, char** argv) {
  return argc > 1 ? atoi(argv[1]) : 0;
}

// Number of SMs of device 0.
inline int sm_count() {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  return sms;
}

// cudaMalloc'd array of n elements of T.
template <class T>
T* device_alloc(size_t n) {
  T* p = nullptr;
  CK(cudaMalloc(&p, n * sizeof(T)));
  return p;
}

// One element copied back from device memory.
template <class T>
T read_back(const T* p) {
  T v;
  CK(cudaMemcpy(&v, p, sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// Result check failed: prints the printf-style message to stderr and exits with status 1.
template <class... A>
[[noreturn]] void fail(const char* fmt, A... args) {
  if constexpr (sizeof...(A) == 0) {
    fputs(fmt, stderr);
  } else {
    fprintf(stderr, fmt, args...);
  }
  exit(1);
}

// cudaFree on each pointer.
inline void free_device(std::initializer_list<void*> ps) {
  for (void* p : ps) CK(cudaFree(p));
}
