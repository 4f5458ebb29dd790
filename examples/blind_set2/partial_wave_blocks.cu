// partial_wave_blocks: blind set 2, tail effect (too few blocks, a partial last wave).
// 150 blocks of 1,024 threads, each thread integrating its own long ODE trajectory (the same long
// arithmetic loop per thread, no memory traffic to speak of). 150 blocks on 132 SMs: every SM gets one,
// 18 get a second, and the kernel lasts as long as those 18 take for two blocks' work while the other
// 114 SMs finish at half time and idle: a partial wave (1.14 blocks per SM). Splitting the work into many
// more, smaller blocks evens it out.
// Usage: ./partial_wave_blocks [reps]
#include "../kernels/example_common.cuh"

__global__ void __launch_bounds__(1024) partial_wave_blocks(const float* __restrict__ k, float* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float u = 1.0f, v = 0.0f, rate = k[i];
#pragma unroll 4
  for (int step = 0; step < 200000; ++step) {
    float du = v, dv = -rate * u - 0.001f * v;
    u = fmaf(1e-4f, du, u);
    v = fmaf(1e-4f, dv, v);
  }
  out[i] = u + v;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int blocks = 150, threads = 1024;
  float* k = device_alloc<float>(blocks * threads);
  float* out = device_alloc<float>(blocks * threads);
  fill_random<<<150, 1024>>>(k, blocks * threads, 217, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    partial_wave_blocks<<<blocks, threads>>>(k, out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float got = read_back(out + 999);
  if (!(fabs(got) < 10.0f)) fail("wrong result %f\n", got);
  time_kernel("partial_wave_blocks", reps, launch);
  free_device({k, out});
  printf("ok\n");
  return 0;
}
