// shared_bank_conflicts: PLANTED BOTTLENECK = 32-way shared-memory bank conflicts.
// Each 32x32 block stages a 32x32 float tile in shared memory WITHOUT padding, then every warp reads the
// tile down a column (lane = row): the 32 addresses of a warp are 128 bytes apart, all in one bank, so
// each LDS is replayed as 32 wavefronts. The fix is tile[32][33] (padding) or a swizzle.
// Size: 2048 blocks x 1024 threads, 128 column reads per thread (global traffic is small: 16 MB).
// Usage: ./shared_bank_conflicts [reps]
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

__global__ void shared_bank_conflicts(const float* __restrict__ in, float* __restrict__ out, int iters) {
  __shared__ float tile[32][32];  // no padding column
  int tx = threadIdx.x, ty = threadIdx.y;
  size_t base = (size_t)blockIdx.x * 1024;
  tile[ty][tx] = in[base + ty * 32 + tx];
  __syncthreads();
  float acc = 0.0f;
  for (int k = 0; k < iters; ++k) acc += tile[tx][(ty + k) & 31];  // column walk: 32-way conflict
  out[base + ty * 32 + tx] = acc;
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const int blocks = 2048, iters = 128;
  const size_t n = (size_t)blocks * 1024;
  float *in, *out;
  CK(cudaMalloc(&in, n * sizeof(float)));
  CK(cudaMalloc(&out, n * sizeof(float)));
  fill_random<<<1024, 256>>>(in, n, 3, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    shared_bank_conflicts<<<blocks, dim3(32, 32)>>>(in, out, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hin(1024), hout(1024);
  CK(cudaMemcpy(hin.data(), in, 1024 * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hout.data(), out, 1024 * sizeof(float), cudaMemcpyDeviceToHost));
  float acc = 0.0f;  // thread (tx=3, ty=5) of block 0
  for (int k = 0; k < iters; ++k) acc += hin[3 * 32 + ((5 + k) & 31)];
  if (acc != hout[5 * 32 + 3]) {
    fprintf(stderr, "wrong result %f %f\n", acc, hout[5 * 32 + 3]);
    return 1;
  }
  time_kernel("shared_bank_conflicts", reps, launch);
  CK(cudaFree(in));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
