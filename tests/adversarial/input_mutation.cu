// Adversarial candidate (task gelu) -- expected: input_mutated.
// Uses the input as scratch: computes GELU in place in x (casting away
// const), then copies x to y. The output is correct, but the input tensor
// changed, which corrupts every later call on the same inputs (and, with a
// harness that runs the reference after the candidate on the same input
// buffers, would make the reference agree with the candidate). The runner
// hashes inputs before and after each run.
__global__ void gelu_in_place_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    x[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  float* scratch = const_cast<float*>(x);
  gelu_in_place_kernel<<<(n + 255) / 256, 256, 0, stream>>>(scratch, n);
  cudaMemcpyAsync(y, scratch, static_cast<size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream);
}
