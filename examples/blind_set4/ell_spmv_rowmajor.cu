// ell_spmv_rowmajor: blind set 4, other cause (uncoalesced global loads).
// Sparse matrix-vector product in ELLPACK format for a 2-D finite-volume operator with 32 stored entries
// per row (2 M rows: 256 MB of values and 256 MB of column indices), one thread per row, but with the
// ELL arrays laid out row-major (values[row * 32 + k]) as a CPU code would: at every k the 32 lanes of a
// warp read addresses 128 bytes apart, one useful 4-byte word per 32-byte sector per load instruction,
// for both the values and the indices. The x gathers are banded and cache-friendly. Column-major ELL
// (values[k * rows + row]) or a warp-per-row CSR layout makes the same reads coalesced.
// Usage: ./ell_spmv_rowmajor [reps]
#include "../kernels/example_common.cuh"

constexpr int kWidth = 32;

__global__ void ell_spmv_rowmajor(const float* __restrict__ values, const int* __restrict__ cols,
                                  const float* __restrict__ x, float* __restrict__ y, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.0f;
#pragma unroll 8
  for (int k = 0; k < kWidth; ++k) {
    size_t e = size_t(r) * kWidth + k;
    acc += values[e] * x[cols[e]];
  }
  y[r] = acc;
}

// Column indices of a banded operator: row r couples to r + offset[k] (clamped), 32 distinct offsets.
__global__ void build_cols(int* cols, int rows) {
  size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (e >= size_t(rows) * kWidth) return;
  int r = int(e / kWidth), k = int(e % kWidth);
  int off = (k < 16) ? (k - 8) : ((k - 16) - 8) * 1024;
  int c = r + off;
  cols[e] = c < 0 ? 0 : (c >= rows ? rows - 1 : c);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 1 << 21;
  const size_t nnz = size_t(rows) * kWidth;
  float* values = device_alloc<float>(nnz);
  int* cols = device_alloc<int>(nnz);
  float* x = device_alloc<float>(rows);
  float* y = device_alloc<float>(rows);
  fill_random<<<2048, 256>>>(values, nnz, 425, 0.01f, 1.0f);
  fill_random<<<1024, 256>>>(x, rows, 426, 0.01f, 1.0f);
  build_cols<<<unsigned((nnz + 255) / 256), 256>>>(cols, rows);
  CK(cudaGetLastError());
  auto launch = [&] {
    ell_spmv_rowmajor<<<rows / 256, 256>>>(values, cols, x, y, rows);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hv(kWidth);
  std::vector<int> hc(kWidth);
  for (int r : {0, 12345, 1048576, rows - 1}) {
    CK(cudaMemcpy(hv.data(), values + size_t(r) * kWidth, kWidth * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), cols + size_t(r) * kWidth, kWidth * sizeof(int), cudaMemcpyDeviceToHost));
    double want = 0;
    for (int k = 0; k < kWidth; ++k) want += double(hv[k]) * read_back(x + hc[k]);
    float got = read_back(y + r);
    if (!(fabs(got - want) <= 1e-5 * want)) fail("wrong y[%d]: %f vs %f\n", r, got, want);
  }
  time_kernel("ell_spmv_rowmajor", reps, launch);
  free_device({values, cols, x, y});
  printf("ok\n");
  return 0;
}
