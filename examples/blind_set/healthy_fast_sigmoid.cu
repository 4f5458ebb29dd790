// healthy_fast_sigmoid: blind set, HEALTHY (memory-bound, with intrinsics).
// y = 1 / (1 + e^-x) over 2^28 floats (1 GB in, 1 GB out) with __expf and __fdividef and float4 accesses:
// the special functions are cheap next to the DRAM traffic, which runs near its ceiling. A MUFU or
// division finding here would be wrong: the XU pipe is nearly idle compared to the memory system.
// Usage: ./healthy_fast_sigmoid [reps]
#include "../kernels/example_common.cuh"

__device__ __forceinline__ float fast_sigmoid(float x) { return __fdividef(1.0f, 1.0f + __expf(-x)); }

__global__ void healthy_fast_sigmoid(const float4* __restrict__ x, float4* __restrict__ y, size_t n4) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 v = x[i];
    y[i] = make_float4(fast_sigmoid(v.x), fast_sigmoid(v.y), fast_sigmoid(v.z), fast_sigmoid(v.w));
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n4 = size_t(1) << 26;
  float4* x = device_alloc<float4>(n4);
  float4* y = device_alloc<float4>(n4);
  fill_random<<<4096, 256>>>((float*)x, n4 * 4, 134, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    healthy_fast_sigmoid<<<unsigned((n4 + 255) / 256), 256>>>(x, y, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  float4 a = read_back(x + 4242), b = read_back(y + 4242);
  if (!(fabsf(b.x - 1.0f / (1.0f + expf(-a.x))) < 1e-5f)) fail("wrong result\n");
  time_kernel("healthy_fast_sigmoid", reps, launch);
  free_device({x, y});
  printf("ok\n");
  return 0;
}
