// mufu_planck_band_radiance: blind set 6, kind 1 (division/transcendental-bound code that could use intrinsics).
// Thermal-infrared band radiance of a 1024 x 1024 surface-temperature map (remote sensing, sensor simulation):
// per pixel the Planck radiance c1 / (lambda^5 (exp(c2 / (lambda T)) - 1)) weighted by the sensor's spectral
// response, summed over 256 wavelength samples of 8-14 um staged in shared memory. Per pair two IEEE fp32
// divisions (MUFU.RCP, refinement, slow-path check) and an accurate expf (the powf(lambda, 5.0f) becomes
// multiplies): 268 M pairs on 8 bytes of global traffic per pixel, so MUFU and the division/exponential
// sequences are the work. Precomputing c1 w /
// lambda^5 and c2 / lambda per sample (once) and __expf, __fdividef would do.
// Usage: ./mufu_planck_band_radiance [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSamples = 256;
constexpr float kC1 = 1.191042e8f, kC2 = 14387.77f;  // W um^4 m^-2 sr^-1, um K

__global__ void mufu_planck_band_radiance(const float* __restrict__ temp, const float2* __restrict__ bands,
                                          float* __restrict__ radiance, int n) {
  __shared__ float2 b[kSamples];  // wavelength (um), response weight
  for (int k = threadIdx.x; k < kSamples; k += blockDim.x) b[k] = bands[k];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float t = temp[i], s = 0.0f;
  for (int k = 0; k < kSamples; ++k) {
    float lam = b[k].x;
    s += b[k].y * kC1 / (powf(lam, 5.0f) * (expf(kC2 / (lam * t)) - 1.0f));
  }
  radiance[i] = s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 20;
  std::vector<float> ht(n);
  std::vector<float2> hb(kSamples);
  for (int i = 0; i < n; ++i) ht[i] = 250.0f + 70.0f * ((unsigned(i) * 2654435761u) >> 20) / 4096.0f;
  for (int k = 0; k < kSamples; ++k) {
    float lam = 8.0f + 6.0f * k / (kSamples - 1);
    hb[k] = make_float2(lam, 0.2f + 0.8f * std::exp(-0.5f * (lam - 11.0f) * (lam - 11.0f)) / kSamples);
  }
  float* temp = device_alloc<float>(n);
  float2* bands = device_alloc<float2>(kSamples);
  float* rad = device_alloc<float>(n);
  CK(cudaMemcpy(temp, ht.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(bands, hb.data(), sizeof(float2) * kSamples, cudaMemcpyHostToDevice));
  auto launch = [&] {
    mufu_planck_band_radiance<<<n / 256, 256>>>(temp, bands, rad, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 9999, n / 2, n - 1}) {
    double want = 0;
    for (int k = 0; k < kSamples; ++k) {
      double lam = hb[k].x;
      want += hb[k].y * double(kC1) / (std::pow(lam, 5.0) * (std::exp(double(kC2) / (lam * ht[i])) - 1.0));
    }
    float got = read_back(rad + i);
    if (!(std::fabs(got - want) <= 1e-4 * want)) fail("wrong radiance at %d: %g vs %g\n", i, got, want);
  }
  time_kernel("mufu_planck_band_radiance", reps, launch);
  free_device({temp, bands, rad});
  printf("ok\n");
  return 0;
}
