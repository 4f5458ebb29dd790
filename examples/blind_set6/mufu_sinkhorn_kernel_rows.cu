// mufu_sinkhorn_kernel_rows: blind set 6, kind 1 (division/transcendental-bound code that could use intrinsics).
// One Sinkhorn row update of entropic optimal transport between 1 M source and 1 K target points in 2-D
// (domain adaptation, point-cloud matching): u_i = a_i / sum_j exp(-|x_i - y_j|^2 / eps) v_j, the Gibbs
// kernel recomputed on the fly with the target points and v staged in shared memory. Per pair an IEEE fp32
// division by eps (MUFU.RCP, Newton refinement, slow-path check) and an accurate expf (range reduction,
// MUFU.EX2, fix-up), 1.07 G pairs on 12 bytes of global traffic per row: the division and exponential
// sequences are the work. A host-side -1/eps multiplier (or log2(e)/eps folded in) and exp2f/__expf would do.
// Usage: ./mufu_sinkhorn_kernel_rows [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTile = 1024;

__global__ void mufu_sinkhorn_kernel_rows(const float2* __restrict__ x, const float4* __restrict__ yv,
                                          const float* __restrict__ a, float* __restrict__ u, int n, int m,
                                          float eps) {
  __shared__ float4 t[kTile];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float2 p = x[i];
  float s = 0.0f;
  for (int j0 = 0; j0 < m; j0 += kTile) {
    __syncthreads();
    for (int k = threadIdx.x; k < kTile; k += blockDim.x) t[k] = yv[j0 + k];
    __syncthreads();
    for (int k = 0; k < kTile; ++k) {
      float dx = p.x - t[k].x, dy = p.y - t[k].y;
      s += expf(-(dx * dx + dy * dy) / eps) * t[k].z;
    }
  }
  if (i < n) u[i] = a[i] / s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 20, m = 1024;
  const float eps = 0.05f;
  std::vector<float2> hx(n);
  std::vector<float4> hy(m);
  std::vector<float> ha(n, 1.0f / n);
  for (int i = 0; i < n; ++i) hx[i] = make_float2((i % 1024) / 1024.0f, (i / 1024) / 1024.0f);
  for (int j = 0; j < m; ++j) {
    unsigned h = unsigned(j) * 2654435761u;
    hy[j] = make_float4(((h >> 4) & 1023) / 1024.0f, ((h >> 14) & 1023) / 1024.0f, 0.5f + (j % 7) * 0.1f, 0.0f);
  }
  float2* x = device_alloc<float2>(n);
  float4* yv = device_alloc<float4>(m);
  float* a = device_alloc<float>(n);
  float* u = device_alloc<float>(n);
  CK(cudaMemcpy(x, hx.data(), sizeof(float2) * n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(yv, hy.data(), sizeof(float4) * m, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(a, ha.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  auto launch = [&] {
    mufu_sinkhorn_kernel_rows<<<n / 256, 256>>>(x, yv, a, u, n, m, eps);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 4097, n / 2 + 77, n - 1}) {
    double s = 0;
    for (int j = 0; j < m; ++j) {
      double dx = hx[i].x - hy[j].x, dy = hx[i].y - hy[j].y;
      s += std::exp(-(dx * dx + dy * dy) / eps) * hy[j].z;
    }
    double want = ha[i] / s;
    float got = read_back(u + i);
    if (!(std::fabs(got - want) <= 1e-4 * want)) fail("wrong u at %d: %g vs %g\n", i, got, want);
  }
  time_kernel("mufu_sinkhorn_kernel_rows", reps, launch);
  free_device({x, yv, a, u});
  printf("ok\n");
  return 0;
}
