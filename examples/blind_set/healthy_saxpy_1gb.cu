// healthy_saxpy_1gb: blind set, HEALTHY (large streaming kernel at the DRAM ceiling).
// y = 2 x + y over 2^27 floats (512 MB per array, 1.5 GB moved), grid-stride loop with float4 accesses
// and a grid of 4 blocks of 512 threads per SM. DRAM bandwidth is the ceiling and it should sit near the
// copy ceiling measured on the GPU; only moving fewer bytes helps.
// Usage: ./healthy_saxpy_1gb [reps]
#include "../kernels/example_common.cuh"

__global__ void healthy_saxpy_1gb(const float4* __restrict__ x, float4* __restrict__ y, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 a = x[i], b = y[i];
    y[i] = make_float4(2.0f * a.x + b.x, 2.0f * a.y + b.y, 2.0f * a.z + b.z, 2.0f * a.w + b.w);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n4 = size_t(1) << 25;
  float4* x = device_alloc<float4>(n4);
  float4* y = device_alloc<float4>(n4);
  fill_random<<<4096, 256>>>((float*)x, n4 * 4, 132, 0.5f, 1.5f);
  fill_random<<<4096, 256>>>((float*)y, n4 * 4, 133, 0.5f, 1.5f);
  CK(cudaGetLastError());
  float4 x0 = read_back(x + 999999), y0 = read_back(y + 999999);
  auto launch = [&] {
    healthy_saxpy_1gb<<<4 * sm_count(), 512>>>(x, y, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float4 y1 = read_back(y + 999999);
  if (y1.w != 2.0f * x0.w + y0.w) fail("wrong result\n");
  time_kernel("healthy_saxpy_1gb", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
