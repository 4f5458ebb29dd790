// short_int8_quantize_15mb: blind set 5, kind 4 (a short kernel near its size-limited ceiling: healthy).
// Per-tensor symmetric int8 quantization of an activation tensor before an int8 GEMM: 3 M floats (12 MB)
// read as float4, scaled by a precomputed 1/scale, rounded (cvt.rni), saturated and written as char4 (3 MB):
// 15 MB in one launch of several microseconds. Fully coalesced 16-byte loads and 4-byte stores, a handful of
// instructions per value; at this size the achievable bandwidth, not the code, is the limit.
// Usage: ./short_int8_quantize_15mb [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void short_int8_quantize_15mb(const float4* __restrict__ x, char4* __restrict__ q, float inv_scale,
                                         int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 v = x[i];
  auto qz = [&](float f) { return (signed char)max(-127, min(127, __float2int_rn(f * inv_scale))); };
  q[i] = make_char4(qz(v.x), qz(v.y), qz(v.z), qz(v.w));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 3 << 20, n4 = n / 4;
  float* x = device_alloc<float>(n);
  char4* q = device_alloc<char4>(n4);
  fill_random<<<1024, 256>>>(x, n, 541, -3.0f + 1e-4f, 3.0f);
  CK(cudaGetLastError());
  const float inv_scale = 127.0f / 3.0f;
  auto launch = [&] {
    short_int8_quantize_15mb<<<(n4 + 255) / 256, 256>>>((const float4*)x, q, inv_scale, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 3, 1000001, n - 1}) {
    float v = read_back(x + i);
    int want = std::max(-127, std::min(127, (int)std::nearbyint(v * inv_scale)));
    int got = read_back(reinterpret_cast<signed char*>(q) + i);
    if (std::abs(got - want) > 1) fail("wrong code at %d: %d vs %d\n", i, got, want);
  }
  time_kernel("short_int8_quantize_15mb", reps, launch);
  free_device({x, q});
  printf("ok\n");
  return 0;
}
