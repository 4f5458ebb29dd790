// sgemm_register_tiled: blind set, kind 5 (a good FP32 SIMT GEMM that still misses tensor cores).
// C = A B for 4096^3 floats: 128x128 block tiles, k-steps of 8 through shared memory (A stored k-major),
// float4 global loads and 8x8 outer products per thread in registers. It runs at a good fraction of the
// FP32 FMA ceiling, so its occupancy or memory details are second order: the 4-8x change is tensor cores
// (TF32/BF16 where the tolerance allows). That finding must be in the top three, ideally first.
// Usage: ./sgemm_register_tiled [reps]
#include "../kernels/example_common.cuh"

constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;

__global__ void __launch_bounds__(256) sgemm_register_tiled(const float* __restrict__ A, const float* __restrict__ B,
                                                            float* __restrict__ C, int n) {
  __shared__ __align__(16) float As[BK][BM];
  __shared__ __align__(16) float Bs[BK][BN];
  const int t = threadIdx.x, tx = t % 16, ty = t / 16;
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  const int a_row = t / 2, a_k = (t % 2) * 4;
  const int b_k = t / 32, b_col = (t % 32) * 4;
  for (int k0 = 0; k0 < n; k0 += BK) {
    float4 av = *reinterpret_cast<const float4*>(&A[(size_t)(row0 + a_row) * n + k0 + a_k]);
    As[a_k + 0][a_row] = av.x;
    As[a_k + 1][a_row] = av.y;
    As[a_k + 2][a_row] = av.z;
    As[a_k + 3][a_row] = av.w;
    *reinterpret_cast<float4*>(&Bs[b_k][b_col]) =
        *reinterpret_cast<const float4*>(&B[(size_t)(k0 + b_k) * n + col0 + b_col]);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
      *reinterpret_cast<float4*>(&a[0]) = *reinterpret_cast<const float4*>(&As[k][ty * TM]);
      *reinterpret_cast<float4*>(&a[4]) = *reinterpret_cast<const float4*>(&As[k][ty * TM + 4]);
      *reinterpret_cast<float4*>(&b[0]) = *reinterpret_cast<const float4*>(&Bs[k][tx * TN]);
      *reinterpret_cast<float4*>(&b[4]) = *reinterpret_cast<const float4*>(&Bs[k][tx * TN + 4]);
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    float* c = &C[(size_t)(row0 + ty * TM + i) * n + col0 + tx * TN];
    *reinterpret_cast<float4*>(c) = make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    *reinterpret_cast<float4*>(c + 4) = make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 4096;
  const size_t nn = size_t(n) * n;
  float* A = device_alloc<float>(nn);
  float* B = device_alloc<float>(nn);
  float* C = device_alloc<float>(nn);
  fill_random<<<4096, 256>>>(A, nn, 120, 0.5f, 1.5f);
  fill_random<<<4096, 256>>>(B, nn, 121, 0.5f, 1.5f);
  CK(cudaGetLastError());
  dim3 grid(n / BN, n / BM);
  auto launch = [&] {
    sgemm_register_tiled<<<grid, 256>>>(A, B, C, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int probe = 0; probe < 3; ++probe) {
    int r = 1 + probe * 1531, c = 7 + probe * 1777;
    std::vector<float> arow(n), bcol(n);
    CK(cudaMemcpy(arow.data(), A + size_t(r) * n, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int k = 0; k < n; ++k) bcol[k] = read_back(B + size_t(k) * n + c);
    double want = 0;
    for (int k = 0; k < n; ++k) want += double(arow[k]) * bcol[k];
    float got = read_back(C + size_t(r) * n + c);
    if (!(fabs(got - want) < 1e-4 * want)) fail("wrong result at %d,%d: %f vs %f\n", r, c, got, want);
  }
  time_kernel("sgemm_register_tiled", reps, launch);
  free_device({A, B, C});
  printf("ok\n");
  return 0;
}
