// sgemm_naive: blind set, kind 5 (FP32 SIMT GEMM missing tensor cores).
// C = A B for 2048^3 floats, one thread per C element, each looping over k with two global loads and an
// FFMA (no tiling; L1 serves the reuse). Beyond its memory inefficiency the change worth most is tensor
// cores (TF32 or BF16 where the tolerance allows, via cuBLAS/CUTLASS or wgmma), 4-8x or more; that must
// be among the top three findings.
// Usage: ./sgemm_naive [reps]
#include "../kernels/example_common.cuh"

__global__ void sgemm_naive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += A[(size_t)row * n + k] * B[(size_t)k * n + col];
  C[(size_t)row * n + col] = acc;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 2048;
  const size_t nn = size_t(n) * n;
  float* A = device_alloc<float>(nn);
  float* B = device_alloc<float>(nn);
  float* C = device_alloc<float>(nn);
  fill_random<<<4096, 256>>>(A, nn, 118, 0.5f, 1.5f);
  fill_random<<<4096, 256>>>(B, nn, 119, 0.5f, 1.5f);
  CK(cudaGetLastError());
  dim3 block(16, 16), grid(n / 16, n / 16);
  auto launch = [&] {
    sgemm_naive<<<grid, block>>>(A, B, C, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> arow(n), bcol(n);
  CK(cudaMemcpy(arow.data(), A + size_t(17) * n, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int k = 0; k < n; ++k) bcol[k] = read_back(B + size_t(k) * n + 33);
  double want = 0;
  for (int k = 0; k < n; ++k) want += double(arow[k]) * bcol[k];
  float got = read_back(C + size_t(17) * n + 33);
  if (!(fabs(got - want) < 1e-4 * want)) fail("wrong result %f vs %f\n", got, want);
  time_kernel("sgemm_naive", reps, launch);
  free_device({A, B, C});
  printf("ok\n");
  return 0;
}
