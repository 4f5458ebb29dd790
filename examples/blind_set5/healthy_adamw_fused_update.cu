// healthy_adamw_fused_update: blind set 5, kind healthy (a DRAM-bound stream near its ceiling).
// A fused AdamW optimizer step over 64 M fp32 parameters (the flat parameter buffer of a 64 M-parameter
// model): params, grads and both moments read as float4 and params and moments written back, 28 bytes
// per parameter, 1.8 GB per step, one sqrtf and one division per value (a few dozen instructions per 28
// bytes). Already fused, vectorized and coalesced: it runs near the DRAM bandwidth; only lower-precision
// state or fusing into the backward pass would reduce the bytes.
// Usage: ./healthy_adamw_fused_update [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

struct AdamW {
  float lr, b1, b2, eps, wd, bc1, bc2;  // bc1 = 1 - b1^t, bc2 = 1 - b2^t
};

__device__ inline void adamw_one(float& p, float g, float& m, float& v, const AdamW& a) {
  m = a.b1 * m + (1.0f - a.b1) * g;
  v = a.b2 * v + (1.0f - a.b2) * g * g;
  float mhat = m / a.bc1, vhat = v / a.bc2;
  p -= a.lr * (mhat / (sqrtf(vhat) + a.eps) + a.wd * p);
}

__global__ void healthy_adamw_fused_update(float4* __restrict__ p, const float4* __restrict__ g,
                                           float4* __restrict__ m, float4* __restrict__ v, AdamW a,
                                           size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 pp = p[i], gg = g[i], mm = m[i], vv = v[i];
    adamw_one(pp.x, gg.x, mm.x, vv.x, a);
    adamw_one(pp.y, gg.y, mm.y, vv.y, a);
    adamw_one(pp.z, gg.z, mm.z, vv.z, a);
    adamw_one(pp.w, gg.w, mm.w, vv.w, a);
    p[i] = pp;
    m[i] = mm;
    v[i] = vv;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(64) << 20;
  float* p = device_alloc<float>(n);
  float* g = device_alloc<float>(n);
  float* m = device_alloc<float>(n);
  float* v = device_alloc<float>(n);
  fill_random<<<2048, 256>>>(p, n, 641, 0.5f, 1.5f);
  fill_random<<<2048, 256>>>(g, n, 642, 0.001f, 0.01f);
  fill_random<<<2048, 256>>>(m, n, 643, 0.001f, 0.002f);
  fill_random<<<2048, 256>>>(v, n, 644, 1e-6f, 2e-6f);
  CK(cudaGetLastError());
  const AdamW a{
      1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, 1.0f - std::pow(0.9f, 10.0f), 1.0f - std::pow(0.999f, 10.0f)};
  const size_t probes[] = {0, 12345679, n - 1};
  float before[3][4];
  for (int k = 0; k < 3; ++k) {
    before[k][0] = read_back(p + probes[k]);
    before[k][1] = read_back(g + probes[k]);
    before[k][2] = read_back(m + probes[k]);
    before[k][3] = read_back(v + probes[k]);
  }
  auto launch = [&] {
    healthy_adamw_fused_update<<<sm_count() * 16, 256>>>((float4*)p, (const float4*)g, (float4*)m, (float4*)v,
                                                         a, n / 4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int k = 0; k < 3; ++k) {
    double pp = before[k][0], gg = before[k][1], mm = before[k][2], vv = before[k][3];
    mm = a.b1 * mm + (1.0 - a.b1) * gg;
    vv = a.b2 * vv + (1.0 - a.b2) * gg * gg;
    pp -= a.lr * ((mm / a.bc1) / (std::sqrt(vv / a.bc2) + a.eps) + a.wd * pp);
    float got = read_back(p + probes[k]);
    if (!(std::fabs(got - pp) <= 1e-5 * std::fabs(pp)))
      fail("wrong param %zu: %f vs %f\n", probes[k], got, pp);
  }
  time_kernel("healthy_adamw_fused_update", reps, launch);
  free_device({p, g, m, v});
  printf("ok\n");
  return 0;
}
