// Adversarial candidate (task reduce_sum) -- expected: wrong_output.
// Reads only every 16th element and scales the partial sum by 16: 16x less
// memory traffic, and right "on average". The sampling error (~4e4 here,
// 6e-4 relative) is far beyond the task's rtol of 1e-5.
__global__ void strided_sum_kernel(const float* x, float* y, int n) {
  __shared__ float partial[256];
  float sum = 0.0f;
  for (int i = (blockIdx.x * 256 + threadIdx.x) * 16; i < n; i += gridDim.x * 256 * 16) sum += x[i];
  partial[threadIdx.x] = sum;
  __syncthreads();
  for (int h = 128; h > 0; h /= 2) {
    if (threadIdx.x < h) partial[threadIdx.x] += partial[threadIdx.x + h];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(y, 16.0f * partial[0]);
}

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  strided_sum_kernel<<<264, 256, 0, stream>>>(x, y, n);
}
