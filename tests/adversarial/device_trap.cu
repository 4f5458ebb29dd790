// Adversarial candidate (task saxpy) -- expected: launch_failure.
// A device-side "assert" gone wrong: the last block executes __trap() (as a
// failed bounds assertion would), which aborts the kernel with a sticky
// launch failure (cudaErrorLaunchFailure); the context is unusable until the
// process exits.
__global__ void saxpy_trap_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) __trap();
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_trap_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a);
}
