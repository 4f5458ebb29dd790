// short_relu_16mb: blind set 2, HEALTHY at its size-limited ceiling (kind 4).
// y = max(x, 0) over 2 M floats (8 MB read, 8 MB written) with float4 accesses, one launch of a few
// microseconds: too short to reach the sustained DRAM bandwidth. The code is right; only fusion or
// batching with neighbouring work would help, not latency hiding.
// Usage: ./short_relu_16mb [reps]
#include "../kernels/example_common.cuh"

__global__ void short_relu_16mb(const float4* __restrict__ x, float4* __restrict__ y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    y[i] = make_float4(fmaxf(v.x, 0.f), fmaxf(v.y, 0.f), fmaxf(v.z, 0.f), fmaxf(v.w, 0.f));
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n4 = 1 << 19;  // 2 M floats
  float4* x = device_alloc<float4>(n4);
  float4* y = device_alloc<float4>(n4);
  fill_random<<<1024, 256>>>((float*)x, size_t(n4) * 4, 210, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_relu_16mb<<<(n4 + 255) / 256, 256>>>(x, y, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float4 a = read_back(x + 99), b = read_back(y + 99);
  if (b.z != fmaxf(a.z, 0.f)) fail("wrong result\n");
  time_kernel("short_relu_16mb", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
