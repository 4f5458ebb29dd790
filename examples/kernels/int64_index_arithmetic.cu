// int64_index_arithmetic: PLANTED BOTTLENECK = 64-bit integer division/modulo in the index math.
// An NCHW -> CNHW permute (the innermost W dimension stays contiguous, so loads and stores are coalesced)
// whose index decomposition uses signed 64-bit / and % by run-time dimensions: each one is a long
// integer-division subroutine, so the kernel is bound by integer instructions, not by its 512 MB of traffic.
// The fix: 32-bit indices, precomputed fast-division magic numbers, or a 2-D/3-D grid.
// Size: 8 x 64 x 256 x 512 floats = 2^26 (256 MB in, 256 MB out).
// Usage: ./int64_index_arithmetic [reps]
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

__global__ void int64_index_arithmetic(const float* __restrict__ in, float* __restrict__ out, long long N,
                                       long long C, long long H, long long W) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i >= N * C * H * W) return;
  long long w = i % W, h = (i / W) % H, c = (i / (W * H)) % C, n = i / (W * H * C);
  out[((c * N + n) * H + h) * W + w] = in[i];
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  long long N = 8, C = 64, H = 256, W = 512;
  if (argc > 2) W = atoll(argv[2]);  // keeps the dimensions run-time values
  const size_t total = (size_t)(N * C * H * W);
  float *in, *out;
  CK(cudaMalloc(&in, total * sizeof(float)));
  CK(cudaMalloc(&out, total * sizeof(float)));
  fill_random<<<4096, 256>>>(in, total, 19, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int64_index_arithmetic<<<unsigned((total + 255) / 256), 256>>>(in, out, N, C, H, W);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  long long n = 3, c = 17, h = 100, w = 77;
  float x, y;
  CK(cudaMemcpy(&x, in + ((n * C + c) * H + h) * W + w, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&y, out + ((c * N + n) * H + h) * W + w, sizeof(float), cudaMemcpyDeviceToHost));
  if (x != y) {
    fprintf(stderr, "wrong result\n");
    return 1;
  }
  time_kernel("int64_index_arithmetic", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
