// healthy_ema_weights_update: blind set 6, kind healthy (a well-written kernel near the DRAM ceiling).
// The exponential moving average of a 128 M-parameter model's weights after each optimizer step (EMA
// teacher / model averaging): ema = d * ema + (1 - d) * w, float4-vectorized grid-stride loop, 12 bytes
// per parameter (1.6 GB: 1.07 GB read, 0.54 GB written), two FMAs per value. DRAM-bound near the achievable
// bandwidth at this size (about 0.4 ms at 4 TB/s); nothing in the code to fix (fusing it into the optimizer
// step would be a program change).
// Usage: ./healthy_ema_weights_update [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void healthy_ema_weights_update(float4* __restrict__ ema, const float4* __restrict__ w, float decay, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 e = ema[i], v = w[i];
    e.x = decay * e.x + (1.0f - decay) * v.x;
    e.y = decay * e.y + (1.0f - decay) * v.y;
    e.z = decay * e.z + (1.0f - decay) * v.z;
    e.w = decay * e.w + (1.0f - decay) * v.w;
    ema[i] = e;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(1) << 27;
  float* ema = device_alloc<float>(n);
  float* w = device_alloc<float>(n);
  fill_random<<<4096, 256>>>(ema, n, 701, 0.5f, 1.0f);
  fill_random<<<4096, 256>>>(w, n, 702, 1e-3f, 1.0f);
  CK(cudaGetLastError());
  const size_t probes[3] = {0, n / 2 + 5, n - 1};
  float e0[3], w0[3];
  for (int k = 0; k < 3; ++k) {
    e0[k] = read_back(ema + probes[k]);
    w0[k] = read_back(w + probes[k]);
  }
  const float decay = 0.999f;
  const int blocks = sm_count() * 8;
  auto launch = [&] {
    healthy_ema_weights_update<<<blocks, 256>>>((float4*)ema, (const float4*)w, decay, n / 4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int k = 0; k < 3; ++k) {
    float want = decay * e0[k] + (1.0f - decay) * w0[k], got = read_back(ema + probes[k]);
    if (!(std::fabs(got - want) <= 1e-6f)) fail("wrong ema %zu: %f vs %f\n", probes[k], got, want);
  }
  time_kernel("healthy_ema_weights_update", reps, launch);
  free_device({ema, w});
  printf("ok\n");
  return 0;
}
