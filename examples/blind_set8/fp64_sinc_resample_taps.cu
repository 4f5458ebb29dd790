// fp64_sinc_resample_taps: blind set 8, kind 1 (FP64 pipe used by float code: accidental doubles).
// Audio sample-rate conversion 44.1 -> 48 kHz by windowed-sinc interpolation, 32 taps per output sample. The
// float port writes sin(M_PI * x) / (M_PI * x) and the Hann window 0.5 + 0.5 * cos(M_PI * x / 16): M_PI is a
// double, so both sin and cos are the double library functions (range reduction and polynomials on the FP64
// pipe) per tap: 32 taps x 8 M outputs = 256 M double sin + cos pairs (~20 G FP64 instructions, >1 ms).
// sinpif/cospif in float would remove them. Usage: ./fp64_sinc_resample_taps [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTaps = 32;

__global__ void fp64_sinc_resample_taps(const float* __restrict__ in, float* __restrict__ out, int n_in,
                                        int n_out, float ratio) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= n_out) return;
  float pos = o * ratio;
  int base = int(floorf(pos));
  float frac = pos - base, acc = 0.0f;
  for (int k = -kTaps / 2 + 1; k <= kTaps / 2; ++k) {
    int j = min(max(base + k, 0), n_in - 1);
    float x = k - frac;
    float sinc = fabsf(x) < 1e-6f ? 1.0f : sin(M_PI * x) / (M_PI * x);
    float window = 0.5 + 0.5 * cos(M_PI * x / (kTaps / 2));
    acc += in[j] * sinc * window;
  }
  out[o] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n_in = 7350000, n_out = 8000000;  // 166 s of mono audio at 44.1 kHz -> 48 kHz
  const float ratio = 44100.0f / 48000.0f;
  float* in = device_alloc<float>(n_in);
  float* out = device_alloc<float>(n_out);
  fill_random<<<1024, 256>>>(in, n_in, 811, -1.0f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    fp64_sinc_resample_taps<<<(n_out + 255) / 256, 256>>>(in, out, n_in, n_out, ratio);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int o : {0, 4321, 5000000, n_out - 1}) {
    float pos = o * ratio;
    int base = int(std::floor(pos));
    float frac = pos - base;
    double want = 0;
    for (int k = -kTaps / 2 + 1; k <= kTaps / 2; ++k) {
      int j = std::min(std::max(base + k, 0), n_in - 1);
      double x = double(k - frac);
      double sinc = std::fabs(x) < 1e-6 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
      want += read_back(in + j) * sinc * (0.5 + 0.5 * std::cos(M_PI * x / (kTaps / 2)));
    }
    float got = read_back(out + o);
    if (!(std::fabs(got - want) <= 1e-3)) fail("wrong sample %d: %g vs %g\n", o, got, want);
  }
  time_kernel("fp64_sinc_resample_taps", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
