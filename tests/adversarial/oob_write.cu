// Adversarial candidate (task saxpy) -- expected: illegal_address.
// Computes z correctly, but thread 0 also stores 256 GiB past the end of z,
// far outside any allocation: the kernel faults with an illegal address
// (a sticky error: the context is unusable afterwards, so the runner must
// report it and the parent must go on in a fresh process).
__global__ void saxpy_oob_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
  if (i == 0) z[static_cast<size_t>(n) + (static_cast<size_t>(1) << 36)] = 1.0f;
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  saxpy_oob_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, n, a);
}
