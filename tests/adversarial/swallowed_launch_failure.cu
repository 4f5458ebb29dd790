// Adversarial candidate (task gelu) -- expected: unwritten_output.
// Launches with 2048 threads per block (the limit is 1024), so the launch
// fails with cudaErrorInvalidConfiguration and the kernel never runs; then
// it calls cudaGetLastError() to clear the error, so a harness that only
// checks the last error after the call sees success. The output still
// holds whatever was there before: the harness's NaN poison (the wafer.ai
// "104x": a launch that never ran over a buffer holding an earlier answer).
__global__ void gelu_never_runs_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  const int threads = 2048;  // invalid: more than 1024 threads per block
  gelu_never_runs_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(x, y, n);
  (void)cudaGetLastError();  // swallow the launch error
}
