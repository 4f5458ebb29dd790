// Adversarial candidate (task saxpy) -- expected: compile_error.
// Does not compile: a float4 is assigned to a float, and an undeclared
// variable is used. The compiler step must report compile_error with nvcc's
// output verbatim (for a repair loop), not crash or time out.
__global__ void saxpy_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = make_float4(a * x[i], y[i], 0.0f, 0.0f) + undeclared_offset;
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a);
}
