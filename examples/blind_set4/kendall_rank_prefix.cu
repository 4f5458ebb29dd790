// kendall_rank_prefix: blind set 4, kind 6 (load imbalance: work growing with the index).
// The concordance counts of a Kendall-tau / Mann-Kendall trend test over a 131,072-sample time series:
// for each sample i, the number of earlier samples j < i with x[j] < x[i] (and with x[j] == x[i]).
// One thread per sample loops over all earlier samples, so thread i does i iterations: the last of the
// 256 blocks of 512 threads works 256 times longer than the first. All blocks are resident at once
// (one wave), so the SMs holding low-index blocks go idle early while the few holding the last blocks
// run on alone. The loads are warp-uniform L1 broadcasts (all lanes read the same x[j]); the loop is
// not memory-bound. Splitting the j range evenly (a 2-D decomposition of the triangle, or a merge-sort
// based count) would balance it.
// Usage: ./kendall_rank_prefix [reps]
#include "../kernels/example_common.cuh"

__global__ void kendall_rank_prefix(const float* __restrict__ x, int n, int* __restrict__ below,
                                    int* __restrict__ ties) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float xi = x[i];
  int lt = 0, eq = 0;
  for (int j = 0; j < i; ++j) {
    float xj = x[j];
    lt += xj < xi;
    eq += xj == xi;
  }
  below[i] = lt;
  ties[i] = eq;
}

__global__ void quantize(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = floorf(x[i] * 512.0f) + 0.001f * float(i / 4096);  // a slow trend plus ties
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 131072;
  float* x = device_alloc<float>(n);
  int* below = device_alloc<int>(n);
  int* ties = device_alloc<int>(n);
  fill_random<<<128, 256>>>(x, n, 418, 0.01f, 1.0f);
  quantize<<<n / 256, 256>>>(x, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    kendall_rank_prefix<<<n / 512, 512>>>(x, n, below, ties);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(n);
  CK(cudaMemcpy(hx.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i : {0, 1, 5000, 77777, n - 1}) {
    int lt = 0, eq = 0;
    for (int j = 0; j < i; ++j) {
      lt += hx[j] < hx[i];
      eq += hx[j] == hx[i];
    }
    int got_lt = read_back(below + i), got_eq = read_back(ties + i);
    if (got_lt != lt || got_eq != eq) fail("wrong counts at %d: %d/%d vs %d/%d\n", i, got_lt, got_eq, lt, eq);
  }
  time_kernel("kendall_rank_prefix", reps, launch);
  free_device({x, below, ties});
  printf("ok\n");
  return 0;
}
