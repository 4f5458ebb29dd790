// mufu_cauchy_kde_pairs: blind set 7, kind 1 (division-bound code).
// Heavy-tailed kernel density estimate (robust statistics / t-SNE-style similarities): for each of 256 K
// query points, sum over 4,096 reference points (tiled through shared memory) of
// 1 / (1 + ((x - x_j)^2 + (y - y_j)^2) / h^2) with an IEEE fp32 division by h^2 and by the denominator per
// pair: 1.07 G pairs, two full-precision divisions each (MUFU.RCP plus Newton and the slow-path check), 8
// bytes of global traffic per query. Hoisting 1/h^2 and __frcp_rn/__fdividef would halve and shorten the
// sequence. Usage: ./mufu_cauchy_kde_pairs [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kRefs = 4096, kTile = 256;

__global__ void mufu_cauchy_kde_pairs(const float2* __restrict__ query, const float2* __restrict__ ref,
                                      float* __restrict__ density, int n, float h) {
  __shared__ float2 tile[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float2 q = query[i < n ? i : 0];
  float s = 0.0f;
  for (int base = 0; base < kRefs; base += kTile) {
    __syncthreads();
    tile[threadIdx.x] = ref[base + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < kTile; ++j) {
      float dx = q.x - tile[j].x, dy = q.y - tile[j].y;
      s += 1.0f / (1.0f + (dx * dx + dy * dy) / (h * h));
    }
  }
  if (i < n) density[i] = s / kRefs;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 18;
  float2* query = device_alloc<float2>(n);
  float2* ref = device_alloc<float2>(kRefs);
  float* density = device_alloc<float>(n);
  fill_random<<<1024, 256>>>((float*)query, size_t(n) * 2, 704, -3.0f, 3.0f);
  fill_random<<<32, 256>>>((float*)ref, size_t(kRefs) * 2, 705, -3.0f, 3.0f);
  CK(cudaGetLastError());
  const float h = 0.37f;
  auto launch = [&] {
    mufu_cauchy_kde_pairs<<<n / kTile, kTile>>>(query, ref, density, n, h);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float2> hr(kRefs);
  CK(cudaMemcpy(hr.data(), ref, kRefs * 8, cudaMemcpyDeviceToHost));
  for (int i : {0, 777, n - 1}) {
    float2 q = read_back(query + i);
    double want = 0;
    for (int j = 0; j < kRefs; ++j) {
      double dx = q.x - hr[j].x, dy = q.y - hr[j].y;
      want += 1.0 / (1.0 + (dx * dx + dy * dy) / (double(h) * h));
    }
    want /= kRefs;
    float got = read_back(density + i);
    if (!(std::fabs(got - want) <= 1e-4 * want)) fail("wrong density %d: %g vs %g\n", i, got, want);
  }
  time_kernel("mufu_cauchy_kde_pairs", reps, launch);
  free_device({query, ref, density});
  printf("ok\n");
  return 0;
}
