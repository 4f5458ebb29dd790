// short_add_12mb: blind set, HEALTHY at its size-limited ceiling (kind 4).
// c = a + b over 1 M floats (4 MB per array, 12 MB moved) with float4 loads and stores, one launch: the
// kernel lasts a few microseconds, too short to reach the sustained DRAM bandwidth (ramp-up, one partial
// wave, launch latency). Its code is already right (coalesced 128-bit accesses); only its size limits it.
// The recommendation is fusion with neighbouring kernels or batching, not latency hiding.
// Usage: ./short_add_12mb [reps]
#include "../kernels/example_common.cuh"

__global__ void short_add_12mb(const float4* __restrict__ a, const float4* __restrict__ b, float4* __restrict__ c,
                               int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 x = a[i], y = b[i];
    c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n4 = 1 << 18;  // 1 M floats
  float4* a = device_alloc<float4>(n4);
  float4* b = device_alloc<float4>(n4);
  float4* c = device_alloc<float4>(n4);
  fill_random<<<1024, 256>>>((float*)a, size_t(n4) * 4, 114, 0.5f, 1.5f);
  fill_random<<<1024, 256>>>((float*)b, size_t(n4) * 4, 115, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_add_12mb<<<(n4 + 255) / 256, 256>>>(a, b, c, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float4 x = read_back(a + 1000), y = read_back(b + 1000), z = read_back(c + 1000);
  if (z.y != x.y + y.y) fail("wrong result\n");
  time_kernel("short_add_12mb", reps, launch);
  free_device({a, b, c});
  printf("ok\n");
  return 0;
}
