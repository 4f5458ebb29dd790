// per_row_launches: blind set 2, kind 7 (launch overhead).
// A softmax-like normalisation launched once per row: 8,192 launches of a one-block kernel over a
// 512-float row (a microsecond or two of work each), back to back. The GPU idles between launches for
// most of the wall time; one launch over all rows (a block per row) is the fix.
// Usage: ./per_row_launches [reps]
#include "../kernels/example_common.cuh"

__global__ void row_scale(float* __restrict__ row, int cols) {
  __shared__ float total;
  if (threadIdx.x == 0) total = 0.0f;
  __syncthreads();
  float local = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) local += row[c];
  atomicAdd(&total, local);
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x) row[c] /= total;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 8192, cols = 512;
  float* m = device_alloc<float>(size_t(rows) * cols);
  fill_random<<<1024, 256>>>(m, size_t(rows) * cols, 211, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto all_rows = [&] {
    for (int r = 0; r < rows; ++r) row_scale<<<1, 256>>>(m + size_t(r) * cols, cols);
    CK(cudaGetLastError());
  };
  all_rows();
  CK(cudaDeviceSynchronize());
  std::vector<float> h(cols);
  CK(cudaMemcpy(h.data(), m + size_t(4000) * cols, cols * 4, cudaMemcpyDeviceToHost));
  double s = 0;
  for (float v : h) s += v;
  if (!(fabs(s - 1.0) < 1e-3)) fail("wrong row sum %f\n", s);
  time_kernel("row_scale", reps, [&] { row_scale<<<1, 256>>>(m, cols); });
  free_device({m});
  printf("ok\n");
  return 0;
}
