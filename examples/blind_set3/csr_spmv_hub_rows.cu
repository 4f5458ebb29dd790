// csr_spmv_hub_rows: blind set 3, kind 6 (load imbalance across SMs).
// Sparse matrix-vector product y = A x over a power-law graph in CSR (1 M rows, 21 M non-zeros), one warp
// per row (the "vector CSR" kernel), 8 rows per 256-thread block. 32 hub rows (one every 32,768 rows) hold
// 131,072 non-zeros each, the other rows 16: the 32 blocks that drew a hub run one warp through 4,096
// gather iterations long after every other SM has finished its share. Splitting long rows across warps
// or blocks (merge-path / CSR-adaptive, or a separate pass for the hub rows) is the fix.
// Usage: ./csr_spmv_hub_rows [reps]
#include "../kernels/example_common.cuh"

constexpr int kRowsPerBlock = 8;

__global__ void csr_spmv_hub_rows(const int* __restrict__ row_ptr, const int* __restrict__ cols,
                                  const float* __restrict__ vals, const float* __restrict__ x,
                                  float* __restrict__ y, int rows) {
  int row = blockIdx.x * kRowsPerBlock + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += 32) sum += vals[k] * x[cols[k]];
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  if (lane == 0) y[row] = sum;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 1 << 20, hub_every = 32768, hub_nnz = 131072, row_nnz = 16;
  std::vector<int> row_ptr(rows + 1);
  row_ptr[0] = 0;
  for (int r = 0; r < rows; ++r) row_ptr[r + 1] = row_ptr[r] + (r % hub_every == 7 ? hub_nnz : row_nnz);
  const int nnz = row_ptr[rows];
  std::vector<int> cols(nnz);
  unsigned s = 321u;
  for (int k = 0; k < nnz; ++k) {
    s = s * 1664525u + 1013904223u;
    cols[k] = int(s >> 12);  // [0, 2^20): a column of the 1 M x 1 M matrix
  }
  int* d_row_ptr = device_alloc<int>(rows + 1);
  int* d_cols = device_alloc<int>(nnz);
  float* vals = device_alloc<float>(nnz);
  float* x = device_alloc<float>(rows);
  float* y = device_alloc<float>(rows);
  CK(cudaMemcpy(d_row_ptr, row_ptr.data(), (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_cols, cols.data(), size_t(nnz) * sizeof(int), cudaMemcpyHostToDevice));
  fill_random<<<1024, 256>>>(vals, nnz, 322, 0.5f, 1.5f);
  fill_random<<<1024, 256>>>(x, rows, 323, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    csr_spmv_hub_rows<<<rows / kRowsPerBlock, kRowsPerBlock * 32>>>(d_row_ptr, d_cols, vals, x, y, rows);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(rows);
  CK(cudaMemcpy(hx.data(), x, rows * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r : {0, 7, 32775, 500000, rows - 1}) {
    int b = row_ptr[r], e = row_ptr[r + 1];
    std::vector<float> hv(e - b);
    CK(cudaMemcpy(hv.data(), vals + b, (e - b) * sizeof(float), cudaMemcpyDeviceToHost));
    double want = 0;
    for (int k = b; k < e; ++k) want += double(hv[k - b]) * hx[cols[k]];
    float got = read_back(y + r);
    if (!(fabs(got - want) <= 1e-4 * want)) fail("wrong result at row %d: %f vs %f\n", r, got, want);
  }
  time_kernel("csr_spmv_hub_rows", reps, launch);
  free_device({d_row_ptr, d_cols, vals, x, y});
  printf("ok\n");
  return 0;
}
