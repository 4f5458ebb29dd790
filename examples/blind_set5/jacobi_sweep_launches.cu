// jacobi_sweep_launches: blind set 5, kind 7 (launch overhead of thousands of tiny launches).
// Jacobi iteration for the 1D Poisson problem -u'' = f on 4,096 points (a numerical-methods homework
// port), 6,000 sweeps, each sweep one launch of jacobi_sweep on 16 blocks: u_new[i] = (u[i-1] + u[i+1] +
// h^2 f[i]) / 2. A sweep touches 48 KB and finishes in about a microsecond; the 6,000 launches are issued
// back to back from the host, so the time goes to launch and the gaps between kernels. Sweeping many times
// inside one block (the vector fits in shared memory), a CUDA graph, or a better solver (multigrid, CG) fixes
// it. Usage: ./jacobi_sweep_launches [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kN = 4096, kSweeps = 6000;

__global__ void jacobi_sweep(const float* __restrict__ u, const float* __restrict__ f,
                             float* __restrict__ u_new, float h2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float left = i > 0 ? u[i - 1] : 0.0f, right = i < kN - 1 ? u[i + 1] : 0.0f;
  u_new[i] = 0.5f * (left + right + h2 * f[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const float h = 1.0f / (kN + 1), h2 = h * h;
  std::vector<float> hf(kN);
  for (int i = 0; i < kN; ++i) hf[i] = 1.0f + 0.5f * std::sin(0.01f * i);
  float* f = device_alloc<float>(kN);
  float* u = device_alloc<float>(kN);
  float* v = device_alloc<float>(kN);
  CK(cudaMemcpy(f, hf.data(), kN * 4, cudaMemcpyHostToDevice));
  auto run = [&] {
    CK(cudaMemset(u, 0, kN * 4));
    for (int s = 0; s < kSweeps; ++s) {
      jacobi_sweep<<<kN / 256, 256>>>(s % 2 ? v : u, f, s % 2 ? u : v, h2);
      CK(cudaGetLastError());
    }
  };
  run();
  CK(cudaDeviceSynchronize());
  std::vector<float> a(kN, 0.0f), b(kN);
  for (int s = 0; s < kSweeps; ++s) {
    for (int i = 0; i < kN; ++i) {
      float left = i > 0 ? a[i - 1] : 0.0f, right = i < kN - 1 ? a[i + 1] : 0.0f;
      b[i] = 0.5f * (left + right + h2 * hf[i]);
    }
    a.swap(b);
  }
  std::vector<float> got(kN);
  CK(cudaMemcpy(got.data(), kSweeps % 2 ? v : u, kN * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < kN; ++i)
    if (!(std::fabs(got[i] - a[i]) <= 1e-3f * std::fabs(a[i]) + 1e-9f))
      fail("wrong u at %d: %g vs %g\n", i, got[i], a[i]);
  time_kernel("jacobi_sweep_launches_run", reps > 0 ? 3 : 0, run);
  free_device({f, u, v});
  printf("ok\n");
  return 0;
}
