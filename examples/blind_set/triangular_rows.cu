// triangular_rows: blind set, kind 6 (load imbalance from a triangular loop, not latency).
// y = L x for a lower-triangular 8192 x 8192 matrix, one warp per row (coalesced loads, shuffle
// reduction), each of 2 blocks per SM taking a contiguous band of 32 rows. Row i has i + 1 non-zeros,
// so the last band has hundreds of times the work of the first: SMs holding early bands idle while the late
// ones finish. The fix is balancing the work (pair row i with row n-1-i, or split rows into equal-length
// chunks), not more loads in flight.
// Usage: ./triangular_rows [reps]
#include "../kernels/example_common.cuh"

__global__ void triangular_rows(const float* __restrict__ L, const float* __restrict__ x, float* __restrict__ y,
                                int n, int rows_per_block) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  int first = blockIdx.x * rows_per_block, last = min(n, first + rows_per_block);
  for (int row = first + warp; row < last; row += warps) {
    float acc = 0.0f;
    for (int k = lane; k <= row; k += 32) acc += L[(size_t)row * n + k] * x[k];
    for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
    if (lane == 0) y[row] = acc;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 8192, blocks = 2 * sm_count();
  const int rows_per_block = (n + blocks - 1) / blocks;
  float* L = device_alloc<float>(size_t(n) * n);
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(L, size_t(n) * n, 122, 0.5f, 1.5f);
  fill_random<<<32, 256>>>(x, n, 123, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    triangular_rows<<<blocks, 256>>>(L, x, y, n, rows_per_block);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  const int r = 5000;
  std::vector<float> lrow(r + 1), hx(r + 1);
  CK(cudaMemcpy(lrow.data(), L + size_t(r) * n, (r + 1) * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hx.data(), x, (r + 1) * sizeof(float), cudaMemcpyDeviceToHost));
  double want = 0;
  for (int k = 0; k <= r; ++k) want += double(lrow[k]) * hx[k];
  float got = read_back(y + r);
  if (!(fabs(got - want) < 1e-4 * want)) fail("wrong result %f vs %f\n", got, want);
  time_kernel("triangular_rows", reps, launch);
  free_device({L, x, y});
  printf("ok\n");
  return 0;
}
