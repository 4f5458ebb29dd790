// barrier_argmax_tree_rows: blind set 8, kind 1 (barrier-bound: a reduction synchronizing at every level).
// Greedy decoding over a batch of beams: the argmax of each 1,024-float row of 65,536 rows, one 1,024-thread
// block per row, the textbook shared-memory tree: ten levels, each a __syncthreads() of 32 warps, a compare
// of value and index pairs and half the threads idle, with no warp shuffle for the last five levels. 268 MB
// of coalesced reads (~60 us at DRAM speed); the block-wide barriers at every level, with only one load per
// thread in flight, dominate the stall reasons. Usage: ./barrier_argmax_tree_rows [reps]
#include "../kernels/example_common.cuh"

constexpr int kCols = 1024;

__global__ void barrier_argmax_tree_rows(const float* __restrict__ logits, int* __restrict__ best) {
  __shared__ float s_v[kCols];
  __shared__ int s_i[kCols];
  const int t = threadIdx.x;
  s_v[t] = logits[size_t(blockIdx.x) * kCols + t];
  s_i[t] = t;
  __syncthreads();
  for (int stride = kCols / 2; stride > 0; stride >>= 1) {
    if (t < stride) {
      float o = s_v[t + stride];
      int oi = s_i[t + stride];
      if (o > s_v[t] || (o == s_v[t] && oi < s_i[t])) s_v[t] = o, s_i[t] = oi;
    }
    __syncthreads();
  }
  if (t == 0) best[blockIdx.x] = s_i[0];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 65536;
  float* x = device_alloc<float>(size_t(rows) * kCols);
  int* best = device_alloc<int>(rows);
  fill_random<<<2048, 256>>>(x, size_t(rows) * kCols, 851, -5.0f, 5.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    barrier_argmax_tree_rows<<<rows, kCols>>>(x, best);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> row(kCols);
  for (int r : {0, 4242, rows - 1}) {
    CK(cudaMemcpy(row.data(), x + size_t(r) * kCols, kCols * 4, cudaMemcpyDeviceToHost));
    int want = 0;
    for (int c = 1; c < kCols; ++c)
      if (row[c] > row[want]) want = c;
    int got = read_back(best + r);
    if (got != want) fail("wrong argmax row %d: %d vs %d\n", r, got, want);
  }
  time_kernel("barrier_argmax_tree_rows", reps, launch);
  free_device({x, best});
  printf("ok\n");
  return 0;
}
