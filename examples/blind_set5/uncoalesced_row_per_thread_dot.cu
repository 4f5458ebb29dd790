// uncoalesced_row_per_thread_dot: blind set 5, kind other (uncoalesced global loads).
// Scoring 262,144 protein feature vectors (256 floats each, row-major, 256 MB) against one weight vector,
// a logistic-regression scorer written thread-per-row: thread i walks its own row A[i * 256 + k]. At each
// k the 32 lanes of a warp load from 32 rows 1 KB apart, 32 sectors per request where a coalesced load needs
// 4, and the L1 cannot hold a line per thread for the 32 iterations that would reuse it. A warp (or a group
// of 8 lanes with float4 loads) per row with a shuffle reduction reads the same bytes coalesced.
// Usage: ./uncoalesced_row_per_thread_dot [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kDim = 256;

__global__ void uncoalesced_row_per_thread_dot(const float* __restrict__ feats, const float* __restrict__ w,
                                               float* __restrict__ score, int rows) {
  __shared__ float sw[kDim];
  for (int k = threadIdx.x; k < kDim; k += blockDim.x) sw[k] = w[k];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  const float* row = feats + (size_t)i * kDim;
  float acc = 0.0f;
  for (int k = 0; k < kDim; ++k) acc += row[k] * sw[k];
  score[i] = 1.0f / (1.0f + __expf(-acc));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 262144;
  const size_t n = size_t(rows) * kDim;
  float* feats = device_alloc<float>(n);
  float* w = device_alloc<float>(kDim);
  float* score = device_alloc<float>(rows);
  fill_random<<<2048, 256>>>(feats, n, 601, 0.0f + 1e-3f, 1.0f);
  fill_random<<<1, 256>>>(w, kDim, 602, 0.001f, 0.02f);
  CK(cudaGetLastError());
  auto launch = [&] {
    uncoalesced_row_per_thread_dot<<<rows / 256, 256>>>(feats, w, score, rows);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hw(kDim), hr(kDim);
  CK(cudaMemcpy(hw.data(), w, kDim * 4, cudaMemcpyDeviceToHost));
  for (int i : {0, 100000, rows - 1}) {
    CK(cudaMemcpy(hr.data(), feats + size_t(i) * kDim, kDim * 4, cudaMemcpyDeviceToHost));
    double acc = 0;
    for (int k = 0; k < kDim; ++k) acc += double(hr[k]) * hw[k];
    float want = float(1.0 / (1.0 + std::exp(-acc))), got = read_back(score + i);
    if (!(std::fabs(got - want) <= 1e-4f)) fail("wrong score at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("uncoalesced_row_per_thread_dot", reps, launch);
  free_device({feats, w, score});
  printf("ok\n");
  return 0;
}
