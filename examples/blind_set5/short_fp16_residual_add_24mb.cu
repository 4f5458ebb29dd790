// short_fp16_residual_add_24mb: blind set 5, kind 4 (a short kernel near its size-limited ceiling: healthy).
// The residual connection of a small vision transformer block in fp16, out = x + attn, over 4 M values
// (8 MB + 8 MB read, 8 MB written), eight halves per thread through 16-byte loads and stores, one HADD2 per
// pair. A single launch of roughly 10 us: at 24 MB the achievable DRAM bandwidth is well below the peak,
// so the size, not the code, limits it; fusing it into the producer's epilogue is the only gain left.
// Usage: ./short_fp16_residual_add_24mb [reps]
#include <cuda_fp16.h>

#include "../kernels/example_common.cuh"

__global__ void to_half(const float* __restrict__ in, __half* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2half(in[i]);
}

__global__ void short_fp16_residual_add_24mb(const uint4* __restrict__ x, const uint4* __restrict__ r,
                                             uint4* __restrict__ out, int n8) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n8) return;
  uint4 a = x[i], b = r[i];
  __half2* ha = reinterpret_cast<__half2*>(&a);
  const __half2* hb = reinterpret_cast<const __half2*>(&b);
#pragma unroll
  for (int k = 0; k < 4; ++k) ha[k] = __hadd2(ha[k], hb[k]);
  out[i] = a;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22, n8 = n / 8;
  float* staging = device_alloc<float>(n);
  __half* x = device_alloc<__half>(n);
  __half* r = device_alloc<__half>(n);
  __half* out = device_alloc<__half>(n);
  fill_random<<<1024, 256>>>(staging, n, 531, 0.1f, 2.0f);
  to_half<<<1024, 256>>>(staging, x, n);
  fill_random<<<1024, 256>>>(staging, n, 532, 0.1f, 2.0f);
  to_half<<<1024, 256>>>(staging, r, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_fp16_residual_add_24mb<<<(n8 + 255) / 256, 256>>>((const uint4*)x, (const uint4*)r, (uint4*)out,
                                                            n8);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 9, 654321, n - 1}) {
    float want = __half2float(read_back(x + i)) + __half2float(read_back(r + i));
    float got = __half2float(read_back(out + i));
    if (!(fabsf(got - want) <= 2e-3f * fabsf(want))) fail("wrong sum at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("short_fp16_residual_add_24mb", reps, launch);
  free_device({staging, x, r, out});
  printf("ok\n");
  return 0;
}
