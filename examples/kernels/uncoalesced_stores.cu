// uncoalesced_stores: PLANTED BOTTLENECK = uncoalesced global stores (strided scatter).
// Thread i writes out[(33*i) mod n]: neighbouring lanes are 132 bytes apart, so each warp-wide 4-byte store
// touches 32 sectors instead of the ideal 4, and every sector is written partially. Loads are coalesced.
// Size: n = 2^26 floats, 256 MB in + 256 MB out (about 8x the 60 MB L2).
// Usage: ./uncoalesced_stores [reps]   (one launch; with reps, also times reps more launches)
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

__global__ void uncoalesced_stores(const float* __restrict__ in, float* __restrict__ out, unsigned mask) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  out[(i * 33u) & mask] = in[i] * 2.0f + 1.0f;  // 33 is odd: a permutation of [0, n), 132 B between lanes
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const size_t n = size_t(1) << 26;
  float *in, *out;
  CK(cudaMalloc(&in, n * sizeof(float)));
  CK(cudaMalloc(&out, n * sizeof(float)));
  fill_random<<<4096, 256>>>(in, n, 2, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    uncoalesced_stores<<<unsigned(n / 256), 256>>>(in, out, unsigned(n - 1));
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float y, x;
  CK(cudaMemcpy(&y, out + 7 * 33, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&x, in + 7, sizeof(float), cudaMemcpyDeviceToHost));
  if (y != x * 2.0f + 1.0f) {
    fprintf(stderr, "wrong result\n");
    return 1;
  }
  time_kernel("uncoalesced_stores", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
