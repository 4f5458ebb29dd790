// short_u8_image_normalize_18mb: blind set 6, kind 4 (a short kernel at its size-limited ceiling: healthy).
// Pre-processing of a 2048 x 1024 RGB8 camera frame for a vision model: (x / 255 - mean[c]) / std[c] with
// the per-channel scale and shift folded on the host, written as fp16 HWC. Each thread loads 8 bytes and
// stores 8 halves (16 bytes), 6 MB read and 12 MB written in one launch of several microseconds, a few
// instructions per value: bound by the bandwidth achievable for 18 MB, not by its code; fusing into the
// first convolution would be the only gain.
// Usage: ./short_u8_image_normalize_18mb [reps]
#include <cuda_fp16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

struct ChannelAffine {
  float scale[3], shift[3];
};

__global__ void short_u8_image_normalize_18mb(const uint2* __restrict__ in, uint4* __restrict__ out,
                                              ChannelAffine a, int n8) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n8) return;
  uint2 v = in[i];
  unsigned bytes[2] = {v.x, v.y};
  __align__(16) __half h[8];
  int c = (i * 8) % 3;
#pragma unroll
  for (int k = 0; k < 8; ++k) {
    float x = float((bytes[k / 4] >> (8 * (k % 4))) & 255u);
    h[k] = __float2half_rn(x * a.scale[c] + a.shift[c]);
    c = c == 2 ? 0 : c + 1;
  }
  out[i] = *reinterpret_cast<uint4*>(h);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 2048 * 1024 * 3;  // bytes
  std::vector<unsigned char> hin(n);
  for (int i = 0; i < n; ++i) hin[i] = (unsigned char)((unsigned(i) * 2654435761u) >> 24);
  const float mean[3] = {0.485f, 0.456f, 0.406f}, sd[3] = {0.229f, 0.224f, 0.225f};
  ChannelAffine a;
  for (int c = 0; c < 3; ++c) {
    a.scale[c] = 1.0f / (255.0f * sd[c]);
    a.shift[c] = -mean[c] / sd[c];
  }
  unsigned char* in = device_alloc<unsigned char>(n);
  __half* out = device_alloc<__half>(n);
  CK(cudaMemcpy(in, hin.data(), n, cudaMemcpyHostToDevice));
  auto launch = [&] {
    short_u8_image_normalize_18mb<<<(n / 8 + 255) / 256, 256>>>((const uint2*)in, (uint4*)out, a, n / 8);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1, 2, 3, 8, 1000001, n - 1}) {
    float want = (hin[i] / 255.0f - mean[i % 3]) / sd[i % 3];
    float got = __half2float(read_back(out + i));
    if (!(std::fabs(got - want) <= 4e-3f)) fail("wrong normalized value %d: %f vs %f\n", i, got, want);
  }
  time_kernel("short_u8_image_normalize_18mb", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
