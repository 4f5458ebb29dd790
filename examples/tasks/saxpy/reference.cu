// saxpy reference: one thread per element, z[i] = a * x[i] + y[i].
__global__ void saxpy_reference_kernel(const float* x, const float* y, float* z, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = a * x[i] + y[i];
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  saxpy_reference_kernel<<<blocks, threads, 0, stream>>>(x, y, z, n, a);
}
