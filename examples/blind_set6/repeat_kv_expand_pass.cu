// repeat_kv_expand_pass: blind set 6, kind 8 (a pass that only moves data, between a producer and a consumer).
// Grouped-query attention glue as in many model ports (HF repeat_kv): rope_keys writes the rotated keys of
// 8 KV heads (batch 4, 4,096 positions, head dim 128, fp16), repeat_kv_pass materializes them for the 32
// query heads by copying each KV head four times (16-byte vector copies: 32 MB of distinct reads, 128 MB
// written), and decode_scores, the consumer, takes the dot product of each query head's vector with all
// 4,096 of its expanded keys. The copy runs near DRAM bandwidth but only moves data: indexing the KV head as
// h / 4 in the consumer removes 128 MB of writes, 128 MB of reads and a launch. The labelled launch is
// repeat_kv_pass.
// Usage: ./repeat_kv_expand_pass [reps]
#include <cuda_fp16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kB = 4, kKv = 8, kHeads = 32, kSeq = 4096, kD = 128, kGroup = kHeads / kKv;

__global__ void rope_keys(const __half* __restrict__ k_raw, __half* __restrict__ k) {
  size_t pairs = size_t(kB) * kKv * kSeq * kD / 2;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < pairs; i += (size_t)gridDim.x * blockDim.x) {
    int d2 = int(i % (kD / 2)), pos = int(i / (kD / 2) % kSeq);
    float ang = pos * exp2f(-d2 * (13.3f / (kD / 2)));
    float s, c;
    sincosf(ang, &s, &c);
    __half2 v = reinterpret_cast<const __half2*>(k_raw)[i];
    float a = __low2float(v), b = __high2float(v);
    reinterpret_cast<__half2*>(k)[i] = __floats2half2_rn(a * c - b * s, a * s + b * c);
  }
}

// [b][kv][s][d] -> [b][kv * group + g][s][d], 16 bytes per thread
__global__ void repeat_kv_pass(const uint4* __restrict__ k, uint4* __restrict__ k_rep) {
  const size_t per_head = size_t(kSeq) * kD / 8, total = size_t(kB) * kHeads * per_head;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total; i += (size_t)gridDim.x * blockDim.x) {
    size_t bh = i / per_head, r = i % per_head;
    size_t b = bh / kHeads, h = bh % kHeads;
    k_rep[i] = k[(b * kKv + h / kGroup) * per_head + r];
  }
}

// one warp per (b, head, position): score = q[b][head] . k_rep[b][head][pos]
__global__ void decode_scores(const __half* __restrict__ q, const __half* __restrict__ k_rep, float* __restrict__ scores) {
  size_t row = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32;
  if (row >= size_t(kB) * kHeads * kSeq) return;
  size_t bh = row / kSeq;
  const __half2* kr = reinterpret_cast<const __half2*>(k_rep + row * kD);
  const __half2* qr = reinterpret_cast<const __half2*>(q + bh * kD);
  float s = 0.0f;
  for (int j = lane; j < kD / 2; j += 32) {
    float2 a = __half22float2(kr[j]), b = __half22float2(qr[j]);
    s += a.x * b.x + a.y * b.y;
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) scores[row] = s * 0.08838834764f;
}

__global__ void to_half(const float* in, __half* out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2half(in[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t kv_n = size_t(kB) * kKv * kSeq * kD, rep_n = size_t(kB) * kHeads * kSeq * kD, q_n = size_t(kB) * kHeads * kD;
  float* tmp = device_alloc<float>(kv_n);
  __half* k_raw = device_alloc<__half>(kv_n);
  __half* k = device_alloc<__half>(kv_n);
  __half* k_rep = device_alloc<__half>(rep_n);
  __half* q = device_alloc<__half>(q_n);
  float* scores = device_alloc<float>(size_t(kB) * kHeads * kSeq);
  fill_random<<<1024, 256>>>(tmp, kv_n, 681, -1.0f + 1e-6f, 1.0f);
  to_half<<<1024, 256>>>(tmp, k_raw, kv_n);
  fill_random<<<64, 256>>>(tmp, q_n, 682, -1.0f + 1e-6f, 1.0f);
  to_half<<<64, 256>>>(tmp, q, q_n);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 8;
  auto forward = [&] {
    rope_keys<<<blocks, 256>>>(k_raw, k);
    repeat_kv_pass<<<blocks, 256>>>((const uint4*)k, (uint4*)k_rep);
    decode_scores<<<unsigned(size_t(kB) * kHeads * kSeq * 32 / 256), 256>>>(q, k_rep, scores);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<__half> hk(kD), hq(kD);
  for (size_t row : {size_t(0), size_t(5 * kSeq + 77), size_t(kB) * kHeads * kSeq - 1}) {
    size_t bh = row / kSeq, pos = row % kSeq, b = bh / kHeads, h = bh % kHeads;
    CK(cudaMemcpy(hk.data(), k + ((b * kKv + h / kGroup) * kSeq + pos) * kD, kD * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hq.data(), q + bh * kD, kD * 2, cudaMemcpyDeviceToHost));
    double want = 0;
    for (int d = 0; d < kD; ++d) want += double(__half2float(hk[d])) * __half2float(hq[d]);
    want *= 0.08838834764;
    float got = read_back(scores + row);
    if (!(std::fabs(got - want) <= 1e-3 + 1e-3 * std::fabs(want))) fail("wrong score %zu: %f vs %f\n", row, got, want);
  }
  time_kernel("repeat_kv_expand_pass_forward", reps, forward);
  free_device({tmp, k_raw, k, k_rep, q, scores});
  printf("ok\n");
  return 0;
}
