// healthy_clenshaw_chebyshev: blind set 4, healthy (FP32 FMA-bound on the unit that does the work).
// Evaluates a degree-63 Chebyshev expansion (a smooth equation-of-state fit) at 32 M points with the
// Clenshaw recurrence b_k = 2 t b_{k+1} - b_{k+2} + c_k, two points per thread for independent chains, the
// 64 coefficients in constant memory (uniform, fully unrolled: immediate constant-bank operands). About
// 130 FFMA/FADD per point against 8 bytes of DRAM traffic: FP32-pipe-bound near its ceiling, and the FMA
// pipe is the right unit for a polynomial; nothing to fix.
// Usage: ./healthy_clenshaw_chebyshev [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTerms = 64;
__constant__ float c_coef[kTerms];

__device__ __forceinline__ float clenshaw(float x) {
  float t = 2.0f * x - 1.0f, t2 = 2.0f * t;  // map [0, 1) to [-1, 1)
  float b1 = 0.0f, b2 = 0.0f;
#pragma unroll
  for (int k = kTerms - 1; k >= 1; --k) {
    float b0 = fmaf(t2, b1, c_coef[k] - b2);
    b2 = b1;
    b1 = b0;
  }
  return fmaf(t, b1, c_coef[0] - b2);
}

__global__ void healthy_clenshaw_chebyshev(const float2* __restrict__ x, float2* __restrict__ y, int n2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n2) return;
  float2 v = x[i];
  y[i] = make_float2(clenshaw(v.x), clenshaw(v.y));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 32 << 20, n2 = n / 2;
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<2048, 256>>>(x, n, 431, 0.001f, 0.999f);
  CK(cudaGetLastError());
  float coef[kTerms];
  for (int k = 0; k < kTerms; ++k) coef[k] = float(std::pow(0.8, k) * ((k % 3) ? 1.0 : -0.5));
  CK(cudaMemcpyToSymbol(c_coef, coef, sizeof(coef)));
  auto launch = [&] {
    healthy_clenshaw_chebyshev<<<(n2 + 255) / 256, 256>>>((const float2*)x, (float2*)y, n2);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1, 1234567, n - 1}) {
    double t = 2.0 * read_back(x + i) - 1.0, want = 0;
    for (int k = 0; k < kTerms; ++k) want += coef[k] * std::cos(k * std::acos(t));
    float got = read_back(y + i);
    if (!(fabs(got - want) <= 1e-4 * (1 + fabs(want)))) fail("wrong value at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("healthy_clenshaw_chebyshev", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
