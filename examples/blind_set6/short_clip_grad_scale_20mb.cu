// short_clip_grad_scale_20mb: blind set 6, kind 4 (a short kernel at its size-limited ceiling: healthy).
// Gradient clipping of a 2.6 M-parameter adapter (fine-tuning): after the global norm is known, every
// gradient is scaled in place by min(1, max_norm / (norm + 1e-6)), read from device memory. 10 MiB read and
// 10 MiB written with 16-byte loads and stores, one FMUL per value, a single launch of several microseconds:
// bound by the DRAM bandwidth achievable for 21 MB (about 2.5 TB/s on the H200), not by its code; only fusing
// the scale into the optimizer step would remove it.
// Usage: ./short_clip_grad_scale_20mb [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void short_clip_grad_scale_20mb(float4* __restrict__ grad, const float* __restrict__ norm,
                                           float max_norm, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float scale = fminf(1.0f, max_norm / (*norm + 1e-6f));
  float4 g = grad[i];
  g.x *= scale;
  g.y *= scale;
  g.z *= scale;
  g.w *= scale;
  grad[i] = g;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 10 << 18;  // 2,621,440 floats, 10 MiB
  float* grad = device_alloc<float>(n);
  float* norm = device_alloc<float>(1);
  fill_random<<<1024, 256>>>(grad, n, 621, 0.001f, 1.0f);
  CK(cudaGetLastError());
  const float hnorm = 4.0f, max_norm = 1.0f;
  CK(cudaMemcpy(norm, &hnorm, 4, cudaMemcpyHostToDevice));
  std::vector<float> before(4);
  const int probes[4] = {0, 1, n / 2 + 3, n - 1};
  for (int k = 0; k < 4; ++k) before[k] = read_back(grad + probes[k]);
  auto launch = [&] {
    short_clip_grad_scale_20mb<<<n / 4 / 256, 256>>>((float4*)grad, norm, max_norm, n / 4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  const float scale = std::fmin(1.0f, max_norm / (hnorm + 1e-6f));
  for (int k = 0; k < 4; ++k) {
    float got = read_back(grad + probes[k]), want = before[k] * scale;
    if (!(std::fabs(got - want) <= 1e-6f * std::fabs(want) + 1e-12f)) fail("wrong scaled grad %d: %g vs %g\n", probes[k], got, want);
  }
  time_kernel("short_clip_grad_scale_20mb", reps, launch);
  free_device({grad, norm});
  printf("ok\n");
  return 0;
}
