// Adversarial candidate (task softmax) -- expected: wrong_output (or
// constant_output).
// Writes 1/cols into every element: the softmax of a constant row, and the
// mean of every softmax row. It ignores the input, so the output does not
// change with the seed while the reference's does; on the heavy-tailed
// inputs it is also far outside the tolerance.
__global__ void uniform_rows_kernel(float* y, size_t total, float value) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    y[i] = value;
  }
}

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  (void)x;
  uniform_rows_kernel<<<1024, 256, 0, stream>>>(y, static_cast<size_t>(rows) * cols, 1.0f / cols);
}
