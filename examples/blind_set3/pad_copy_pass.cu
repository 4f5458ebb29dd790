// pad_copy_pass: blind set 3, kind 8 (a pass that exists only to move data), in a three-kernel program.
// A producer writes a feature map [32 x 64 x 128 x 128] float (134 MB); a separate pass copies it into a
// zero-padded buffer [32 x 64 x 130 x 130] (read 134 MB, write 138 MB, no arithmetic) so that the
// consumer, a depthwise 3 x 3 convolution, needs no bounds checks. The pad pass is pure data movement:
// the consumer can treat out-of-range taps as zero (or the producer can write into the padded buffer's
// interior), and the whole round trip through DRAM disappears. The profile holds all three kernels; the
// labelled launch is zero_pad_copy.
// Usage: ./pad_copy_pass [reps]
#include "../kernels/example_common.cuh"

constexpr int kH = 128, kW = 128, kP = kH + 2, kQ = kW + 2;

__global__ void produce_feature_map(const float* __restrict__ seed, float* __restrict__ fmap, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  float s = seed[i % 4096];
  fmap[i] = fmaxf(0.0f, s * 1.5f - 0.25f + float(i % kW) * 1e-3f);
}

// One block row per (image, channel) plane: blockIdx.y is the plane, x runs over the padded plane.
__global__ void zero_pad_copy(const float* __restrict__ fmap, float* __restrict__ padded) {
  int o = blockIdx.x * blockDim.x + threadIdx.x;
  if (o >= kP * kQ) return;
  int p = o / kQ, q = o % kQ;
  size_t plane = blockIdx.y;
  float v = 0.0f;
  if (p >= 1 && p <= kH && q >= 1 && q <= kW) v = fmap[(plane * kH + (p - 1)) * kW + (q - 1)];
  padded[plane * (kP * kQ) + o] = v;
}

__global__ void depthwise_conv3x3(const float* __restrict__ padded, const float* __restrict__ weights,
                                  float* __restrict__ out, int channels) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;  // within the plane: grid.x covers kH * kW exactly
  int x = i % kW, y = i / kW;
  size_t plane = blockIdx.y;
  const float* w = weights + (plane % channels) * 9;
  const float* base = padded + (plane * kP + y) * kQ + x;
  float acc = 0.0f;
#pragma unroll
  for (int dy = 0; dy < 3; ++dy)
#pragma unroll
    for (int dx = 0; dx < 3; ++dx) acc += w[dy * 3 + dx] * base[dy * kQ + dx];
  out[plane * (kH * kW) + i] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int batch = 32, channels = 64;
  const size_t planes = size_t(batch) * channels, n = planes * kH * kW, n_padded = planes * kP * kQ;
  float* seed = device_alloc<float>(4096);
  float* weights = device_alloc<float>(channels * 9);
  float* fmap = device_alloc<float>(n);
  float* padded = device_alloc<float>(n_padded);
  float* out = device_alloc<float>(n);
  fill_random<<<16, 256>>>(seed, 4096, 326, 0.0f, 1.0f);
  fill_random<<<4, 256>>>(weights, channels * 9, 327, -0.5f, 0.5f);
  CK(cudaGetLastError());
  auto forward = [&] {
    produce_feature_map<<<unsigned((n + 255) / 256), 256>>>(seed, fmap, n);
    zero_pad_copy<<<dim3((kP * kQ + 255) / 256, unsigned(planes)), 256>>>(fmap, padded);
    depthwise_conv3x3<<<dim3(kH * kW / 256, unsigned(planes)), 256>>>(padded, weights, out, channels);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> hw(channels * 9);
  CK(cudaMemcpy(hw.data(), weights, hw.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t plane : {size_t(0), size_t(1000), planes - 1})
    for (int y : {0, 57, kH - 1})
      for (int x : {0, 64, kW - 1}) {
        double want = 0;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            int yy = y + dy, xx = x + dx;
            if (yy < 0 || yy >= kH || xx < 0 || xx >= kW) continue;
            want += hw[(plane % channels) * 9 + (dy + 1) * 3 + dx + 1] *
                    double(read_back(fmap + (plane * kH + yy) * kW + xx));
          }
        float got = read_back(out + (plane * kH + y) * kW + x);
        if (!(fabs(got - want) <= 1e-5 + 1e-5 * fabs(want))) fail("wrong result: %f vs %f\n", got, want);
      }
  time_kernel("pad_copy_pass_forward", reps, forward);
  free_device({seed, weights, fmap, padded, out});
  printf("ok\n");
  return 0;
}
