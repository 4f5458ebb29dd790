// column_sum_smem_conflicts: blind set 2, shared-memory bank conflicts.
// Each warp stages a 32 x 32 float tile in shared memory row by row (coalesced, no padding), then lane l
// sums row l of it, 16 passes: at every step the 32 lanes read words 32 floats apart, all in one bank:
// 32-way conflicts on every shared load. A pad of one float per row (stride 33) removes them.
// Usage: ./column_sum_smem_conflicts [reps]
#include "../kernels/example_common.cuh"

__global__ void column_sum_smem_conflicts(const float* __restrict__ x, float* __restrict__ out, int tiles) {
  __shared__ float tile[8][32 * 32];  // one 32 x 32 tile per warp, rows contiguous: no padding
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int t = blockIdx.x * 8 + warp;
  if (t >= tiles) return;
  const float* src = x + size_t(t) * 1024;
  for (int r = 0; r < 32; ++r) tile[warp][r * 32 + lane] = src[r * 32 + lane];
  __syncwarp();
  float acc = 0.0f;
  for (int pass = 0; pass < 16; ++pass)
    for (int r = 0; r < 32; ++r) acc += tile[warp][lane * 32 + ((r + pass) & 31)];  // one bank for all lanes
  out[size_t(t) * 32 + lane] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tiles = 65536;
  float* x = device_alloc<float>(size_t(tiles) * 1024);
  float* out = device_alloc<float>(size_t(tiles) * 32);
  fill_random<<<1024, 256>>>(x, size_t(tiles) * 1024, 212, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    column_sum_smem_conflicts<<<tiles / 8, 256>>>(x, out, tiles);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> h(1024);
  CK(cudaMemcpy(h.data(), x + size_t(33) * 1024, 4096, cudaMemcpyDeviceToHost));
  double want = 0;
  for (int r = 0; r < 32; ++r) want += h[5 * 32 + r];
  float got = read_back(out + size_t(33) * 32 + 5);
  if (!(fabs(got - 16 * want) <= 1e-3 * 16 * want)) fail("wrong result %f vs %f\n", got, 16 * want);
  time_kernel("column_sum_smem_conflicts", reps, launch);
  free_device({x, out});
  printf("ok\n");
  return 0;
}
