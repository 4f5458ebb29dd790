// imbalance_zipf_groupby: blind set 5, kind 6 (load imbalance across SMs).
// GROUP BY key -> (SUM, MAX) of a 32 M-row fact table already sorted by key (column store, analytics),
// one 256-thread block per group, each block striding over its group's rows and reducing in shared memory.
// The 2,048 group sizes follow a Zipf law (s = 1.2): the largest group holds about a fifth of all rows,
// the ten largest half of them, while most groups have a few hundred rows. After the small groups drain in
// the first microseconds, a handful of blocks on a handful of SMs stream the big groups at one block's
// bandwidth while the other SMs idle. Splitting big groups over several blocks (rows-per-block work items
// plus a second combine step, or atomics on the group result) balances it.
// Usage: ./imbalance_zipf_groupby [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void imbalance_zipf_groupby(const float* __restrict__ vals, const long* __restrict__ offsets,
                                       float2* __restrict__ result) {
  __shared__ float ssum[256], smax[256];
  const long begin = offsets[blockIdx.x], end = offsets[blockIdx.x + 1];
  float s = 0.0f, m = -INFINITY;
  for (long r = begin + threadIdx.x; r < end; r += blockDim.x) {
    float v = vals[r];
    s += v;
    m = fmaxf(m, v);
  }
  ssum[threadIdx.x] = s;
  smax[threadIdx.x] = m;
  __syncthreads();
  for (int h = blockDim.x / 2; h > 0; h >>= 1) {
    if (threadIdx.x < h) {
      ssum[threadIdx.x] += ssum[threadIdx.x + h];
      smax[threadIdx.x] = fmaxf(smax[threadIdx.x], smax[threadIdx.x + h]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) result[blockIdx.x] = make_float2(ssum[0], smax[0]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int groups = 2048;
  const long rows = 32L << 20;
  std::vector<long> off(groups + 1);
  double z = 0;
  for (int g = 0; g < groups; ++g) z += std::pow(g + 1.0, -1.2);
  off[0] = 0;
  for (int g = 0; g < groups; ++g)
    off[g + 1] = off[g] + std::max(1L, long(rows * std::pow(g + 1.0, -1.2) / z));
  const long n = off[groups];
  float* vals = device_alloc<float>(n);
  long* offsets = device_alloc<long>(groups + 1);
  float2* result = device_alloc<float2>(groups);
  fill_random<<<2048, 256>>>(vals, n, 571, 0.0f + 1e-3f, 1.0f);
  CK(cudaMemcpy(offsets, off.data(), sizeof(long) * (groups + 1), cudaMemcpyHostToDevice));
  CK(cudaGetLastError());
  auto launch = [&] {
    imbalance_zipf_groupby<<<groups, 256>>>(vals, offsets, result);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int g : {0, 1, 100, groups - 1}) {
    std::vector<float> v(off[g + 1] - off[g]);
    CK(cudaMemcpy(v.data(), vals + off[g], v.size() * 4, cudaMemcpyDeviceToHost));
    double s = 0;
    float m = -INFINITY;
    for (float x : v) s += x, m = std::max(m, x);
    float2 got = read_back(result + g);
    if (!(std::fabs(got.x - s) <= 1e-4 * s + 1e-3) || got.y != m)
      fail("wrong group %d: %f %f vs %f %f\n", g, got.x, got.y, s, m);
  }
  time_kernel("imbalance_zipf_groupby", reps, launch);
  free_device({vals, offsets, result});
  printf("ok\n");
  return 0;
}
