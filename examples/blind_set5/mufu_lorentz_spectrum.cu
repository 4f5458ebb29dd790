// mufu_lorentz_spectrum: blind set 5, kind 1 (division/transcendental-bound code that could use intrinsics).
// Synthetic absorption spectrum for a line list (spectroscopy): 1 M frequency points, 512 lines (centre,
// half-width, strength) staged in shared memory, a pseudo-Voigt profile per line and point:
// x = (nu - nu0) / gamma, a / (1 + x^2) + 0.1 a expf(-x^2). Two IEEE fp32 divisions (each a MUFU.RCP plus a
// Newton refinement and a slow-path check) and an accurate expf per pair, 512 M pairs, on 8 bytes of global
// traffic per point: the MUFU/division sequences are the work. A per-line 1/gamma from the host,
// __fdividef and __expf would do.
// Usage: ./mufu_lorentz_spectrum [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kLines = 512;

__global__ void mufu_lorentz_spectrum(const float* __restrict__ nu, const float4* __restrict__ lines,
                                      float* __restrict__ absorb, int n) {
  __shared__ float4 l[kLines];
  for (int k = threadIdx.x; k < kLines; k += blockDim.x) l[k] = lines[k];
  __syncthreads();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float f = nu[i], a = 0.0f;
  for (int k = 0; k < kLines; ++k) {
    float x = (f - l[k].x) / l[k].y;
    a += l[k].z / (1.0f + x * x) + 0.1f * l[k].z * expf(-x * x);
  }
  absorb[i] = a;
}

__global__ void make_lines(float4* lines, float* nu, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < kLines)
    lines[i] = make_float4(1000.0f + 4.0f * i, 0.5f + 0.01f * (i % 37), 1.0f + 0.1f * (i % 11), 0.f);
  if (i < n) nu[i] = 1000.0f + 2048.0f * i / n;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 20;
  float* nu = device_alloc<float>(n);
  float4* lines = device_alloc<float4>(kLines);
  float* absorb = device_alloc<float>(n);
  make_lines<<<n / 256, 256>>>(lines, nu, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    mufu_lorentz_spectrum<<<n / 256, 256>>>(nu, lines, absorb, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> hl(kLines);
  CK(cudaMemcpy(hl.data(), lines, sizeof(float4) * kLines, cudaMemcpyDeviceToHost));
  for (int i : {0, 31337, n / 2, n - 1}) {
    float f = read_back(nu + i);
    double want = 0;
    for (int k = 0; k < kLines; ++k) {
      double x = (f - hl[k].x) / double(hl[k].y);
      want += hl[k].z / (1.0 + x * x) + 0.1 * hl[k].z * std::exp(-x * x);
    }
    float got = read_back(absorb + i);
    if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-4))
      fail("wrong absorbance at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("mufu_lorentz_spectrum", reps, launch);
  free_device({nu, lines, absorb});
  printf("ok\n");
  return 0;
}
