// barrier_stalls: PLANTED BOTTLENECK = barrier stalls (__syncthreads with uneven work between barriers).
// 1024-thread blocks run 128 phases; in each phase one warp (rotating) runs a 256-step dependent FFMA
// chain while the other 31 warps do 4 steps, then all exchange values through shared memory between two
// __syncthreads(). 31 of 32 warps spend most of each phase waiting at the barrier (stall "barrier").
// Usage: ./barrier_stalls [reps]
#include "example_common.cuh"

__global__ void __launch_bounds__(1024)
    barrier_stalls(const float* __restrict__ in, float* __restrict__ out, int phases, int heavy) {
  __shared__ float s[1024];
  int t = threadIdx.x, warp = t >> 5;
  size_t i = (size_t)blockIdx.x * 1024 + t;
  float x = in[i];
  for (int p = 0; p < phases; ++p) {
    int work = warp == (p & 31) ? heavy : 4;  // one warp per phase does 64x the work
    for (int k = 0; k < work; ++k) x = fmaf(x, 0.999f, 0.001f);
    s[t] = x;
    __syncthreads();
    x = 0.5f * (x + s[(t + 32) & 1023]);
    __syncthreads();
  }
  out[i] = x;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int sms = sm_count();
  const int blocks = sms * 2 * 4, phases = 128, heavy = 256;
  const size_t n = (size_t)blocks * 1024;
  float* in = device_alloc<float>(n);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(in, n, 21, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    barrier_stalls<<<blocks, 1024>>>(in, out, phases, heavy);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float y = read_back(out + 77);
  if (!(y > 0.4f && y < 1.6f)) fail("wrong result %f\n", y);
  time_kernel("barrier_stalls", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
