// healthy_int8_dequant_bf16: blind set 4, healthy (DRAM-bound streaming at the bandwidth ceiling).
// Weight-only-quantized inference: int8 weights with one float scale per group of 128 are expanded to
// bf16 (256 M weights: 256 MB read, 512 MB written, 8 MB of scales). Each thread loads 16 int8 with one
// 16-byte load, converts and scales them, and writes 16 bf16 with two 16-byte stores; the eight threads
// of a group read the same scale (an L1 broadcast). Wide coalesced accesses, a few instructions per byte,
// 768 MB per launch: DRAM-bound near the achievable bandwidth with nothing left to fix in the kernel.
// Usage: ./healthy_int8_dequant_bf16 [reps]
#include <cuda_bf16.h>

#include "../kernels/example_common.cuh"

constexpr int kGroup = 128;

__global__ void healthy_int8_dequant_bf16(const int4* __restrict__ q, const float* __restrict__ scales,
                                          uint4* __restrict__ out, size_t n16) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n16) return;
  int4 v = q[i];
  float s = scales[i / (kGroup / 16)];
  int words[4] = {v.x, v.y, v.z, v.w};
  uint4 o[2];
  __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(o);
#pragma unroll
  for (int w = 0; w < 4; ++w) {
    unsigned x = unsigned(words[w]);  // four signed bytes, lowest first
    float a = float(int(x << 24) >> 24), b = float(int(x << 16) >> 24), c = float(int(x << 8) >> 24),
          d = float(int(x) >> 24);
    h[2 * w] = __floats2bfloat162_rn(a * s, b * s);
    h[2 * w + 1] = __floats2bfloat162_rn(c * s, d * s);
  }
  out[2 * i] = o[0];
  out[2 * i + 1] = o[1];
}

__global__ void make_weights(unsigned* q, size_t words) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
       i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = unsigned(i) * 0x9e3779b1u + 0x7f4a7c15u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    q[i] = h;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(256) << 20, n16 = n / 16, groups = n / kGroup;
  signed char* q = device_alloc<signed char>(n);
  float* scales = device_alloc<float>(groups);
  __nv_bfloat16* out = device_alloc<__nv_bfloat16>(n);
  make_weights<<<2048, 256>>>((unsigned*)q, n / 4);
  fill_random<<<1024, 256>>>(scales, groups, 430, 0.001f, 0.02f);
  CK(cudaGetLastError());
  auto launch = [&] {
    healthy_int8_dequant_bf16<<<unsigned((n16 + 255) / 256), 256>>>((const int4*)q, scales, (uint4*)out, n16);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (size_t i : {size_t(0), size_t(1), size_t(127), size_t(128), size_t(99999999), n - 1}) {
    float want = float(read_back(q + i)) * read_back(scales + i / kGroup);
    float got = __bfloat162float(read_back(out + i));
    if (!(fabsf(got - want) <= 4e-3f * fabsf(want) + 1e-6f))
      fail("wrong weight %zu: %f vs %f\n", i, got, want);
  }
  time_kernel("healthy_int8_dequant_bf16", reps, launch);
  free_device({q, scales, out});
  printf("ok\n");
  return 0;
}
