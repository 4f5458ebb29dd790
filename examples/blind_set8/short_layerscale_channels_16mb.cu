// short_layerscale_channels_16mb: blind set 8, kind 4 (a short kernel near its size-limited ceiling:
// healthy). The LayerScale of a ViT/ConvNeXt block: y = x * gamma[channel] on a [tokens][768] fp32 activation
// of 2 M values, read and written as float4 with the 3 KB gamma vector served from L1/L2: 16 MB in one launch
// of a few microseconds, fully coalesced 16-byte accesses and four multiplies per thread. At this size the
// achievable bandwidth of a short launch, not the code, is the limit. Usage: ./short_layerscale_channels_16mb
// [reps]
#include "../kernels/example_common.cuh"

constexpr int kChannels = 768;

__global__ void short_layerscale_channels_16mb(const float4* __restrict__ x, const float4* __restrict__ gamma,
                                               float4* __restrict__ y, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 v = x[i], g = gamma[i % (kChannels / 4)];
  y[i] = make_float4(v.x * g.x, v.y * g.y, v.z * g.z, v.w * g.w);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 2730, n = tokens * kChannels, n4 = n / 4;  // 2.1 M values
  float* x = device_alloc<float>(n);
  float* gamma = device_alloc<float>(kChannels);
  float* y = device_alloc<float>(n);
  fill_random<<<1024, 256>>>(x, n, 881, -2.0f, 2.0f);
  fill_random<<<3, 256>>>(gamma, kChannels, 882, 0.01f, 0.2f);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_layerscale_channels_16mb<<<(n4 + 255) / 256, 256>>>((const float4*)x, (const float4*)gamma,
                                                              (float4*)y, n4);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 5, 1000001, n - 1}) {
    float want = read_back(x + i) * read_back(gamma + i % kChannels);
    if (read_back(y + i) != want) fail("wrong value at %d\n", i);
  }
  time_kernel("short_layerscale_channels_16mb", reps, launch);
  free_device({x, gamma, y});
  printf("ok\n");
  return 0;
}
