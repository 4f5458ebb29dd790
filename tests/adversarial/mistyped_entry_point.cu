// Adversarial candidate (task saxpy) -- expected: missing_entry_point.
// Defines `saxpy` with the wrong signature: the element count as size_t and
// the inputs non-const. Called through the harness's ABI it would read the
// scalar arguments from the wrong registers. The wrapper declares the
// correct prototype before including this file, so nvcc fails (nvcc 13:
// 'more than one instance of overloaded function "saxpy" has "C" linkage');
// reported as missing_entry_point.
__global__ void saxpy_kernel(float* x, float* y, float* z, size_t n, float a) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

extern "C" void saxpy(float* x, float* y, float* z, size_t n, float a, cudaStream_t stream) {
  saxpy_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(x, y, z, n, a);
}
