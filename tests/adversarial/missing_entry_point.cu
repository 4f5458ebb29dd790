// Adversarial candidate (task saxpy) -- expected: missing_entry_point.
// Defines the kernel and a launcher under another name (saxpy_v2) but not
// the task's entry point `saxpy`. The wrapper's kopt_launch calls saxpy,
// and -Xlinker -z,defs turns the undefined symbol into a link error, which
// the compiler step reports as missing_entry_point (with nvcc's text).
__global__ void saxpy_v2_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

extern "C" void saxpy_v2(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_v2_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a);
}
