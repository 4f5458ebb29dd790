// bf16_gemm_naive_lora: blind set 5, kind 5 (a SIMT GEMM that should use tensor cores).
// Merging a LoRA update into a bf16 weight matrix, first draft: W' = W + A B with A (4096 x 1024) and
// B (1024 x 4096) in bf16, one thread per output element, a scalar k loop converting bf16 to float and
// accumulating in fp32 FMAs (34 GFLOP of GEMM). The B reads are coalesced across the warp and A's row is a
// broadcast, so the loop runs out of L1 at a few TFLOP/s on CUDA cores; bf16 inputs with fp32 accumulation
// are exactly what the tensor cores (mma/wgmma, cuBLAS GemmEx with beta = 1) do at hundreds of TFLOP/s.
// Usage: ./bf16_gemm_naive_lora [reps]
#include <cuda_bf16.h>

#include <cmath>

#include "../kernels/example_common.cuh"

__global__ void to_bf16(const float* __restrict__ in, __nv_bfloat16* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    out[i] = __float2bfloat16(in[i]);
}

__global__ void bf16_gemm_naive_lora(const __nv_bfloat16* __restrict__ A, const __nv_bfloat16* __restrict__ B,
                                     const __nv_bfloat16* __restrict__ W, __nv_bfloat16* __restrict__ out,
                                     int M, int N, int R) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= M || col >= N) return;
  float acc = 0.0f;
  for (int k = 0; k < R; ++k)
    acc += __bfloat162float(A[size_t(row) * R + k]) * __bfloat162float(B[size_t(k) * N + col]);
  out[size_t(row) * N + col] = __float2bfloat16(__bfloat162float(W[size_t(row) * N + col]) + acc);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int M = 4096, N = 4096, R = 1024;
  float* staging = device_alloc<float>(size_t(M) * N);
  __nv_bfloat16* A = device_alloc<__nv_bfloat16>(size_t(M) * R);
  __nv_bfloat16* B = device_alloc<__nv_bfloat16>(size_t(R) * N);
  __nv_bfloat16* W = device_alloc<__nv_bfloat16>(size_t(M) * N);
  __nv_bfloat16* out = device_alloc<__nv_bfloat16>(size_t(M) * N);
  fill_random<<<2048, 256>>>(staging, size_t(M) * R, 561, 0.5f, 1.5f);
  to_bf16<<<2048, 256>>>(staging, A, size_t(M) * R);
  fill_random<<<2048, 256>>>(staging, size_t(R) * N, 562, 0.01f, 0.02f);
  to_bf16<<<2048, 256>>>(staging, B, size_t(R) * N);
  fill_random<<<2048, 256>>>(staging, size_t(M) * N, 563, 1.0f, 2.0f);
  to_bf16<<<2048, 256>>>(staging, W, size_t(M) * N);
  CK(cudaGetLastError());
  auto launch = [&] {
    bf16_gemm_naive_lora<<<dim3(N / 16, M / 16), dim3(16, 16)>>>(A, B, W, out, M, N, R);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<__nv_bfloat16> arow(R), bcol(R);
  for (auto [i, j] : {std::pair{0, 0}, {2000, 4095}, {4095, 3}}) {
    CK(cudaMemcpy(arow.data(), A + size_t(i) * R, R * 2, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy2D(bcol.data(), 2, B + j, size_t(N) * 2, 2, R, cudaMemcpyDeviceToHost));
    double want = __bfloat162float(read_back(W + size_t(i) * N + j));
    for (int k = 0; k < R; ++k) want += double(__bfloat162float(arow[k])) * __bfloat162float(bcol[k]);
    float got = __bfloat162float(read_back(out + size_t(i) * N + j));
    if (!(std::fabs(got - want) <= 1e-2 * want)) fail("wrong W'(%d,%d): %f vs %f\n", i, j, got, want);
  }
  time_kernel("bf16_gemm_naive_lora", reps, launch);
  free_device({staging, A, B, W, out});
  printf("ok\n");
  return 0;
}
