// Adversarial candidate (task saxpy) -- expected: out_of_memory (or
// unwritten_output).
// Asks for a 4 TiB scratch buffer on every call, and when cudaMalloc fails
// it gives up quietly and returns without writing z. The failed allocation
// leaves cudaErrorMemoryAllocation as the last error for the harness.
__global__ void saxpy_scratch_kernel(const float* x, const float* y, float* z, float* scratch, int n,
                                     float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    scratch[i] = a * x[i];
    z[i] = scratch[i] + y[i];
  }
}

extern "C" void saxpy(const float* x, const float* y, float* z, int n, float a, cudaStream_t stream) {
  float* scratch = nullptr;
  if (cudaMalloc(&scratch, static_cast<size_t>(1) << 42) != cudaSuccess) return;
  saxpy_scratch_kernel<<<(n + 255) / 256, 256, 0, stream>>>(x, y, z, scratch, n, a);
  cudaFree(scratch);
}
