// Transpose candidate: 32 x 32 tiles staged through shared memory (padded
// to 33 columns: no bank conflicts on the column read), 32 x 8 threads per
// block, four elements per thread; both the global reads and the global
// writes are coalesced. Bounds checks on every access: correct for any
// rows, cols >= 1.
constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_tile_kernel(const float* input, float* output, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int tile_col = blockIdx.x * kTile;
  const int tile_row = blockIdx.y * kTile;
  const int c = tile_col + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows) {
    const int r = tile_row + threadIdx.y + k;
    if (r < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = input[static_cast<size_t>(r) * cols + c];
  }
  __syncthreads();
  // Output row = input column; output column = input row.
  const int out_col = tile_row + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows) {
    const int out_row = tile_col + threadIdx.y + k;
    if (out_row < cols && out_col < rows) {
      output[static_cast<size_t>(out_row) * rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
    }
  }
}

extern "C" void transpose(const float* input, float* output, int rows, int cols, cudaStream_t stream) {
  const dim3 threads(kTile, kBlockRows);
  const dim3 blocks((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_tile_kernel<<<blocks, threads, 0, stream>>>(input, output, rows, cols);
}
