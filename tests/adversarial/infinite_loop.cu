// Adversarial candidate (task saxpy) -- expected: timeout.
// Every thread spins on a device flag that nothing ever clears (a volatile
// read, so the compiler cannot remove the loop). The kernel never finishes;
// the parent's watchdog must kill the child process.
__device__ volatile int g_keep_spinning = 1;

__global__ void saxpy_hang_kernel(const float* x, const float* y, float* z, int n, float a) {
  while (g_keep_spinning) {
  }
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_hang_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a);
}
