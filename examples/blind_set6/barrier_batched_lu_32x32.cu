// barrier_batched_lu_32x32: blind set 6, kind 1 (barrier-bound).
// Batched LU factorisation without pivoting of 16,384 diagonally dominant 32 x 32 matrices (block-Jacobi
// preconditioner set-up, circuit simulation), one 1,024-thread block per matrix in shared memory, one
// thread per element, right-looking: per pivot column a division of the column below the pivot, a
// __syncthreads, the rank-1 update of the trailing matrix, a __syncthreads. 63 barriers per matrix with one
// division or one FMA and two shared loads between them, and the active region shrinking to a corner: the
// 32 warps spend their time waiting at barriers (134 MB of global traffic in all). One warp per matrix with
// the rows in registers and shuffles (no block barriers) is the fix.
// Usage: ./barrier_batched_lu_32x32 [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kN = 32;

__global__ void __launch_bounds__(1024) barrier_batched_lu_32x32(const float* __restrict__ a, float* __restrict__ lu) {
  __shared__ float m[kN][kN + 1];
  int r = threadIdx.y, c = threadIdx.x;
  size_t base = size_t(blockIdx.x) * kN * kN;
  m[r][c] = a[base + r * kN + c];
  __syncthreads();
  for (int k = 0; k < kN - 1; ++k) {
    if (c == k && r > k) m[r][k] /= m[k][k];
    __syncthreads();
    if (r > k && c > k) m[r][c] -= m[r][k] * m[k][c];
    __syncthreads();
  }
  lu[base + r * kN + c] = m[r][c];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int batch = 16384;
  const size_t n = size_t(batch) * kN * kN;
  float* a = device_alloc<float>(n);
  float* lu = device_alloc<float>(n);
  std::vector<float> ha(n);
  for (size_t i = 0; i < n; ++i) {
    int r = int(i / kN % kN), c = int(i % kN);
    unsigned h = unsigned(i) * 2654435761u;
    ha[i] = (r == c ? 40.0f : 0.0f) + ((h >> 8) & 1023) / 1023.0f - 0.5f;
  }
  CK(cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice));
  auto launch = [&] {
    barrier_batched_lu_32x32<<<batch, dim3(kN, kN)>>>(a, lu);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> got(kN * kN);
  for (int b : {0, 777, batch - 1}) {
    CK(cudaMemcpy(got.data(), lu + size_t(b) * kN * kN, kN * kN * 4, cudaMemcpyDeviceToHost));
    // L * U must give back A
    for (int r = 0; r < kN; ++r)
      for (int c = 0; c < kN; ++c) {
        double s = 0;
        for (int k = 0; k <= std::min(r, c); ++k) s += (k == r ? 1.0 : got[r * kN + k]) * got[k * kN + c];
        double want = ha[size_t(b) * kN * kN + r * kN + c];
        if (!(std::fabs(s - want) <= 1e-3)) fail("wrong LU of matrix %d at (%d,%d): %f vs %f\n", b, r, c, s, want);
      }
  }
  time_kernel("barrier_batched_lu_32x32", reps, launch);
  free_device({a, lu});
  printf("ok\n");
  return 0;
}
