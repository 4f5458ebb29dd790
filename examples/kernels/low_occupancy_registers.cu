// low_occupancy_registers: PLANTED BOTTLENECK = low theoretical occupancy, limited by registers.
// Each thread keeps R = 160 floats live in registers across the loop (~170 registers per thread), so only
// one 256-thread block (8 warps of 64, 12.5%) fits per SM. The work is one long dependent FFMA chain per
// thread: with 2 warps per scheduler the FFMA latency is not hidden (stall "wait"), and issue sits near
// 50%; with a quarter of the live state, 4x the warps would fit and hide it.
// Usage: ./low_occupancy_registers [reps]
#include "example_common.cuh"

#define R 160
__global__ void __launch_bounds__(256)
    low_occupancy_registers(const float* __restrict__ in, float* __restrict__ out, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[i];
  float r[R];  // compile-time indices only: all in registers
#pragma unroll
  for (int j = 0; j < R; ++j) r[j] = x * (0.2f + 0.001f * j);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int j = 0; j < R; ++j) {
      x = fmaf(r[j], x, 0.1875f);  // dependent chain through x
      r[j] = x;
    }
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < R; ++j) s += r[j];
  out[i] = s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int sms = sm_count();
  const int blocks = sms * 8, iters = 192, n = blocks * 256;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(in, n, 6, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    low_occupancy_registers<<<blocks, 256>>>(in, out, iters);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float s = read_back(out + 3);
  if (!(s > 0.0f && s < 1e6f)) fail("wrong result %f\n", s);
  time_kernel("low_occupancy_registers", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
