// split_heads_transpose_pass: blind set 7, kind 8 (a pass that only moves data, between a producer and a
// consumer). Attention glue of a BERT-style encoder port: qkv_bias adds the bias to the fused QKV projection
// output [B][S][3][H][D] (batch 16, 1,024 tokens, 16 heads of 64, fp32, 201 MB), split_heads_pass copies Q
// into the [B][H][S][D] layout the attention kernel wants (a permute copy: 67 MB read, 67 MB written, 16
// bytes per thread), and head_query_norms, the consumer, reduces each query row. The permute runs near DRAM
// bandwidth but only moves data: reading Q with the [B][S][3][H][D] strides in the consumer removes 67 MB of
// writes, 67 MB of reads and a launch. The labelled launch is split_heads_pass. Usage:
// ./split_heads_transpose_pass [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kB = 16, kS = 1024, kH = 16, kD = 64;

__global__ void qkv_bias(float4* __restrict__ qkv, const float4* __restrict__ bias, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 v = qkv[i], b = bias[i % (3 * kH * kD / 4)];
    qkv[i] = make_float4(v.x + b.x, v.y + b.y, v.z + b.z, v.w + b.w);
  }
}

// Q of [b][s][3][h][d] -> [b][h][s][d], 16 bytes per thread
__global__ void split_heads_pass(const float4* __restrict__ qkv, float4* __restrict__ q) {
  const size_t total = size_t(kB) * kH * kS * kD / 4;
  for (size_t o = blockIdx.x * (size_t)blockDim.x + threadIdx.x; o < total;
       o += (size_t)gridDim.x * blockDim.x) {
    int d4 = int(o % (kD / 4)), s = int(o / (kD / 4) % kS), h = int(o / (size_t(kD / 4) * kS) % kH);
    int b = int(o / (size_t(kD / 4) * kS * kH));
    q[o] = qkv[((size_t(b) * kS + s) * 3 * kH + h) * (kD / 4) + d4];
  }
}

// one warp per (b, h, s) row of Q: its squared norm (the QK-norm statistics of the consumer)
__global__ void head_query_norms(const float* __restrict__ q, float* __restrict__ norms) {
  size_t row = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= size_t(kB) * kH * kS) return;
  float a = q[row * kD + lane], c = q[row * kD + 32 + lane];
  float s = a * a + c * c;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) norms[row] = s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t qkv_n = size_t(kB) * kS * 3 * kH * kD, q_n = size_t(kB) * kH * kS * kD,
               rows = size_t(kB) * kH * kS;
  float* qkv = device_alloc<float>(qkv_n);
  float* bias = device_alloc<float>(3 * kH * kD);
  float* q = device_alloc<float>(q_n);
  float* norms = device_alloc<float>(rows);
  float* raw = device_alloc<float>(qkv_n);
  fill_random<<<2048, 256>>>(raw, qkv_n, 721, -1.0f, 1.0f);
  fill_random<<<16, 256>>>(bias, 3 * kH * kD, 722, -0.1f, 0.1f);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 8;
  auto forward = [&] {
    CK(cudaMemcpyAsync(qkv, raw, qkv_n * 4, cudaMemcpyDeviceToDevice));
    qkv_bias<<<blocks, 256>>>((float4*)qkv, (const float4*)bias, qkv_n / 4);
    split_heads_pass<<<blocks, 256>>>((const float4*)qkv, (float4*)q);
    head_query_norms<<<unsigned(rows * 32 / 256), 256>>>(q, norms);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> hraw(kD), hb(kD);
  for (size_t row : {size_t(0), size_t(5 * kS + 333), rows - 1}) {
    size_t b = row / (size_t(kH) * kS), h = row / kS % kH, s = row % kS;
    size_t src = ((b * kS + s) * 3 * kH + h) * kD;
    CK(cudaMemcpy(hraw.data(), raw + src, kD * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), bias + h * kD, kD * 4, cudaMemcpyDeviceToHost));
    double want = 0;
    for (int d = 0; d < kD; ++d) want += double(hraw[d] + hb[d]) * (hraw[d] + hb[d]);
    float got = read_back(norms + row);
    if (!(std::fabs(got - want) <= 1e-4 * want)) fail("wrong norm %zu: %g vs %g\n", row, got, want);
  }
  time_kernel("split_heads_transpose_pass_forward", reps, forward);
  free_device({qkv, bias, q, norms, raw});
  printf("ok\n");
  return 0;
}
