// Adversarial candidate (task gelu) -- expected: side_stream.
// Correct GELU, but launched on the candidate's own non-blocking stream; the
// function returns without joining that stream back into the harness's
// stream. Events recorded on the timed stream see almost nothing, so a
// harness that times only its stream reports a huge speedup (KernelBench's
// non_default_stream_kernel). The runner's device-wide timing exposes the
// escaped work. (If outputs were read after syncing only the timed stream,
// they could also be unwritten.)
__global__ void gelu_side_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  (void)stream;  // deliberately unused
  static cudaStream_t side = nullptr;
  if (side == nullptr) cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  gelu_side_kernel<<<(n + 255) / 256, 256, 0, side>>>(x, y, n);
}
