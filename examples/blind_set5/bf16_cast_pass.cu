// bf16_cast_pass: blind set 5, kind 8 (a pass that only moves data, between a producer and a consumer).
// Mixed-precision inference glue: logits_f32 computes 64 M fp32 scores (a scaled dot of two feature
// vectors per element, written as fp32), cast_bf16_pass converts the whole tensor to bf16 in a separate
// launch (256 MB read, 128 MB written, one cvt per value), and rowmax_bf16 then reads the bf16 tensor to
// find each 8,192-value row's maximum. The cast kernel is well vectorized and near DRAM bandwidth, but it
// exists only to move data: writing bf16 from the producer's epilogue removes 384 MB of traffic and a
// launch. The labelled launch is cast_bf16_pass.
// Usage: ./bf16_cast_pass [reps]
#include <cuda_bf16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kRow = 8192;

__global__ void logits_f32(const float* __restrict__ a, const float* __restrict__ b,
                           float* __restrict__ logits, size_t n, float scale) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    logits[i] = scale * a[i] * b[i % kRow];
}

__global__ void cast_bf16_pass(const float4* __restrict__ in, uint2* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 v = in[i];
    __nv_bfloat162 lo = __floats2bfloat162_rn(v.x, v.y), hi = __floats2bfloat162_rn(v.z, v.w);
    uint2 o;
    o.x = *reinterpret_cast<unsigned*>(&lo);
    o.y = *reinterpret_cast<unsigned*>(&hi);
    out[i] = o;
  }
}

__global__ void rowmax_bf16(const __nv_bfloat16* __restrict__ x, float* __restrict__ rmax) {
  __shared__ float s[256];
  const __nv_bfloat16* row = x + (size_t)blockIdx.x * kRow;
  float m = -INFINITY;
  for (int k = threadIdx.x; k < kRow; k += blockDim.x) m = fmaxf(m, __bfloat162float(row[k]));
  s[threadIdx.x] = m;
  __syncthreads();
  for (int h = 128; h > 0; h >>= 1) {
    if (threadIdx.x < h) s[threadIdx.x] = fmaxf(s[threadIdx.x], s[threadIdx.x + h]);
    __syncthreads();
  }
  if (threadIdx.x == 0) rmax[blockIdx.x] = s[0];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 8192;
  const size_t n = size_t(rows) * kRow;
  float* a = device_alloc<float>(n);
  float* b = device_alloc<float>(kRow);
  float* logits = device_alloc<float>(n);
  __nv_bfloat16* lb = device_alloc<__nv_bfloat16>(n);
  float* rmax = device_alloc<float>(rows);
  fill_random<<<2048, 256>>>(a, n, 591, 0.1f, 1.0f);
  fill_random<<<32, 256>>>(b, kRow, 592, 0.5f, 2.0f);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 8;
  auto forward = [&] {
    logits_f32<<<blocks, 256>>>(a, b, logits, n, 0.125f);
    cast_bf16_pass<<<blocks, 256>>>((const float4*)logits, (uint2*)lb, n / 4);
    rowmax_bf16<<<rows, 256>>>(lb, rmax);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> ha(kRow), hb(kRow);
  CK(cudaMemcpy(hb.data(), b, kRow * 4, cudaMemcpyDeviceToHost));
  for (int r : {0, 4321, rows - 1}) {
    CK(cudaMemcpy(ha.data(), a + size_t(r) * kRow, kRow * 4, cudaMemcpyDeviceToHost));
    float want = -INFINITY;
    for (int k = 0; k < kRow; ++k) want = std::max(want, 0.125f * ha[k] * hb[k]);
    float got = read_back(rmax + r);
    if (!(std::fabs(got - want) <= 1e-2f * want)) fail("wrong row max %d: %f vs %f\n", r, got, want);
  }
  time_kernel("bf16_cast_pass_forward", reps, forward);
  free_device({a, b, logits, lb, rmax});
  printf("ok\n");
  return 0;
}
