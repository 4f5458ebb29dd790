// low_occupancy_shared_memory: PLANTED BOTTLENECK = low theoretical occupancy, limited by shared memory.
// Each 256-thread block copies a 128 KB lookup table into dynamic shared memory, so only one block
// (8 warps of 64, 12.5%) fits per SM. The kernel then streams 256 MB in and 256 MB out, scaling each
// element by a table entry: a memory-bound stream with too few warps in flight to cover DRAM latency.
// The grid is one persistent block per SM (grid-stride loop).
// Usage: ./low_occupancy_shared_memory [reps]
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

#define TBL 32768  // floats: 128 KB
__global__ void low_occupancy_shared_memory(const float* __restrict__ x, const float* __restrict__ lut,
                                            float* __restrict__ out, size_t n) {
  extern __shared__ float table[];
  for (int j = threadIdx.x; j < TBL; j += blockDim.x) table[j] = lut[j];
  __syncthreads();
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = x[i] * table[i & (TBL - 1)];
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 0;
  const size_t n = size_t(1) << 26, smem = TBL * sizeof(float);
  float *x, *lut, *out;
  CK(cudaMalloc(&x, n * sizeof(float)));
  CK(cudaMalloc(&out, n * sizeof(float)));
  CK(cudaMalloc(&lut, smem));
  fill_random<<<4096, 256>>>(x, n, 7, 0.5f, 1.5f);
  CK(cudaGetLastError());
  fill_random<<<128, 256>>>(lut, TBL, 8, 0.5f, 1.5f);
  CK(cudaGetLastError());
  CK(cudaFuncSetAttribute(low_occupancy_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          (int)smem));
  int sms = 0, per_sm = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, low_occupancy_shared_memory, 256, smem));
  printf("blocks per SM: %d\n", per_sm);
  auto launch = [&] {
    low_occupancy_shared_memory<<<sms * per_sm, 256, smem>>>(x, lut, out, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  const size_t k = 123457;
  float hx, hl, ho;
  CK(cudaMemcpy(&hx, x + k, sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&hl, lut + (k & (TBL - 1)), sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&ho, out + k, sizeof(float), cudaMemcpyDeviceToHost));
  if (ho != hx * hl) {
    fprintf(stderr, "wrong result\n");
    return 1;
  }
  time_kernel("low_occupancy_shared_memory", reps, launch);
  CK(cudaFree(x));
  CK(cudaFree(lut));
  CK(cudaFree(out));
  printf("ok\n");
  return 0;
}
