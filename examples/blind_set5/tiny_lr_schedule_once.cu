// tiny_lr_schedule_once: blind set 5, kind healthy (a tiny kernel launched once).
// Start-up of a training run: the learning rate of each of 20,000 steps (linear warm-up over 500 steps,
// then cosine decay to 10 % of the peak) is tabulated once on the device, 80 KB written by 79 blocks. It
// runs for a few microseconds, once per run; there is nothing worth optimizing.
// Usage: ./tiny_lr_schedule_once [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void tiny_lr_schedule_once(float* __restrict__ lr, int steps, int warmup, float peak) {
  int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= steps) return;
  float v;
  if (s < warmup) {
    v = peak * (s + 1) / warmup;
  } else {
    float p = float(s - warmup) / float(steps - warmup);
    v = peak * (0.1f + 0.45f * (1.0f + cospif(p)));
  }
  lr[s] = v;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int steps = 20000, warmup = 500;
  const float peak = 3e-4f;
  float* lr = device_alloc<float>(steps);
  auto launch = [&] {
    tiny_lr_schedule_once<<<(steps + 255) / 256, 256>>>(lr, steps, warmup, peak);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int s : {0, 499, 500, 10000, steps - 1}) {
    double want = s < warmup
                      ? peak * (s + 1.0) / warmup
                      : peak * (0.1 + 0.45 * (1.0 + std::cos(M_PI * double(s - warmup) / (steps - warmup))));
    float got = read_back(lr + s);
    if (!(std::fabs(got - want) <= 1e-5 * peak)) fail("wrong lr at %d: %g vs %g\n", s, got, want);
  }
  time_kernel("tiny_lr_schedule_once", reps, launch);
  free_device({lr});
  printf("ok\n");
  return 0;
}
