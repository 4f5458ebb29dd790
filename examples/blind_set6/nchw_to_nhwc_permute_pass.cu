// nchw_to_nhwc_permute_pass: blind set 6, kind 8 (a pass that only moves data, between a producer and a consumer).
// A vision backbone's layout glue: bn_relu_nchw applies a folded batch-norm and ReLU to an 8 x 256 x 128 x 128
// activation in NCHW, nchw_to_nhwc_pass permutes it to channels-last with a padded 32 x 33 shared-memory tile
// transpose (coalesced 128 MB read and 128 MB write, no bank conflicts), and pixel_channel_mean_nhwc, the
// consumer, reduces each pixel's 256 channels with one warp per pixel. The permute kernel is well written and
// near DRAM bandwidth, but it exists only to move data: writing NHWC from the producer (or reading NCHW in the
// consumer) removes 256 MB of traffic and a launch. The labelled launch is nchw_to_nhwc_pass.
// Usage: ./nchw_to_nhwc_permute_pass [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kN = 8, kC = 256, kHW = 128 * 128;

__global__ void bn_relu_nchw(const float* __restrict__ x, const float2* __restrict__ affine, float* __restrict__ y) {
  size_t total = size_t(kN) * kC * kHW;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    float2 a = affine[(i / kHW) % kC];
    y[i] = fmaxf(x[i] * a.x + a.y, 0.0f);
  }
}

// one 32 x 32 tile of one image: [c][hw] -> [hw][c]
__global__ void nchw_to_nhwc_pass(const float* __restrict__ in, float* __restrict__ out) {
  __shared__ float tile[32][33];
  int n = blockIdx.z, c0 = blockIdx.y * 32, p0 = blockIdx.x * 32;
  const float* src = in + size_t(n) * kC * kHW;
  float* dst = out + size_t(n) * kC * kHW;
  for (int r = threadIdx.y; r < 32; r += blockDim.y) tile[r][threadIdx.x] = src[size_t(c0 + r) * kHW + p0 + threadIdx.x];
  __syncthreads();
  for (int r = threadIdx.y; r < 32; r += blockDim.y) dst[size_t(p0 + r) * kC + c0 + threadIdx.x] = tile[threadIdx.x][r];
}

__global__ void pixel_channel_mean_nhwc(const float* __restrict__ x, float* __restrict__ mean) {
  size_t pixel = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (pixel >= size_t(kN) * kHW) return;
  float s = 0.0f;
  for (int c = lane; c < kC; c += 32) s += x[pixel * kC + c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) mean[pixel] = s / kC;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t total = size_t(kN) * kC * kHW;
  float* x = device_alloc<float>(total);
  float* y = device_alloc<float>(total);
  float* z = device_alloc<float>(total);
  float* mean = device_alloc<float>(size_t(kN) * kHW);
  float2* affine = device_alloc<float2>(kC);
  fill_random<<<2048, 256>>>(x, total, 671, 1e-3f, 1.0f);
  CK(cudaGetLastError());
  std::vector<float2> ha(kC);
  for (int c = 0; c < kC; ++c) ha[c] = make_float2(0.5f + 0.01f * c, (c % 3) * 0.1f - 0.1f);
  CK(cudaMemcpy(affine, ha.data(), sizeof(float2) * kC, cudaMemcpyHostToDevice));
  const int blocks = sm_count() * 8;
  auto forward = [&] {
    bn_relu_nchw<<<blocks, 256>>>(x, affine, y);
    nchw_to_nhwc_pass<<<dim3(kHW / 32, kC / 32, kN), dim3(32, 8)>>>(y, z);
    pixel_channel_mean_nhwc<<<unsigned(size_t(kN) * kHW * 32 / 256), 256>>>(z, mean);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  for (size_t pixel : {size_t(0), size_t(12345), size_t(kN) * kHW - 1}) {
    size_t n = pixel / kHW, p = pixel % kHW;
    double want = 0;
    for (int c = 0; c < kC; ++c) want += std::fmax(read_back(x + (n * kC + c) * kHW + p) * ha[c].x + ha[c].y, 0.0f);
    want /= kC;
    float got = read_back(mean + pixel);
    if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-6)) fail("wrong pixel mean %zu: %f vs %f\n", pixel, got, want);
  }
  time_kernel("nchw_to_nhwc_permute_pass_forward", reps, forward);
  free_device({x, y, z, mean, affine});
  printf("ok\n");
  return 0;
}
