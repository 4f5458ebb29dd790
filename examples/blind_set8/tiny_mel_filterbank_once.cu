// tiny_mel_filterbank_once: blind set 8, kind healthy (a tiny one-off kernel).
// The start-up of a speech front end (Whisper/Kaldi-style): the 80 x 201 triangular mel filterbank matrix
// for a 400-point FFT at 16 kHz, computed once on the device: 16 K weights (64 KB written), a few logf/expf
// per weight, one launch of a few microseconds, dominated by launch latency. Nothing worth optimizing:
// it runs once. Usage: ./tiny_mel_filterbank_once [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kMels = 80, kBins = 201;
constexpr float kSampleRate = 16000.0f;

__device__ __host__ inline float hz_to_mel(float hz) {
  return 2595.0f * log10f(1.0f + hz / 700.0f);
}
__device__ __host__ inline float mel_to_hz(float mel) {
  return 700.0f * (powf(10.0f, mel / 2595.0f) - 1.0f);
}

__global__ void tiny_mel_filterbank_once(float* __restrict__ fb) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= kMels * kBins) return;
  int m = k / kBins, b = k % kBins;
  float top = hz_to_mel(kSampleRate / 2), step = top / (kMels + 1);
  float lo = mel_to_hz(m * step), mid = mel_to_hz((m + 1) * step), hi = mel_to_hz((m + 2) * step);
  float f = b * (kSampleRate / 2) / (kBins - 1);
  float w = fmaxf(0.0f, fminf((f - lo) / (mid - lo), (hi - f) / (hi - mid)));
  fb[k] = w * 2.0f / (hi - lo);  // Slaney area normalization
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  float* fb = device_alloc<float>(kMels * kBins);
  auto launch = [&] {
    tiny_mel_filterbank_once<<<(kMels * kBins + 255) / 256, 256>>>(fb);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> got(kMels * kBins);
  CK(cudaMemcpy(got.data(), fb, got.size() * 4, cudaMemcpyDeviceToHost));
  for (int m = 0; m < kMels; m += 9) {
    double top = 2595.0 * std::log10(1.0 + 8000.0 / 700.0), step = top / (kMels + 1);
    auto m2h = [](double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); };
    double lo = m2h(m * step), mid = m2h((m + 1) * step), hi = m2h((m + 2) * step);
    for (int b = 0; b < kBins; ++b) {
      double f = b * 8000.0 / (kBins - 1);
      double want = std::max(0.0, std::min((f - lo) / (mid - lo), (hi - f) / (hi - mid))) * 2.0 / (hi - lo);
      if (!(std::fabs(got[m * kBins + b] - want) <= 3e-3 * 2.0 / (hi - lo)))
        fail("wrong weight (%d,%d)\n", m, b);
    }
  }
  time_kernel("tiny_mel_filterbank_once", reps, launch);
  free_device({fb});
  printf("ok\n");
  return 0;
}
