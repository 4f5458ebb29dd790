// shared_bank_conflicts: PLANTED BOTTLENECK = 32-way shared-memory bank conflicts.
// Each 32x32 block stages a 32x32 float tile in shared memory WITHOUT padding, then every warp reads the
// tile down a column (lane = row): the 32 addresses of a warp are 128 bytes apart, all in one bank, so
// each LDS is replayed as 32 wavefronts. The fix is tile[32][33] (padding) or a swizzle.
// Size: 2048 blocks x 1024 threads, 128 column reads per thread (global traffic is small: 16 MB).
// Usage: ./shared_bank_conflicts [reps]
#include "example_common.cuh"

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
  const int reps = reps_arg(argc, argv);
  const int blocks = 2048, iters = 128;
  const size_t n = (size_t)blocks * 1024;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
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
  if (acc != hout[5 * 32 + 3]) fail("wrong result %f %f\n", acc, hout[5 * 32 + 3]);
  time_kernel("shared_bank_conflicts", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
