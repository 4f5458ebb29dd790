// Adversarial candidate (task gemm_f32) -- expected: stale_output or
// timing_inconsistent.
// Attack kind 2: computes on its first 8 calls and then on one call in 8
// only, hoping that the one check after timing lands on a computing call
// (the old harness checked only one round after timing). The median is
// the no-op's.
// Caught either way by the verified timed samples: a verified sample that
// was skipped holds the poison (stale_output); one that computed took far
// longer than the claimed median (timing_inconsistent: a checked launch must
// take about as long as the timed ones).
__global__ void gemm_kernel(const float* A, const float* B, float* C, int M, int N, int K) {
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  if (row >= M || col >= N) return;
  float sum = 0;
  for (int k = 0; k < K; ++k) sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
  C[(size_t)row * N + col] = sum;
}

extern "C" void gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  static long calls = 0;
  ++calls;
  if (calls > 8 && calls % 8 != 0) return;
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  gemm_kernel<<<grid, block, 0, stream>>>(A, B, C, M, N, K);
}
