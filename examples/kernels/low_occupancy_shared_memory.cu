// low_occupancy_shared_memory: PLANTED BOTTLENECK = low theoretical occupancy, limited by shared memory.
// Each 256-thread block copies a 128 KB lookup table into dynamic shared memory, so only one block
// (8 warps of 64, 12.5%) fits per SM. The kernel then streams 256 MB in and 256 MB out, scaling each
// element by a table entry: a memory-bound stream with too few warps in flight to cover DRAM latency.
// The grid is one persistent block per SM (grid-stride loop).
// Usage: ./low_occupancy_shared_memory [reps]
#include "example_common.cuh"

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
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(1) << 26, smem = TBL * sizeof(float);
  float* x = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  float* lut = device_alloc<float>(TBL);
  fill_random<<<4096, 256>>>(x, n, 7, 0.5f, 1.5f);
  CK(cudaGetLastError());
  fill_random<<<128, 256>>>(lut, TBL, 8, 0.5f, 1.5f);
  CK(cudaGetLastError());
  CK(cudaFuncSetAttribute(low_occupancy_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          (int)smem));
  const int sms = sm_count();
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, low_occupancy_shared_memory, 256, smem));
  printf("blocks per SM: %d\n", per_sm);
  auto launch = [&] {
    low_occupancy_shared_memory<<<sms * per_sm, 256, smem>>>(x, lut, out, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  const size_t k = 123457;
  float hx = read_back(x + k), hl = read_back(lut + (k & (TBL - 1))), ho = read_back(out + k);
  if (ho != hx * hl) fail("wrong result\n");
  time_kernel("low_occupancy_shared_memory", reps, launch);
  free_device({x, lut, out});
  printf("ok\n");
  return 0;
}
