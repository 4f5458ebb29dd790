// reduce_sync_every_level: blind set, kind 1 (barrier-bound reduction).
// Each 512-thread block computes 64 dot products of a row of 512 values with a vector (one multiply per
// thread; the rows cycle through an 8 MB matrix, which stays in L2) and reduces each one with a shared-memory tree that calls __syncthreads at every one
// of its nine levels, down to a single active thread. Barrier waits dominate. The fix: warp shuffles for
// the last five levels (no barrier), one barrier between warps, or a reduction over several rows at once.
// Usage: ./reduce_sync_every_level [reps]
#include "../kernels/example_common.cuh"

constexpr size_t kMatrixRows = 4096;

__global__ void __launch_bounds__(512) reduce_sync_every_level(const float* __restrict__ m,
                                                               const float* __restrict__ v,
                                                               float* __restrict__ out, int rows_per_block) {
  __shared__ float buf[512];
  float vv = v[threadIdx.x];
  for (int r = 0; r < rows_per_block; ++r) {
    size_t row = (size_t)blockIdx.x * rows_per_block + r;
    buf[threadIdx.x] = m[(row % kMatrixRows) * 512 + threadIdx.x] * vv;
    __syncthreads();
    for (int stride = 256; stride > 0; stride >>= 1) {
      if (threadIdx.x < stride) buf[threadIdx.x] += buf[threadIdx.x + stride];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = buf[0];
    __syncthreads();
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int blocks = 1056, rows_per_block = 64;
  const size_t rows = size_t(blocks) * rows_per_block;  // 67,584 dot products
  float* m = device_alloc<float>(kMatrixRows * 512);
  float* v = device_alloc<float>(512);
  float* out = device_alloc<float>(rows);
  fill_random<<<4096, 256>>>(m, kMatrixRows * 512, 108, 0.5f, 1.5f);
  fill_random<<<2, 256>>>(v, 512, 109, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    reduce_sync_every_level<<<blocks, 512>>>(m, v, out, rows_per_block);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hm(512), hv(512);
  CK(cudaMemcpy(hm.data(), m + 7 * 512, 512 * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hv.data(), v, 512 * sizeof(float), cudaMemcpyDeviceToHost));
  double want = 0;
  for (int k = 0; k < 512; ++k) want += double(hm[k]) * hv[k];
  float got = read_back(out + 7);
  if (!(fabs(got - want) < 1e-3 * want)) fail("wrong result %f vs %f\n", got, want);
  time_kernel("reduce_sync_every_level", reps, launch);
  free_device({m, v, out});
  printf("ok\n");
  return 0;
}
