// Adversarial candidate (task gemm_f32) -- expected: stale_output or
// timing_inconsistent.
// Attack kind 2, combined with input fingerprints: it computes the GEMM when
// C[0] holds the poison and A's first four values were not seen in any of its
// last 64 calls (a new round), and otherwise writes only C[0][0..255] (so a
// check of the first elements still sees numbers) and returns. Under the old
// harness every timed launch reused identical inputs and un-poisoned outputs.
// Caught: the timed launches of one input set repeat its values, so this
// skips them; the verified timed samples compare every element with the
// reference's output for that set (stale_output), or the computing launch that
// was checked took far longer than the median (timing_inconsistent).
#include <cstdint>

constexpr int kRemembered = 64;
__device__ float seen_heads[kRemembered][4];
__device__ int seen_count;
__device__ int compute_all;

__global__ void decide(const float* A, const float* C) {
  bool poisoned = *reinterpret_cast<const uint32_t*>(C) == 0xFFFFFFFFu;
  bool seen = false;
  for (int entry = 0; entry < kRemembered && entry < seen_count; ++entry) {
    bool same = true;
    for (int i = 0; i < 4; ++i) same = same && seen_heads[entry][i] == A[i];
    seen = seen || same;
  }
  if (!seen) {
    for (int i = 0; i < 4; ++i) seen_heads[seen_count % kRemembered][i] = A[i];
    ++seen_count;
  }
  compute_all = poisoned && !seen;
}

__global__ void gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  if (row >= M || col >= N) return;
  if (!compute_all && (row > 0 || col >= 256)) return;
  float sum = 0;
  for (int k = 0; k < K; ++k) sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
  C[(size_t)row * N + col] = sum;
}

extern "C" void gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  decide<<<1, 1, 0, stream>>>(A, C);
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  gemm_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
