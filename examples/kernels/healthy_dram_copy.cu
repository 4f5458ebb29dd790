// healthy_dram_copy: HEALTHY (no planted bottleneck) - a copy near the DRAM bandwidth ceiling.
// One 16-byte float4 load and store per thread, fully coalesced, 512 MB in and 512 MB out (about 17x the
// L2): DRAM throughput should sit near its peak. The only real gain left is to move fewer bytes.
// Usage: ./healthy_dram_copy [reps]
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

__global__ void healthy_dram_copy(const float4* __restrict__ in, float4* __restrict__ out, size_t n4) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n4) out[i] = in[i];
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const size_t n4 = size_t(1) << 25;  // float4s: 512 MB
  float4 *in, *out;
  CK(cudaMalloc(&in, n4 * sizeof(float4)));
  CK(cudaMalloc(&out, n4 * sizeof(float4)));
  fill_random<<<4096, 256>>>((float*)in, n4 * 4, 23, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    healthy_dram_copy<<<unsigned((n4 + 255) / 256), 256>>>(in, out, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> a(1024), b(1024);
  CK(cudaMemcpy(a.data(), in + 123456, 1024 * sizeof(float4), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), out + 123456, 1024 * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int k = 0; k < 1024; ++k)
    if (a[k].x != b[k].x || a[k].w != b[k].w) {
      fprintf(stderr, "wrong result\n");
      return 1;
    }
  time_kernel("healthy_dram_copy", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
