// short_residual_scale_24mb: blind set 3, kind 4 (a short kernel near its size-limited ceiling: healthy).
// A residual add with a per-channel scale, out = (x + r) * gamma, over 2,048 tokens x 1,024 channels
// (three 8 MB float tensors: 24 MB moved), float4 loads and stores, one thread per float4, one launch of
// a few microseconds. It already moves its bytes the widest way; at 24 MB the achievable bandwidth is
// well below the 4.8 TB/s peak, so its size, not its code, limits it: fusion or batching is the only
// remaining gain.
// Usage: ./short_residual_scale_24mb [reps]
#include "../kernels/example_common.cuh"

constexpr int kChannels = 1024;

__global__ void short_residual_scale_24mb(const float4* __restrict__ x, const float4* __restrict__ r,
                                          const float4* __restrict__ gamma, float4* __restrict__ out,
                                          int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 a = x[i], b = r[i], g = gamma[i % (kChannels / 4)];
  out[i] = make_float4((a.x + b.x) * g.x, (a.y + b.y) * g.y, (a.z + b.z) * g.z, (a.w + b.w) * g.w);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 2048, n = tokens * kChannels, n4 = n / 4;
  float* x = device_alloc<float>(n);
  float* r = device_alloc<float>(n);
  float* gamma = device_alloc<float>(kChannels);
  float* out = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(x, n, 313, 0.5f, 1.5f);
  fill_random<<<1024, 256>>>(r, n, 314, 0.5f, 1.5f);
  fill_random<<<4, 256>>>(gamma, kChannels, 315, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_residual_scale_24mb<<<(n4 + 255) / 256, 256>>>((const float4*)x, (const float4*)r,
                                                         (const float4*)gamma, (float4*)out, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1025, 777777, n - 1}) {
    float want = (read_back(x + i) + read_back(r + i)) * read_back(gamma + i % kChannels);
    float got = read_back(out + i);
    if (!(fabsf(got - want) <= 1e-6f * fabsf(want))) fail("wrong result at %d: %f vs %f\n", i, got, want);
  }
  time_kernel("short_residual_scale_24mb", reps, launch);
  free_device({x, r, gamma, out});
  printf("ok\n");
  return 0;
}
