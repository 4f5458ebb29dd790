// Transpose reference: one thread per input element, read coalesced, write
// strided (each warp's 32 stores land in 32 different rows of the output).
__global__ void transpose_reference_kernel(const float* input, float* output, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    output[static_cast<size_t>(c) * rows + r] = input[static_cast<size_t>(r) * cols + c];
}

extern "C" void transpose(const float* input, float* output, int rows, int cols, cudaStream_t stream) {
  const dim3 threads(16, 16);
  const dim3 blocks((cols + threads.x - 1) / threads.x, (rows + threads.y - 1) / threads.y);
  transpose_reference_kernel<<<blocks, threads, 0, stream>>>(input, output, rows, cols);
}
