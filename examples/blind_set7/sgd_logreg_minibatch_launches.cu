// sgd_logreg_minibatch_launches: blind set 7, kind 7 (launch overhead of thousands of tiny launches).
// Online logistic regression on a click stream (8 dense features), one SGD step per mini-batch of 256
// examples, 3,000 mini-batches, one launch of sgd_step each: a single 256-thread block computes the batch's
// gradient (one example per thread, warp shuffles and 8 shared atomics per warp) and updates the weights:
// about a microsecond of work per launch, back to back, so launch latency dominates the run. Fusing the
// steps into one kernel looping over mini-batches (the updates are sequential anyway) or a CUDA graph is the
// fix. Usage: ./sgd_logreg_minibatch_launches [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kFeat = 8, kBatch = 256, kSteps = 3000;

__global__ void __launch_bounds__(kBatch) sgd_step(const float* __restrict__ x, const float* __restrict__ y,
                                                   float* __restrict__ w, int step, float lr) {
  __shared__ float sw[kFeat], grad[kFeat];
  const int t = threadIdx.x;
  if (t < kFeat) sw[t] = w[t], grad[t] = 0.0f;
  __syncthreads();
  const float* xi = x + (size_t(step) * kBatch + t) * kFeat;
  float z = 0.0f;
  for (int f = 0; f < kFeat; ++f) z += xi[f] * sw[f];
  float err = 1.0f / (1.0f + __expf(-z)) - y[size_t(step) * kBatch + t];
  for (int f = 0; f < kFeat; ++f) {
    float g = err * xi[f];
    for (int o = 16; o > 0; o >>= 1) g += __shfl_xor_sync(0xffffffffu, g, o);
    if (t % 32 == 0) atomicAdd(&grad[f], g);
  }
  __syncthreads();
  if (t < kFeat) w[t] = sw[t] - lr * grad[t] / kBatch;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(kSteps) * kBatch;
  float* x = device_alloc<float>(n * kFeat);
  float* y = device_alloc<float>(n);
  float* w = device_alloc<float>(kFeat);
  fill_random<<<2048, 256>>>(x, n * kFeat, 719, -1.0f, 1.0f);
  fill_random<<<256, 256>>>(y, n, 720, 0.0f, 1.0f);
  CK(cudaGetLastError());
  auto run = [&] {
    CK(cudaMemset(w, 0, kFeat * 4));
    for (int s = 0; s < kSteps; ++s) {
      sgd_step<<<1, kBatch>>>(x, y, w, s, 0.5f);
      CK(cudaGetLastError());
    }
  };
  run();
  CK(cudaDeviceSynchronize());
  // host replay of the first 50 steps against a separate short device run
  std::vector<float> hx(size_t(50) * kBatch * kFeat), hy(size_t(50) * kBatch), hw(kFeat, 0.0f), got(kFeat);
  CK(cudaMemcpy(hx.data(), x, hx.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hy.data(), y, hy.size() * 4, cudaMemcpyDeviceToHost));
  for (int s = 0; s < 50; ++s) {
    std::vector<double> g(kFeat, 0.0);
    for (int i = 0; i < kBatch; ++i) {
      const float* xi = &hx[(size_t(s) * kBatch + i) * kFeat];
      double z = 0;
      for (int f = 0; f < kFeat; ++f) z += xi[f] * hw[f];
      double err = 1.0 / (1.0 + std::exp(-z)) - hy[size_t(s) * kBatch + i];
      for (int f = 0; f < kFeat; ++f) g[f] += err * xi[f];
    }
    for (int f = 0; f < kFeat; ++f) hw[f] = float(hw[f] - 0.5 * g[f] / kBatch);
  }
  CK(cudaMemset(w, 0, kFeat * 4));
  for (int s = 0; s < 50; ++s) sgd_step<<<1, kBatch>>>(x, y, w, s, 0.5f);
  CK(cudaMemcpy(got.data(), w, kFeat * 4, cudaMemcpyDeviceToHost));
  for (int f = 0; f < kFeat; ++f)
    if (!(std::fabs(got[f] - hw[f]) <= 1e-3f * std::fabs(hw[f]) + 1e-4f))
      fail("wrong weight %d: %g vs %g\n", f, got[f], hw[f]);
  time_kernel("sgd_logreg_minibatch_launches_run", reps > 0 ? 3 : 0, run);
  free_device({x, y, w});
  printf("ok\n");
  return 0;
}
