// sgemm_attention_scores_regtile: blind set 4, kind 5 (a SIMT GEMM that should use tensor cores).
// Attention scores S = Q K^T / sqrt(d) for 64 (batch x head) slices of 1,024 queries x 1,024 keys with
// head dimension 128, in float, by a hand-written register-tiled SGEMM: 64 x 64 output tiles per
// 256-thread block, 16-deep k-slices of Q and K staged (transposed) in shared memory, a 4 x 4 outer
// product per thread per k (8 LDS.32 for 16 FFMA). 17 GFLOP of FFMA: a decent SIMT kernel, but a
// TF32/BF16 tensor-core GEMM (or a fused attention kernel) would be several times faster.
// Usage: ./sgemm_attention_scores_regtile [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSeq = 1024, kDim = 128, kBM = 64, kBN = 64, kBK = 16;

__global__ void __launch_bounds__(256)
    sgemm_attention_scores_regtile(const float* __restrict__ q, const float* __restrict__ k,
                                   float* __restrict__ s, float scale) {
  __shared__ float sq[kBK][kBM];
  __shared__ float sk[kBK][kBN];
  const size_t head = blockIdx.z;
  const float* qh = q + head * kSeq * kDim;
  const float* kh = k + head * kSeq * kDim;
  const int m0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN, tid = threadIdx.x;
  const int tx = tid % 16, ty = tid / 16;
  const int lr = tid / 4, lc = (tid % 4) * 4;  // loader: row of the tile, first of 4 k columns
  float acc[4][4] = {};
  for (int k0 = 0; k0 < kDim; k0 += kBK) {
    float4 a = *reinterpret_cast<const float4*>(qh + size_t(m0 + lr) * kDim + k0 + lc);
    float4 b = *reinterpret_cast<const float4*>(kh + size_t(n0 + lr) * kDim + k0 + lc);
    __syncthreads();
    sq[lc + 0][lr] = a.x;
    sq[lc + 1][lr] = a.y;
    sq[lc + 2][lr] = a.z;
    sq[lc + 3][lr] = a.w;
    sk[lc + 0][lr] = b.x;
    sk[lc + 1][lr] = b.y;
    sk[lc + 2][lr] = b.z;
    sk[lc + 3][lr] = b.w;
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < kBK; ++kk) {
      float ra[4], rb[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) ra[i] = sq[kk][ty * 4 + i];
#pragma unroll
      for (int j = 0; j < 4; ++j) rb[j] = sk[kk][tx * 4 + j];
#pragma unroll
      for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += ra[i] * rb[j];
    }
  }
  float* sh = s + head * kSeq * kSeq;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    float4 o = make_float4(acc[i][0] * scale, acc[i][1] * scale, acc[i][2] * scale, acc[i][3] * scale);
    *reinterpret_cast<float4*>(sh + size_t(m0 + ty * 4 + i) * kSeq + n0 + tx * 4) = o;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int heads = 64;
  const size_t nqk = size_t(heads) * kSeq * kDim, ns = size_t(heads) * kSeq * kSeq;
  float* q = device_alloc<float>(nqk);
  float* k = device_alloc<float>(nqk);
  float* s = device_alloc<float>(ns);
  fill_random<<<2048, 256>>>(q, nqk, 414, 0.01f, 1.0f);
  fill_random<<<2048, 256>>>(k, nqk, 415, 0.01f, 1.0f);
  CK(cudaGetLastError());
  const float scale = 1.0f / sqrtf(float(kDim));
  auto launch = [&] {
    sgemm_attention_scores_regtile<<<dim3(kSeq / kBN, kSeq / kBM, heads), 256>>>(q, k, s, scale);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hq(kDim), hk(kDim);
  for (int h : {0, heads - 1})
    for (int i : {0, 333, kSeq - 1}) {
      CK(cudaMemcpy(hq.data(), q + (size_t(h) * kSeq + i) * kDim, kDim * sizeof(float),
                    cudaMemcpyDeviceToHost));
      for (int j : {0, 64, 777, kSeq - 1}) {
        CK(cudaMemcpy(hk.data(), k + (size_t(h) * kSeq + j) * kDim, kDim * sizeof(float),
                      cudaMemcpyDeviceToHost));
        double want = 0;
        for (int d = 0; d < kDim; ++d) want += double(hq[d]) * hk[d];
        want *= scale;
        float got = read_back(s + (size_t(h) * kSeq + i) * kSeq + j);
        if (!(fabs(got - want) <= 1e-5 * fabs(want)))
          fail("wrong score (%d, %d, %d): %f vs %f\n", h, i, j, got, want);
      }
    }
  time_kernel("sgemm_attention_scores_regtile", reps, launch);
  free_device({q, k, s});
  printf("ok\n");
  return 0;
}
