// fir_window_spills: blind set 4, other cause (local memory: register spills).
// A 64-tap FIR low-pass over 64 M float samples, each thread producing 32 consecutive outputs from a
// register window of 95 inputs and 32 accumulators (fully unrolled), the coefficients in constant
// memory. The author capped the kernel at __launch_bounds__(256, 8) "for occupancy": 32 registers per
// thread, far fewer than the window and accumulators need, so ptxas spills most of them to local memory;
// every tap then reloads window values and accumulators through L1 (LDL/STL), and the spill traffic, not
// the FMAs, bounds the kernel. Dropping the occupancy bound (or a shared-memory window) removes it.
// Usage: ./fir_window_spills [reps]
#include "../kernels/example_common.cuh"

constexpr int kTaps = 64, kOut = 32, kWin = kOut + kTaps - 1;
__constant__ float c_taps[kTaps];

__global__ void __launch_bounds__(256, 8)
    fir_window_spills(const float* __restrict__ in, float* __restrict__ out, size_t n_out) {
  size_t base = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * kOut;
  if (base + kOut > n_out) return;
  float win[kWin];
#pragma unroll
  for (int i = 0; i < kWin; ++i) win[i] = in[base + i];
  float acc[kOut];
#pragma unroll
  for (int o = 0; o < kOut; ++o) acc[o] = 0.0f;
#pragma unroll
  for (int t = 0; t < kTaps; ++t)
#pragma unroll
    for (int o = 0; o < kOut; ++o) acc[o] += c_taps[t] * win[o + t];
#pragma unroll
  for (int o = 0; o < kOut; ++o) out[base + o] = acc[o];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n_out = size_t(64) << 20, n_in = n_out + kTaps;
  float* in = device_alloc<float>(n_in);
  float* out = device_alloc<float>(n_out);
  fill_random<<<2048, 256>>>(in, n_in, 428, 0.01f, 1.0f);
  CK(cudaGetLastError());
  float taps[kTaps];
  double sum = 0;
  for (int t = 0; t < kTaps; ++t) {
    double u = (t - (kTaps - 1) / 2.0) / 8.0;
    taps[t] = float(1.0 / (1.0 + u * u));
    sum += taps[t];
  }
  for (int t = 0; t < kTaps; ++t) taps[t] = float(taps[t] / sum);
  CK(cudaMemcpyToSymbol(c_taps, taps, sizeof(taps)));
  const unsigned blocks = unsigned(n_out / kOut / 256);
  auto launch = [&] {
    fir_window_spills<<<blocks, 256>>>(in, out, n_out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hin(kWin + kOut);
  for (size_t o : {size_t(0), size_t(31), size_t(1000003), n_out - 1}) {
    CK(cudaMemcpy(hin.data(), in + o, kTaps * sizeof(float), cudaMemcpyDeviceToHost));
    double want = 0;
    for (int t = 0; t < kTaps; ++t) want += double(taps[t]) * hin[t];
    float got = read_back(out + o);
    if (!(fabs(got - want) <= 1e-5 * want)) fail("wrong output %zu: %f vs %f\n", o, got, want);
  }
  time_kernel("fir_window_spills", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
