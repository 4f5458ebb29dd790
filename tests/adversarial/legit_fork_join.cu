// Control candidate (task gelu) -- expected: pass (no failure).
// Uses a second stream legitimately, as docs/harness-protocol.md §1 allows:
// forks from the harness's stream with an event, runs half of the work on
// its own stream and half on the harness's stream, and joins back with an
// event before returning, so all work is ordered before anything the
// harness enqueues next. The side-stream check must not fire on it.
__global__ void gelu_range_kernel(const float* x, float* y, int begin, int end) {
  int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < end) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
  }
}

extern "C" void gelu(const float* x, float* y, int n, cudaStream_t stream) {
  static cudaStream_t helper = nullptr;
  static cudaEvent_t fork = nullptr, join = nullptr;
  if (helper == nullptr) {
    cudaStreamCreateWithFlags(&helper, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&fork, cudaEventDisableTiming);
    cudaEventCreateWithFlags(&join, cudaEventDisableTiming);
  }
  const int half = n / 2;
  cudaEventRecord(fork, stream);
  cudaStreamWaitEvent(helper, fork, 0);
  if (half > 0) gelu_range_kernel<<<(half + 255) / 256, 256, 0, helper>>>(x, y, 0, half);
  gelu_range_kernel<<<(n - half + 255) / 256, 256, 0, stream>>>(x, y, half, n);
  cudaEventRecord(join, helper);
  cudaStreamWaitEvent(stream, join, 0);
}
