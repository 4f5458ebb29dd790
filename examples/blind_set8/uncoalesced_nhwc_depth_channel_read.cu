// uncoalesced_nhwc_depth_channel_read: blind set 8, kind other (uncoalesced global loads).
// An RGB-D pipeline keeps its frames as NHWC fp32 tensors with 64 feature channels per pixel; the depth
// hole-filling statistics read only channel 0 (the depth) of each pixel with one thread per pixel: lanes
// 256 bytes apart, so every 4-byte load touches its own 32-byte sector (1/8 of each sector used) - 4 M pixels
// of a 1.07 GB tensor, 134 MB of sectors fetched (more with 64-byte DRAM bursts) for 17 MB of useful data,
// plus a coalesced 17 MB write. Keeping depth in a
// planar array (or an NCHW copy) would make the reads coalesced. Usage: ./uncoalesced_nhwc_depth_channel_read
// [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kChannels = 64;

__global__ void uncoalesced_nhwc_depth_channel_read(const float* __restrict__ features,
                                                    float* __restrict__ valid, int pixels, float near_m,
                                                    float far_m) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= pixels) return;
  float d = features[size_t(p) * kChannels];
  valid[p] = (d > near_m && d < far_m) ? 1.0f / d : 0.0f;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int pixels = 4 << 20;  // 16 frames of 512 x 512
  float* f = device_alloc<float>(size_t(pixels) * kChannels);
  float* valid = device_alloc<float>(pixels);
  fill_random<<<4096, 256>>>(f, size_t(pixels) * kChannels, 941, 0.1f, 10.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    uncoalesced_nhwc_depth_channel_read<<<(pixels + 255) / 256, 256>>>(f, valid, pixels, 0.3f, 8.0f);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int p : {0, 31, 2000003, pixels - 1}) {
    float d = read_back(f + size_t(p) * kChannels);
    float want = (d > 0.3f && d < 8.0f) ? 1.0f / d : 0.0f;
    if (!(std::fabs(read_back(valid + p) - want) <= 1e-6f * std::fabs(want))) fail("wrong pixel %d\n", p);
  }
  time_kernel("uncoalesced_nhwc_depth_channel_read", reps, launch);
  free_device({f, valid});
  printf("ok\n");
  return 0;
}
