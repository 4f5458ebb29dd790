// smem_biquad_cascade_state: blind set 7, other cause (shared-memory bank conflicts).
// Multichannel audio / sensor filtering: 32,768 channels, each through a cascade of 8 biquad sections
// (direct form II transposed), one thread per channel over 1,024 samples ([sample][channel] layout,
// coalesced). The 16 state floats of each channel were moved to shared memory to save registers, laid out per
// thread (state[thread * 16 + k]): a warp's access to state k touches addresses 16 words apart, 2 distinct
// banks, a 16-way conflict on each of the 16 shared stores per sample (the compiler forwards the loads; about
// 270 M shared store wavefronts, ~1 ms) against 5 FMAs per section and 268 MB of DRAM traffic (60 us). A
// [k][thread] layout (or registers) fixes it. Usage: ./smem_biquad_cascade_state [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSections = 8, kThreads = 256;
__constant__ float c_coef[kSections][5];  // b0 b1 b2 a1 a2

__global__ void __launch_bounds__(kThreads)
    smem_biquad_cascade_state(const float* __restrict__ x, float* __restrict__ y, int channels, int samples) {
  __shared__ float state[kThreads * 2 * kSections];
  float* s = state + threadIdx.x * 2 * kSections;
  for (int k = 0; k < 2 * kSections; ++k) s[k] = 0.0f;
  const int ch = blockIdx.x * blockDim.x + threadIdx.x;
  for (int t = 0; t < samples; ++t) {
    float v = x[size_t(t) * channels + ch];
    for (int q = 0; q < kSections; ++q) {
      float out = c_coef[q][0] * v + s[2 * q];
      s[2 * q] = c_coef[q][1] * v - c_coef[q][3] * out + s[2 * q + 1];
      s[2 * q + 1] = c_coef[q][2] * v - c_coef[q][4] * out;
      v = out;
    }
    y[size_t(t) * channels + ch] = v;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int channels = 32768, samples = 1024;
  const size_t n = size_t(channels) * samples;
  float hc[kSections][5];
  for (int q = 0; q < kSections; ++q) {  // stable low-pass-like sections
    float r = 0.5f + 0.04f * q, w = 0.2f + 0.1f * q;
    hc[q][0] = 0.2f, hc[q][1] = 0.3f, hc[q][2] = 0.2f, hc[q][3] = -2.0f * r * std::cos(w), hc[q][4] = r * r;
  }
  CK(cudaMemcpyToSymbol(c_coef, hc, sizeof(hc)));
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<2048, 256>>>(x, n, 711, -1.0f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    smem_biquad_cascade_state<<<channels / kThreads, kThreads>>>(x, y, channels, samples);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int ch : {0, 4097, channels - 1}) {
    float st[2 * kSections] = {};
    for (int t = 0; t < samples; ++t) {
      float v = read_back(x + size_t(t) * channels + ch);
      for (int q = 0; q < kSections; ++q) {
        float out = hc[q][0] * v + st[2 * q];
        st[2 * q] = hc[q][1] * v - hc[q][3] * out + st[2 * q + 1];
        st[2 * q + 1] = hc[q][2] * v - hc[q][4] * out;
        v = out;
      }
      if (t == samples - 1) {
        float got = read_back(y + size_t(t) * channels + ch);
        if (!(std::fabs(got - v) <= 1e-3f * std::fabs(v) + 1e-4f))
          fail("wrong output channel %d: %g vs %g\n", ch, got, v);
      }
    }
  }
  time_kernel("smem_biquad_cascade_state", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
