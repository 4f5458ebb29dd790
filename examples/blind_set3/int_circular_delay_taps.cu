// int_circular_delay_taps: blind set 3, kind 1 (the busy unit is the wrong one: integer division).
// A multi-tap echo/comb filter over a circular audio buffer: y[i] = sum over 12 taps of g[t] * x[(i + n -
// delay[t]) % n], with the buffer length n known only at run time. Neighbouring lanes read neighbouring
// samples (coalesced, and mostly L1/L2 hits), but each tap costs a run-time 32-bit modulo (the
// I2F/MUFU.RCP/F2I reciprocal sequence and its correction): the integer work dominates the instruction
// mix. One conditional subtraction per tap (the delays are below n), or a buffer padded by the longest
// delay, removes it.
// Usage: ./int_circular_delay_taps [reps]
#include "../kernels/example_common.cuh"

constexpr int kTaps = 12;
__constant__ unsigned c_delay[kTaps];
__constant__ float c_gain[kTaps];

__global__ void int_circular_delay_taps(const float* __restrict__ x, float* __restrict__ y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
#pragma unroll
  for (int t = 0; t < kTaps; ++t) acc += c_gain[t] * x[(i + n - c_delay[t]) % n];
  y[i] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const unsigned n = 48000u * 350u;  // 350 s at 48 kHz; a kernel argument, so a run-time divisor
  unsigned delay[kTaps];
  float gain[kTaps];
  for (int t = 0; t < kTaps; ++t) {
    delay[t] = 480u * (t + 1) * (t + 3);  // 10 ms .. 1.5 s
    gain[t] = 0.5f / (t + 1);
  }
  CK(cudaMemcpyToSymbol(c_delay, delay, sizeof(delay)));
  CK(cudaMemcpyToSymbol(c_gain, gain, sizeof(gain)));
  float* x = device_alloc<float>(n);
  float* y = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(x, n, 334, -1.0f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    int_circular_delay_taps<<<(n + 255) / 256, 256>>>(x, y, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (unsigned i : {0u, 1234567u, n - 1}) {
    double want = 0;
    for (int t = 0; t < kTaps; ++t) want += double(gain[t]) * read_back(x + (i + n - delay[t]) % n);
    float got = read_back(y + i);
    if (!(fabs(got - want) <= 1e-5)) fail("wrong result at %u: %f vs %f\n", i, got, want);
  }
  time_kernel("int_circular_delay_taps", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
