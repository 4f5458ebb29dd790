// fp64_weibull_survival: blind set 8, kind 1 (FP64 pipe used by float code: accidental doubles).
// Reliability analysis of a fleet of components: the Weibull survival probability S(t) = exp(-(t / lambda)^k)
// of 4 M float lifetimes against 16 shape/scale pairs held in shared memory. The port keeps the reference's
// `double` shape parameters and calls pow and exp on double arguments: the double pow (log, exp, ~100 FP64
// instructions) and double exp run per (lifetime, component) pair. Float math (__powf or exp2f(k*log2f))
// would be tens of times faster. Usage: ./fp64_weibull_survival [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kModels = 16;

__global__ void fp64_weibull_survival(const float* __restrict__ t, const double* __restrict__ shape,
                                      const float* __restrict__ scale, float* __restrict__ mean_survival,
                                      int n) {
  __shared__ double s_k[kModels];
  __shared__ float s_inv_l[kModels];
  if (threadIdx.x < kModels)
    s_k[threadIdx.x] = shape[threadIdx.x], s_inv_l[threadIdx.x] = 1.0f / scale[threadIdx.x];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float ti = t[i], acc = 0.0f;
  for (int m = 0; m < kModels; ++m) acc += exp(-pow(ti * s_inv_l[m], s_k[m]));
  mean_survival[i] = acc * (1.0f / kModels);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 4 << 20;
  float* t = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  float* scale = device_alloc<float>(kModels);
  double* shape = device_alloc<double>(kModels);
  fill_random<<<1024, 256>>>(t, n, 801, 10.0f, 5000.0f);
  fill_random<<<1, 64>>>(scale, kModels, 802, 1000.0f, 4000.0f);
  CK(cudaGetLastError());
  std::vector<double> hk(kModels);
  for (int m = 0; m < kModels; ++m) hk[m] = 0.8 + 0.05 * m;
  CK(cudaMemcpy(shape, hk.data(), kModels * 8, cudaMemcpyHostToDevice));
  auto launch = [&] {
    fp64_weibull_survival<<<(n + 255) / 256, 256>>>(t, shape, scale, out, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hs(kModels);
  CK(cudaMemcpy(hs.data(), scale, kModels * 4, cudaMemcpyDeviceToHost));
  for (int i : {0, 12345, n - 1}) {
    float ti = read_back(t + i);
    double want = 0;
    for (int m = 0; m < kModels; ++m) want += std::exp(-std::pow(ti * (1.0f / hs[m]), hk[m]));
    want /= kModels;
    float got = read_back(out + i);
    if (!(std::fabs(got - want) <= 1e-4)) fail("wrong survival at %d: %g vs %g\n", i, got, want);
  }
  time_kernel("fp64_weibull_survival", reps, launch);
  free_device({t, out, scale, shape});
  printf("ok\n");
  return 0;
}
