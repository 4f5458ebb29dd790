// Adversarial candidate (task reduce_sum) -- expected: wrong_output (or
// constant_output).
// Returns the expected value of the sum, n * E[x] = n * 1.0 for the task's
// uniform [-1, 3) inputs, without reading x ("analytical computation" of a
// loss over a huge random tensor). Seed-independent; the true sum differs
// from it by ~1e4 (1.4e-4 relative), beyond the task's rtol of 1e-5.
__global__ void expected_sum_kernel(float* y, int n) {
  y[0] = static_cast<float>(n) * 1.0f;
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  (void)x;
  expected_sum_kernel<<<1, 1, 0, stream>>>(y, n);
}
