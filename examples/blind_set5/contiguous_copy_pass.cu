// contiguous_copy_pass: blind set 5, kind 8 (a pass that only moves data, between a producer and a consumer).
// A small CNN forward step as eager framework code produces it: conv_features writes a 64 M-float feature
// map (bias + ReLU of a cheap pointwise convolution), then a .contiguous() on a tensor that already is
// contiguous in the same layout becomes contiguous_copy_pass, a 256 MB -> 256 MB float4 copy, and only then
// does pool_rows reduce each 4,096-value row. The copy runs near DRAM bandwidth, a good copy, but it is
// pure data movement: 512 MB of traffic that disappears if the consumer reads the producer's buffer (or the
// pooling is fused into the producer's epilogue). The labelled launch is contiguous_copy_pass.
// Usage: ./contiguous_copy_pass [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kRow = 4096;

__global__ void conv_features(const float* __restrict__ x, float* __restrict__ feat, size_t n, float w,
                              float b) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    feat[i] = fmaxf(0.0f, w * x[i] + b);
}

__global__ void contiguous_copy_pass(const float4* __restrict__ src, float4* __restrict__ dst, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

__global__ void pool_rows(const float* __restrict__ feat, float* __restrict__ pooled) {
  __shared__ float s[256];
  const float* row = feat + (size_t)blockIdx.x * kRow;
  float acc = 0.0f;
  for (int k = threadIdx.x; k < kRow; k += blockDim.x) acc += row[k];
  s[threadIdx.x] = acc;
  __syncthreads();
  for (int h = 128; h > 0; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) pooled[blockIdx.x] = s[0] * (1.0f / kRow);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 16384;
  const size_t n = size_t(rows) * kRow;
  float* x = device_alloc<float>(n);
  float* feat = device_alloc<float>(n);
  float* feat_c = device_alloc<float>(n);
  float* pooled = device_alloc<float>(rows);
  fill_random<<<2048, 256>>>(x, n, 581, 0.1f, 1.0f);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 8;
  auto forward = [&] {
    conv_features<<<blocks, 256>>>(x, feat, n, 1.5f, -0.4f);
    contiguous_copy_pass<<<blocks, 256>>>((const float4*)feat, (float4*)feat_c, n / 4);
    pool_rows<<<rows, 256>>>(feat_c, pooled);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(kRow);
  for (int r : {0, 999, rows - 1}) {
    CK(cudaMemcpy(hx.data(), x + size_t(r) * kRow, kRow * 4, cudaMemcpyDeviceToHost));
    double want = 0;
    for (float v : hx) want += std::max(0.0f, 1.5f * v - 0.4f);
    want /= kRow;
    float got = read_back(pooled + r);
    if (!(std::fabs(got - want) <= 1e-4 * want + 1e-6)) fail("wrong pooled row %d: %f vs %f\n", r, got, want);
  }
  time_kernel("contiguous_copy_pass_forward", reps, forward);
  free_device({x, feat, feat_c, pooled});
  printf("ok\n");
  return 0;
}
