// channel_shuffle_pass: blind set 7, kind 8 (a pass that only moves data, between a producer and a consumer).
// ShuffleNet-v2 block in a straightforward port: grouped_pointwise (the producer) applies a per-group 1x1
// channel scale-and-mix to an NCHW fp32 feature map (batch 64, 232 channels in 4 groups, 56 x 56, 186 MB),
// channel_shuffle_pass writes the map again with channels reordered (c = g * 58 + k -> k * 4 + g; whole
// 12.5 KB planes copied with 16-byte accesses, 186 MB read and written),
// and depthwise_relu (the consumer) applies a 3 x 3 depthwise filter. The shuffle only moves data near DRAM
// bandwidth; folding the permutation into the consumer's channel index removes it. The labelled launch is
// channel_shuffle_pass.
// Usage: ./channel_shuffle_pass [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kN = 64, kC = 232, kG = 4, kPerG = kC / kG, kHW = 56 * 56, kW = 56;

__global__ void grouped_pointwise(const float* __restrict__ x, float* __restrict__ y,
                                  const float* __restrict__ mix) {
  const size_t total = size_t(kN) * kC * kHW;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    int p = int(i % kHW), c = int(i / kHW % kC), n = int(i / (size_t(kHW) * kC));
    int g0 = c / kPerG * kPerG, k = c % kPerG;
    // a 2-tap in-group mix standing in for the grouped 1x1 conv
    float a = x[(size_t(n) * kC + c) * kHW + p], b = x[(size_t(n) * kC + g0 + (k + 1) % kPerG) * kHW + p];
    y[i] = mix[c] * a + 0.25f * b;
  }
}

// channel g * kPerG + k of the input becomes channel k * kG + g, 16 bytes per thread
__global__ void channel_shuffle_pass(const float4* __restrict__ in, float4* __restrict__ out) {
  const size_t plane4 = kHW / 4, total = size_t(kN) * kC * plane4;
  for (size_t o = blockIdx.x * (size_t)blockDim.x + threadIdx.x; o < total;
       o += (size_t)gridDim.x * blockDim.x) {
    size_t p = o % plane4, nc = o / plane4;
    int c_out = int(nc % kC), n = int(nc / kC);
    int c_in = (c_out % kG) * kPerG + c_out / kG;
    out[o] = in[(size_t(n) * kC + c_in) * plane4 + p];
  }
}

__global__ void depthwise_relu(const float* __restrict__ x, const float* __restrict__ w,
                               float* __restrict__ y) {
  const size_t total = size_t(kN) * kC * kHW;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
       i += (size_t)gridDim.x * blockDim.x) {
    int p = int(i % kHW), c = int(i / kHW % kC), r = p / kW, q = p % kW;
    const float* plane = x + (i - p);
    float s = 0.0f;
    for (int dr = -1; dr <= 1; ++dr)
      for (int dq = -1; dq <= 1; ++dq) {
        int rr = r + dr, qq = q + dq;
        if (rr >= 0 && rr < kW && qq >= 0 && qq < kW)
          s += w[c * 9 + (dr + 1) * 3 + dq + 1] * plane[rr * kW + qq];
      }
    y[i] = fmaxf(s, 0.0f);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(kN) * kC * kHW;
  float *x = device_alloc<float>(n), *y = device_alloc<float>(n), *s = device_alloc<float>(n),
        *out = device_alloc<float>(n);
  float *mix = device_alloc<float>(kC), *w = device_alloc<float>(kC * 9);
  fill_random<<<2048, 256>>>(x, n, 723, -1.0f, 1.0f);
  fill_random<<<4, 256>>>(mix, kC, 724, 0.5f, 1.5f);
  fill_random<<<16, 256>>>(w, kC * 9, 725, -0.3f, 0.5f);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 8;
  auto forward = [&] {
    grouped_pointwise<<<blocks, 256>>>(x, y, mix);
    channel_shuffle_pass<<<blocks, 256>>>((const float4*)y, (float4*)s);
    depthwise_relu<<<blocks, 256>>>(s, w, out);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> hw(kC * 9), hmix(kC);
  CK(cudaMemcpy(hw.data(), w, kC * 9 * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hmix.data(), mix, kC * 4, cudaMemcpyDeviceToHost));
  auto produced = [&](int nn, int c, int p) {  // grouped_pointwise's output, recomputed on the host
    int g0 = c / kPerG * kPerG, k = c % kPerG;
    float a = read_back(x + (size_t(nn) * kC + c) * kHW + p),
          b = read_back(x + (size_t(nn) * kC + g0 + (k + 1) % kPerG) * kHW + p);
    return hmix[c] * a + 0.25f * b;
  };
  const int probes[3][4] = {{0, 0, 0, 0}, {3, 101, 20, 33}, {kN - 1, kC - 1, 55, 55}};
  for (const auto& pr : probes) {
    const int nn = pr[0], c = pr[1], r = pr[2], q = pr[3];
    int c_in = (c % kG) * kPerG + c / kG;
    double want = 0;
    for (int dr = -1; dr <= 1; ++dr)
      for (int dq = -1; dq <= 1; ++dq) {
        int rr = r + dr, qq = q + dq;
        if (rr >= 0 && rr < kW && qq >= 0 && qq < kW)
          want += hw[c * 9 + (dr + 1) * 3 + dq + 1] * produced(nn, c_in, rr * kW + qq);
      }
    want = std::fmax(want, 0.0);
    float got = read_back(out + (size_t(nn) * kC + c) * kHW + r * kW + q);
    if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-5))
      fail("wrong output (%d,%d,%d,%d): %g vs %g\n", nn, c, r, q, got, want);
  }
  time_kernel("channel_shuffle_pass_forward", reps, forward);
  free_device({x, y, s, out, mix, w});
  printf("ok\n");
  return 0;
}
