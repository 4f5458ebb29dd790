// fp64_kde_gaussian: blind set 4, kind 1 (the busy unit is the wrong one: FP64 in float code).
// A Gaussian kernel-density estimate, ported from NumPy: 262,144 float query points against 4,096 float
// reference samples staged through shared memory. The inner term is written as
// exp(-0.5 * d * d / (h * h)) with d and h float: the double literal 0.5 promotes the product, the
// division and exp() to double, so every pair costs a double multiply chain, an IEEE double division
// (DFMA/MUFU.RCP64H refinement) and the double exp polynomial on the FP64 pipe, for float inputs and a
// float result. 0.5f, a precomputed -0.5f / (h * h) and __expf/expf would keep it on the FP32 pipe.
// Usage: ./fp64_kde_gaussian [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTile = 256;

__global__ void fp64_kde_gaussian(const float* __restrict__ queries, int n_queries,
                                  const float* __restrict__ samples, int n_samples, float h,
                                  float* __restrict__ density) {
  __shared__ float tile[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = i < n_queries ? queries[i] : 0.0f;
  float acc = 0.0f;
  for (int base = 0; base < n_samples; base += kTile) {
    __syncthreads();
    tile[threadIdx.x] = samples[base + threadIdx.x];
    __syncthreads();
#pragma unroll 4
    for (int j = 0; j < kTile; ++j) {
      float d = x - tile[j];
      acc += exp(-0.5 * d * d / (h * h));
    }
  }
  if (i < n_queries) density[i] = acc / (n_samples * h * 2.5066283f);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n_queries = 262144, n_samples = 4096;
  const float h = 0.35f;
  float* q = device_alloc<float>(n_queries);
  float* s = device_alloc<float>(n_samples);
  float* dens = device_alloc<float>(n_queries);
  fill_random<<<256, 256>>>(q, n_queries, 401, 0.01f, 8.0f);
  fill_random<<<16, 256>>>(s, n_samples, 402, 0.01f, 8.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    fp64_kde_gaussian<<<n_queries / kTile, kTile>>>(q, n_queries, s, n_samples, h, dens);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hs(n_samples);
  CK(cudaMemcpy(hs.data(), s, n_samples * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i : {0, 4097, 131071, n_queries - 1}) {
    float x = read_back(q + i);
    double want = 0;
    for (int j = 0; j < n_samples; ++j) {
      double d = double(x) - hs[j];
      want += std::exp(-0.5 * d * d / (double(h) * h));
    }
    want /= n_samples * double(h) * 2.5066282746;
    float got = read_back(dens + i);
    if (!(fabs(got - want) <= 1e-3 * fabs(want) + 1e-9))
      fail("wrong density at %d: %g vs %g\n", i, got, want);
  }
  time_kernel("fp64_kde_gaussian", reps, launch);
  free_device({q, s, dens});
  printf("ok\n");
  return 0;
}
