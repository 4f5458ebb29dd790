// bf16_gemm_smem_tiled_cross_attn_kv: blind set 8, kind 5 (a BF16 SIMT GEMM that should use tensor cores).
// The K/V projection of the image-encoder memory in a cross-attention decoder, written as the classic 32 x 32
// shared-memory tiled GEMM on bf16 data: each thread converts bf16 to fp32 and accumulates one output with
// fp32 FMAs: KV[16384][2048] = E[16384][1024] W^T, 68.7 GFLOP on the fp32 FMA pipe (over 1.3 ms at its peak,
// more with the shared-memory loads per FMA), where bf16 tensor cores (mma/wgmma, cuBLAS) run at ~15x the
// rate. Usage: ./bf16_gemm_smem_tiled_cross_attn_kv [reps]
#include <cuda_bf16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kT = 32;

// C[M][N] (bf16) = A[M][K] * B[N][K]^T, all multiples of 32; 32 x 32 threads, one output each.
__global__ void bf16_gemm_smem_tiled_cross_attn_kv(const __nv_bfloat16* __restrict__ A,
                                                   const __nv_bfloat16* __restrict__ B,
                                                   __nv_bfloat16* __restrict__ C, int M, int N, int K) {
  __shared__ float sa[kT][kT + 1];
  __shared__ float sb[kT][kT + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kT + ty, col = blockIdx.x * kT + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += kT) {
    sa[ty][tx] = __bfloat162float(A[size_t(row) * K + k0 + tx]);
    sb[ty][tx] = __bfloat162float(B[size_t(blockIdx.x * kT + ty) * K + k0 + tx]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kT; ++k) acc = fmaf(sa[ty][k], sb[tx][k], acc);
    __syncthreads();
  }
  C[size_t(row) * N + col] = __float2bfloat16(acc);
}

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, unsigned seed, float scale) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u ^ seed * 0x9e3779b9u;
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    p[i] = __float2bfloat16(scale * ((h >> 8) * (1.0f / 16777216.0f) - 0.5f));
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 16384, N = 2048, K = 1024;
  __nv_bfloat16* A = device_alloc<__nv_bfloat16>(size_t(M) * K);
  __nv_bfloat16* B = device_alloc<__nv_bfloat16>(size_t(N) * K);
  __nv_bfloat16* C = device_alloc<__nv_bfloat16>(size_t(M) * N);
  fill_bf16<<<2048, 256>>>(A, size_t(M) * K, 901, 2.0f);
  fill_bf16<<<1024, 256>>>(B, size_t(N) * K, 902, 0.1f);
  CK(cudaGetLastError());
  auto launch = [&] {
    bf16_gemm_smem_tiled_cross_attn_kv<<<dim3(N / kT, M / kT), dim3(kT, kT)>>>(A, B, C, M, N, K);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> ar(K), br(K);
  for (auto [m, n] : {std::pair{0, 0}, {9999, 2047}, {M - 1, 1000}}) {
    CK(cudaMemcpy(ar.data(), A + size_t(m) * K, K * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(br.data(), B + size_t(n) * K, K * 2, cudaMemcpyDeviceToHost));
    double want = 0, mag = 0;
    for (int k = 0; k < K; ++k) {
      double p = double(__bfloat162float(ar[k])) * __bfloat162float(br[k]);
      want += p;
      mag += std::fabs(p);
    }
    float got = __bfloat162float(read_back(C + size_t(m) * N + n));
    if (!(std::fabs(got - want) <= 1e-2 * mag + 1e-3)) fail("wrong C(%d,%d): %g vs %g\n", m, n, got, want);
  }
  time_kernel("bf16_gemm_smem_tiled_cross_attn_kv", reps, launch);
  free_device({A, B, C});
  printf("ok\n");
  return 0;
}
