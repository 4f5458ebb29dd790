// mufu_rbf_gram_rowsum: blind set 4, kind 1 (the busy unit is the wrong one: IEEE division and
// full-accuracy transcendentals).
// Row sums of a Gaussian-process kernel matrix, k(x, y) = exp(-|x - y|^2 / (2 s^2)) + c / (c + |x - y|^2)
// (an RBF plus a rational-quadratic-like term), over 32,768 points in 3-D staged through shared memory:
// 1 G pairs. Each pair costs six FMA-pipe instructions of distance and then two IEEE single-precision
// divisions (MUFU.RCP plus the Newton refinement and range checks) and an accurate expf. The divisor
// 2 s^2 is a kernel argument, so without fast math the compiler keeps a real division per pair. A
// reciprocal computed once (and __expf, __frcp_rn or __fdividef where the tolerance allows) would
// remove most of the instructions.
// Usage: ./mufu_rbf_gram_rowsum [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTile = 256;

__global__ void mufu_rbf_gram_rowsum(const float4* __restrict__ pts, int n, float two_s2, float c,
                                     float* __restrict__ rowsum) {
  __shared__ float4 tile[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = pts[i];
  float acc = 0.0f;
  for (int base = 0; base < n; base += kTile) {
    __syncthreads();
    tile[threadIdx.x] = pts[base + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < kTile; ++j) {
      float4 q = tile[j];
      float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;
      float d2 = dx * dx + dy * dy + dz * dz;
      acc += expf(-d2 / two_s2) + c / (c + d2);
    }
  }
  rowsum[i] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 32768;
  const float s = 0.4f, two_s2 = 2 * s * s, c = 0.3f;
  float* pts = device_alloc<float>(4 * size_t(n));
  float* rowsum = device_alloc<float>(n);
  fill_random<<<128, 256>>>(pts, 4 * size_t(n), 403, 0.01f, 4.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    mufu_rbf_gram_rowsum<<<n / kTile, kTile>>>((const float4*)pts, n, two_s2, c, rowsum);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hp(4 * size_t(n));
  CK(cudaMemcpy(hp.data(), pts, hp.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i : {0, 777, 20000, n - 1}) {
    double want = 0;
    for (int j = 0; j < n; ++j) {
      double dx = hp[4 * i] - hp[4 * j], dy = hp[4 * i + 1] - hp[4 * j + 1],
             dz = hp[4 * i + 2] - hp[4 * j + 2];
      double d2 = dx * dx + dy * dy + dz * dz;
      want += std::exp(-d2 / two_s2) + c / (c + d2);
    }
    float got = read_back(rowsum + i);
    if (!(fabs(got - want) <= 1e-3 * want)) fail("wrong row sum at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("mufu_rbf_gram_rowsum", reps, launch);
  free_device({pts, rowsum});
  printf("ok\n");
  return 0;
}
