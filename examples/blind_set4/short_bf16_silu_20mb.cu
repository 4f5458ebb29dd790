// short_bf16_silu_20mb: blind set 4, kind 4 (a short kernel near its size-limited ceiling: healthy).
// The SiLU activation of a small MLP in bf16, y = x * sigmoid(x), over 2,048 tokens x 2,560 features
// (5.2 M values: 10.5 MB read, 10.5 MB written), eight bf16 per thread through one 16-byte load and one
// 16-byte store, __expf and __fdividef for the sigmoid (two MUFU operations per value, far below the
// MUFU rate). One launch of several microseconds: at 21 MB the achievable DRAM bandwidth is well below
// peak, so its size, not its code, limits it; fusing it into the GEMM epilogue is the only gain left.
// Usage: ./short_bf16_silu_20mb [reps]
#include <cuda_bf16.h>

#include "../kernels/example_common.cuh"

__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(in[i] - 2.0f);
}

__global__ void short_bf16_silu_20mb(const uint4* __restrict__ x, uint4* __restrict__ y, int n8) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n8) return;
  uint4 v = x[i];
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    float2 f = __bfloat1622float2(h[k]);
    f.x = __fdividef(f.x, 1.0f + __expf(-f.x));
    f.y = __fdividef(f.y, 1.0f + __expf(-f.y));
    h[k] = __float22bfloat162_rn(f);
  }
  y[i] = v;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 2048 * 2560, n8 = n / 8;
  float* staging = device_alloc<float>(n);
  __nv_bfloat16* x = device_alloc<__nv_bfloat16>(n);
  __nv_bfloat16* y = device_alloc<__nv_bfloat16>(n);
  fill_random<<<1024, 256>>>(staging, n, 412, 0.01f, 4.0f);
  to_bf16<<<1024, 256>>>(staging, x, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_bf16_silu_20mb<<<(n8 + 255) / 256, 256>>>((const uint4*)x, (uint4*)y, n8);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 7, 123457, n - 1}) {
    float v = __bfloat162float(read_back(x + i));
    float want = v / (1.0f + std::exp(-v));
    float got = __bfloat162float(read_back(y + i));
    if (!(fabsf(got - want) <= 1e-2f * fabsf(want) + 1e-3f))
      fail("wrong silu at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("short_bf16_silu_20mb", reps, launch);
  free_device({staging, x, y});
  printf("ok\n");
  return 0;
}
