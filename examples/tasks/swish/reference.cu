// Swish reference: one thread per element, IEEE division and expf (the
// default nvcc flags: -prec-div=true, no -use_fast_math).
__global__ void swish_reference_kernel(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float v = x[i];
    y[i] = v / (1.0f + expf(-v));
  }
}

extern "C" void swish(const float* x, float* y, int n, cudaStream_t stream) {
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  swish_reference_kernel<<<blocks, threads, 0, stream>>>(x, y, n);
}
