// int64_reflect_pad_crop: blind set 6, kind 1 (64-bit integer index arithmetic dominating the mix).
// Training-time augmentation of a batch of feature maps (vision): reflect-pad by 16 and take a 288 x 288
// window at a per-image offset, written as a generic NCHW gather with int64_t indices of run-time sizes:
// the output index is split into (n, c, y, x) with three 64-bit divisions/remainders, and each source
// coordinate is reflected with two 64-bit % by 2 (H - 1) (the C-style ((v % m) + m) % m). Seven 64-bit
// division sequences plus 64-bit multiply-adds per 4-byte output element (42.5 M elements, about 300 MB
// moved, the source reads mostly coalesced): the integer pipes, not DRAM, set the time. 32-bit indices,
// a 2-D grid (y, n*c) and a branch for the reflection would remove nearly all of it.
// Usage: ./int64_reflect_pad_crop [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

__host__ __device__ inline int64_t reflect(int64_t v, int64_t size) {
  int64_t m = 2 * (size - 1);
  int64_t t = ((v % m) + m) % m;
  return t < size ? t : m - t;
}

__global__ void int64_reflect_pad_crop(const float* __restrict__ in, float* __restrict__ out,
                                       const int2* __restrict__ offsets, int64_t channels, int64_t height,
                                       int64_t width, int64_t out_h, int64_t out_w, int64_t pad, int64_t total) {
  int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (idx >= total) return;
  int64_t x = idx % out_w;
  int64_t y = (idx / out_w) % out_h;
  int64_t c = (idx / (out_w * out_h)) % channels;
  int64_t n = idx / (out_w * out_h * channels);
  int2 off = offsets[n];
  int64_t sy = reflect(y + off.y - pad, height), sx = reflect(x + off.x - pad, width);
  out[idx] = in[((n * channels + c) * height + sy) * width + sx];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int64_t batch = 32, channels = 16, height = 256, width = 256, out_h = 288, out_w = 288, pad = 16;
  const int64_t in_n = batch * channels * height * width, total = batch * channels * out_h * out_w;
  float* in = device_alloc<float>(in_n);
  float* out = device_alloc<float>(total);
  int2* offsets = device_alloc<int2>(batch);
  fill_random<<<2048, 256>>>(in, in_n, 601, 0.5f, 1.5f);
  CK(cudaGetLastError());
  std::vector<int2> ho(batch);
  for (int n = 0; n < batch; ++n) ho[n] = make_int2((n * 7) % 33, (n * 13) % 33);
  CK(cudaMemcpy(offsets, ho.data(), sizeof(int2) * batch, cudaMemcpyHostToDevice));
  auto launch = [&] {
    int64_reflect_pad_crop<<<unsigned((total + 255) / 256), 256>>>(in, out, offsets, channels, height, width, out_h,
                                                                   out_w, pad, total);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int64_t idx : {int64_t(0), int64_t(287), int64_t(1234567), total / 2 + 300, total - 1}) {
    int64_t x = idx % out_w, y = (idx / out_w) % out_h, c = (idx / (out_w * out_h)) % channels;
    int64_t n = idx / (out_w * out_h * channels);
    int64_t sy = reflect(y + ho[n].y - pad, height), sx = reflect(x + ho[n].x - pad, width);
    float want = read_back(in + ((n * channels + c) * height + sy) * width + sx), got = read_back(out + idx);
    if (got != want) fail("wrong crop value at %lld: %f vs %f\n", (long long)idx, got, want);
  }
  time_kernel("int64_reflect_pad_crop", reps, launch);
  free_device({in, out, offsets});
  printf("ok\n");
  return 0;
}
