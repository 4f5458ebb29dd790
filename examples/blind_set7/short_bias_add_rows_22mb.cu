// short_bias_add_rows_22mb: blind set 7, kind 4 (a short kernel at its size-limited ceiling: healthy).
// The un-fused bias add after a linear layer of a small model (2,688 tokens x hidden 1,024, fp32):
// y = x + bias[col] in place, 16-byte loads and stores, the 4 KB bias vector cached; 11 MB read and 11 MB
// written in one launch of several microseconds, at the DRAM bandwidth a 22 MB transfer can reach on the
// H200 (launch and ramp-up included). Only fusing it into the GEMM epilogue would remove it; the kernel is
// fine. Usage: ./short_bias_add_rows_22mb [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kHidden = 1024;

__global__ void short_bias_add_rows_22mb(float4* __restrict__ x, const float4* __restrict__ bias, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 v = x[i], b = bias[i & (kHidden / 4 - 1)];
  v.x += b.x;
  v.y += b.y;
  v.z += b.z;
  v.w += b.w;
  x[i] = v;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 2688, n = tokens * kHidden;
  float* x = device_alloc<float>(n);
  float* bias = device_alloc<float>(kHidden);
  fill_random<<<1024, 256>>>(x, n, 712, -1.0f, 1.0f);
  fill_random<<<4, 256>>>(bias, kHidden, 713, -0.1f, 0.1f);
  CK(cudaGetLastError());
  const int probes[4] = {0, 1023, n / 2 + 5, n - 1};
  float before[4];
  for (int k = 0; k < 4; ++k) before[k] = read_back(x + probes[k]);
  auto launch = [&] {
    short_bias_add_rows_22mb<<<n / 4 / 256, 256>>>((float4*)x, (const float4*)bias, n / 4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int k = 0; k < 4; ++k) {
    float got = read_back(x + probes[k]), want = before[k] + read_back(bias + probes[k] % kHidden);
    if (!(std::fabs(got - want) <= 1e-6f)) fail("wrong biased value %d: %g vs %g\n", probes[k], got, want);
  }
  time_kernel("short_bias_add_rows_22mb", reps, launch);
  free_device({x, bias});
  printf("ok\n");
  return 0;
}
