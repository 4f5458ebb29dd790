// row_atomic_scatter: blind set, kind 6 (atomic contention, not imbalance).
// A transposed sparse product y += A^T x with one thread per row of a CSR-like matrix (32 non-zeros per
// row, 2 M rows): each thread atomically adds val * x[row] into y[col], and the column indices fall in a
// hot set of 64 columns (a skewed feature space), so millions of float atomics serialise on a few L2
// sectors. The fix: privatise (per-block shared-memory partial sums of the hot columns, then one atomic
// per column per block), or sort/segment by column.
// Usage: ./row_atomic_scatter [reps]
#include "../kernels/example_common.cuh"

constexpr int kNnzPerRow = 32, kHotColumns = 64;

__global__ void row_atomic_scatter(const int* __restrict__ cols, const float* __restrict__ vals,
                                   const float* __restrict__ x, float* __restrict__ y, int rows) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float xr = x[row];
  for (int k = 0; k < kNnzPerRow; ++k) {
    size_t e = (size_t)k * rows + row;  // column-major CSR slab: coalesced across threads
    atomicAdd(&y[cols[e]], vals[e] * xr);
  }
}

__global__ void make_columns(int* cols, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u;
    h ^= h >> 15;
    cols[i] = int(h % kHotColumns);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 1 << 21;
  const size_t nnz = size_t(rows) * kNnzPerRow;
  int* cols = device_alloc<int>(nnz);
  float* vals = device_alloc<float>(nnz);
  float* x = device_alloc<float>(rows);
  float* y = device_alloc<float>(kHotColumns);
  make_columns<<<4096, 256>>>(cols, nnz);
  fill_random<<<4096, 256>>>(vals, nnz, 124, 0.5f, 1.5f);
  fill_random<<<4096, 256>>>(x, rows, 125, 0.5f, 1.5f);
  CK(cudaMemset(y, 0, kHotColumns * sizeof(float)));
  CK(cudaGetLastError());
  auto launch = [&] {
    row_atomic_scatter<<<(rows + 255) / 256, 256>>>(cols, vals, x, y, rows);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float total = 0, h[kHotColumns];
  CK(cudaMemcpy(h, y, sizeof(h), cudaMemcpyDeviceToHost));
  for (float v : h) total += v;
  // each product is in [0.25, 2.25): the sum of nnz of them
  if (!(total > 0.25f * nnz && total < 2.25f * nnz)) fail("wrong result %f\n", total);
  time_kernel("row_atomic_scatter", reps, launch);
  free_device({cols, vals, x, y});
  printf("ok\n");
  return 0;
}
