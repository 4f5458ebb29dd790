// healthy_bf16_axpy: blind set 2, HEALTHY (DRAM-bound at its ceiling).
// y = a * x + y over 256 M bf16 values (512 MB each; 1.5 GB moved) with 16-byte vectors (8 bf16) and
// f32 arithmetic: a streaming kernel at the DRAM bandwidth it can reach. Nothing above minor is right.
// Usage: ./healthy_bf16_axpy [reps]
#include <cuda_bf16.h>

#include "../kernels/example_common.cuh"

__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(in[i % (1u << 20)]);
}

__global__ void healthy_bf16_axpy(const uint4* __restrict__ x, uint4* __restrict__ y, float a, size_t n8) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n8; i += (size_t)gridDim.x * blockDim.x) {
    uint4 xv = x[i], yv = y[i];
    const __nv_bfloat162* xp = reinterpret_cast<const __nv_bfloat162*>(&xv);
    __nv_bfloat162* yp = reinterpret_cast<__nv_bfloat162*>(&yv);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      float2 xf = __bfloat1622float2(xp[k]), yf = __bfloat1622float2(yp[k]);
      yp[k] = __floats2bfloat162_rn(fmaf(a, xf.x, yf.x), fmaf(a, xf.y, yf.y));
    }
    y[i] = yv;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(1) << 28;
  float* seed = device_alloc<float>(1u << 20);
  __nv_bfloat16* x = device_alloc<__nv_bfloat16>(n);
  __nv_bfloat16* y = device_alloc<__nv_bfloat16>(n);
  fill_random<<<1024, 256>>>(seed, 1u << 20, 215, 0.5f, 1.5f);
  to_bf16<<<4096, 256>>>(seed, x, n);
  to_bf16<<<4096, 256>>>(seed, y, n);
  CK(cudaGetLastError());
  const int blocks = 8 * sm_count();
  auto launch = [&] {
    healthy_bf16_axpy<<<blocks, 512>>>(reinterpret_cast<const uint4*>(x), reinterpret_cast<uint4*>(y), 0.5f, n / 8);
    CK(cudaGetLastError());
  };
  __nv_bfloat16 before = read_back(y + 777), xs = read_back(x + 777);
  launch();
  CK(cudaDeviceSynchronize());
  float want = fmaf(0.5f, __bfloat162float(xs), __bfloat162float(before));
  float got = __bfloat162float(read_back(y + 777));
  if (!(fabs(got - want) <= 0.01f * want)) fail("wrong result %f vs %f\n", got, want);
  time_kernel("healthy_bf16_axpy", reps, launch);
  free_device({seed, x, y});
  printf("ok\n");
  return 0;
}
