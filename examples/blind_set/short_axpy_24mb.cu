// short_axpy_24mb: blind set, HEALTHY at its size-limited ceiling (kind 4).
// y = 1.5 x + y over 2 M floats (8 MB per array: 24 MB moved) with float4 accesses, one launch of about
// 10-20 us. As short_add_12mb: the size, not the code, keeps it below the sustained DRAM bandwidth; fuse
// or batch.
// Usage: ./short_axpy_24mb [reps]
#include "../kernels/example_common.cuh"

__global__ void short_axpy_24mb(const float4* __restrict__ x, float4* __restrict__ y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 a = x[i], b = y[i];
    y[i] = make_float4(1.5f * a.x + b.x, 1.5f * a.y + b.y, 1.5f * a.z + b.z, 1.5f * a.w + b.w);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n4 = 1 << 19;  // 2 M floats
  float4* x = device_alloc<float4>(n4);
  float4* y = device_alloc<float4>(n4);
  fill_random<<<1024, 256>>>((float*)x, size_t(n4) * 4, 116, 0.5f, 1.5f);
  fill_random<<<1024, 256>>>((float*)y, size_t(n4) * 4, 117, 0.5f, 1.5f);
  CK(cudaGetLastError());
  float4 x0 = read_back(x + 77), y0 = read_back(y + 77);
  auto launch = [&] {
    short_axpy_24mb<<<(n4 + 255) / 256, 256>>>(x, y, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float4 y1 = read_back(y + 77);
  if (y1.z != 1.5f * x0.z + y0.z) fail("wrong result\n");
  time_kernel("short_axpy_24mb", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
