// healthy_sgd_nesterov_stream: blind set 7, kind healthy (a well-written kernel near the DRAM ceiling).
// The fused SGD step with Nesterov momentum and weight decay of a 100 M-parameter fp32 model:
// g' = g + wd p; v = mu v + g'; p -= lr (g' + mu v). One pass with 16-byte loads and stores, grid-stride:
// 1.2 GB read (p, g, v) and 0.8 GB written (p, v), about 5 FLOPs per 20 bytes: ~0.45 ms at the H200's
// achievable DRAM bandwidth, which it should reach. Nothing to fix beyond fusing into other optimizer work.
// Usage: ./healthy_sgd_nesterov_stream [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__host__ __device__ inline void nesterov(float& p, float g, float& v, float lr, float mu, float wd) {
  g += wd * p;
  v = mu * v + g;
  p -= lr * (g + mu * v);
}

__global__ void healthy_sgd_nesterov_stream(float4* __restrict__ p, const float4* __restrict__ g,
                                            float4* __restrict__ v, size_t n4, float lr, float mu, float wd) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 pp = p[i], gg = g[i], vv = v[i];
    nesterov(pp.x, gg.x, vv.x, lr, mu, wd);
    nesterov(pp.y, gg.y, vv.y, lr, mu, wd);
    nesterov(pp.z, gg.z, vv.z, lr, mu, wd);
    nesterov(pp.w, gg.w, vv.w, lr, mu, wd);
    p[i] = pp;
    v[i] = vv;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(100) << 20;  // 104,857,600 parameters
  float *p = device_alloc<float>(n), *g = device_alloc<float>(n), *v = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(p, n, 727, -0.1f, 0.1f);
  fill_random<<<4096, 256>>>(g, n, 728, -0.01f, 0.01f);
  fill_random<<<4096, 256>>>(v, n, 729, -0.01f, 0.01f);
  CK(cudaGetLastError());
  const size_t probes[4] = {0, 1, n / 2 + 7, n - 1};
  float p0[4], g0[4], v0[4];
  for (int k = 0; k < 4; ++k)
    p0[k] = read_back(p + probes[k]), g0[k] = read_back(g + probes[k]), v0[k] = read_back(v + probes[k]);
  const float lr = 0.01f, mu = 0.9f, wd = 1e-4f;
  const int blocks = sm_count() * 16;
  auto launch = [&] {
    healthy_sgd_nesterov_stream<<<blocks, 256>>>((float4*)p, (const float4*)g, (float4*)v, n / 4, lr, mu, wd);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int k = 0; k < 4; ++k) {
    float wp = p0[k], wv = v0[k];
    nesterov(wp, g0[k], wv, lr, mu, wd);
    float gp = read_back(p + probes[k]), gv = read_back(v + probes[k]);
    if (!(std::fabs(gp - wp) <= 1e-6f && std::fabs(gv - wv) <= 1e-6f))
      fail("wrong update %zu: p %g vs %g\n", probes[k], gp, wp);
  }
  time_kernel("healthy_sgd_nesterov_stream", reps, launch);
  free_device({p, g, v});
  printf("ok\n");
  return 0;
}
