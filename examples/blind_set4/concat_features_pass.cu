// concat_features_pass: blind set 4, kind 8 (a pass that exists only to move data), in a four-kernel
// program.
// A recommender's feature pipeline: one kernel writes 512 dense embedding features per example, another
// 256 position/context features, then torch.cat-style concat_features_pass copies both into a new
// [131,072 x 768] float buffer (reads 403 MB, writes 403 MB, no arithmetic) so that the consumer, a
// row-wise projection, can read one contiguous row per example. The concatenation is pure data
// movement: the producers can write straight into the two column ranges of the concatenated buffer (or
// the consumer can read from the two sources), and the DRAM round trip disappears. The profile holds all
// four kernels; the labelled launch is concat_features_pass.
// Usage: ./concat_features_pass [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kDense = 512, kCtx = 256, kCat = kDense + kCtx;

__global__ void embed_dense(const float* __restrict__ table, float* __restrict__ dense, int rows) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= size_t(rows) * kDense) return;
  int r = int(i / kDense), c = int(i % kDense);
  dense[i] = table[(r * 2654435761u % 4096) * kDense / 64 + c % (kDense / 64)] * (1.0f + 1e-3f * c);
}

__global__ void context_features(float* __restrict__ ctx, int rows) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= size_t(rows) * kCtx) return;
  int r = int(i / kCtx), c = int(i % kCtx);
  ctx[i] = __sinf(0.001f * r + 0.1f * c);
}

// out[r][0:512] = dense[r], out[r][512:768] = ctx[r], one float4 per thread.
__global__ void concat_features_pass(const float4* __restrict__ dense, const float4* __restrict__ ctx,
                                     float4* __restrict__ out, int rows) {
  size_t o = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (o >= size_t(rows) * (kCat / 4)) return;
  size_t r = o / (kCat / 4);
  int c4 = int(o % (kCat / 4));
  out[o] = c4 < kDense / 4 ? dense[r * (kDense / 4) + c4] : ctx[r * (kCtx / 4) + (c4 - kDense / 4)];
}

// One warp per row: y[r] = sum_c w[c] * cat[r][c].
__global__ void project_rows(const float* __restrict__ cat, const float* __restrict__ w,
                             float* __restrict__ y, int rows) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const float* row = cat + size_t(warp) * kCat;
  float acc = 0.0f;
  for (int c = lane; c < kCat; c += 32) acc += w[c] * row[c];
  for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
  if (lane == 0) y[warp] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 131072;
  const int table_n = 4096 * kDense / 64 + kDense;
  float* table = device_alloc<float>(table_n);
  float* w = device_alloc<float>(kCat);
  float* dense = device_alloc<float>(size_t(rows) * kDense);
  float* ctx = device_alloc<float>(size_t(rows) * kCtx);
  float* cat = device_alloc<float>(size_t(rows) * kCat);
  float* y = device_alloc<float>(rows);
  fill_random<<<256, 256>>>(table, table_n, 421, 0.01f, 1.0f);
  fill_random<<<4, 256>>>(w, kCat, 422, 0.01f, 1.0f);
  CK(cudaGetLastError());
  auto forward = [&] {
    embed_dense<<<unsigned((size_t(rows) * kDense + 255) / 256), 256>>>(table, dense, rows);
    context_features<<<unsigned((size_t(rows) * kCtx + 255) / 256), 256>>>(ctx, rows);
    concat_features_pass<<<unsigned((size_t(rows) * kCat / 4 + 255) / 256), 256>>>(
        (const float4*)dense, (const float4*)ctx, (float4*)cat, rows);
    project_rows<<<rows * 32 / 256, 256>>>(cat, w, y, rows);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> hw(kCat), hd(kDense), hc(kCtx);
  CK(cudaMemcpy(hw.data(), w, kCat * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r : {0, 65537, rows - 1}) {
    CK(cudaMemcpy(hd.data(), dense + size_t(r) * kDense, kDense * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hc.data(), ctx + size_t(r) * kCtx, kCtx * sizeof(float), cudaMemcpyDeviceToHost));
    double want = 0;
    for (int c = 0; c < kDense; ++c) want += double(hw[c]) * hd[c];
    for (int c = 0; c < kCtx; ++c) want += double(hw[kDense + c]) * hc[c];
    float got = read_back(y + r);
    if (!(fabs(got - want) <= 1e-4 * (1 + fabs(want))))
      fail("wrong projection of row %d: %f vs %f\n", r, got, want);
  }
  time_kernel("concat_features_pass_forward", reps, forward);
  free_device({table, w, dense, ctx, cat, y});
  printf("ok\n");
  return 0;
}
