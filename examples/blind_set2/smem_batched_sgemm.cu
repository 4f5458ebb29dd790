// smem_batched_sgemm: blind set 2, kind 5 (an FP32 SIMT GEMM where tensor cores apply).
// 2,048 independent 64 x 64 x 64 float GEMMs (C_b = A_b B_b), one block of 256 threads per batch:
// both operands staged in shared memory, each thread accumulates a 4 x 4 register tile with FFMA. All the
// arithmetic is FP32 FMAs on the SIMT pipes; TF32 (or BF16) tensor-core MMA would do the same work several
// times faster where the tolerance allows.
// Usage: ./smem_batched_sgemm [reps]
#include "../kernels/example_common.cuh"

constexpr int kDim = 64;

__global__ void smem_batched_sgemm(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C) {
  __shared__ float a[kDim][kDim + 1];
  __shared__ float b[kDim][kDim + 1];
  const size_t base = size_t(blockIdx.x) * kDim * kDim;
  for (int e = threadIdx.x; e < kDim * kDim; e += blockDim.x) {
    a[e / kDim][e % kDim] = A[base + e];
    b[e / kDim][e % kDim] = B[base + e];
  }
  __syncthreads();
  const int row0 = (threadIdx.x / 16) * 4, col0 = (threadIdx.x % 16) * 4;
  float acc[4][4] = {};
  for (int k = 0; k < kDim; ++k) {
    float ar[4], br[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) ar[i] = a[row0 + i][k], br[i] = b[k][col0 + i];
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(ar[i], br[j], acc[i][j]);
  }
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int j = 0; j < 4; ++j) C[base + (row0 + i) * kDim + col0 + j] = acc[i][j];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int batches = 2048;
  const size_t elements = size_t(batches) * kDim * kDim;
  float* A = device_alloc<float>(elements);
  float* B = device_alloc<float>(elements);
  float* C = device_alloc<float>(elements);
  fill_random<<<1024, 256>>>(A, elements, 206, 0.5f, 1.5f);
  fill_random<<<1024, 256>>>(B, elements, 207, 0.5f, 1.5f);
  CK(cudaGetLastError());
  auto launch = [&] {
    smem_batched_sgemm<<<batches, 256>>>(A, B, C);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> ha(kDim * kDim), hb(kDim * kDim);
  const size_t probe = size_t(777) * kDim * kDim;
  CK(cudaMemcpy(ha.data(), A + probe, ha.size() * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hb.data(), B + probe, hb.size() * 4, cudaMemcpyDeviceToHost));
  double want = 0;
  for (int k = 0; k < kDim; ++k) want += double(ha[5 * kDim + k]) * hb[k * kDim + 9];
  float got = read_back(C + probe + 5 * kDim + 9);
  if (!(fabs(got - want) <= 1e-4 * fabs(want))) fail("wrong result %f vs %f\n", got, want);
  time_kernel("smem_batched_sgemm", reps, launch);
  free_device({A, B, C});
  printf("ok\n");
  return 0;
}
