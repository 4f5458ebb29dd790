// Transpose candidate: 64 x 64 tiles through shared memory (padded rows),
// 32 x 16 threads, each thread moving two adjacent columns per row with
// float2 loads when the row allows it. Larger tiles mean fewer blocks and
// more bytes in flight per block. Bounds checks on every access; the float2
// path is taken only when cols is even (then every row start is 8-byte
// aligned). Correct for any rows, cols >= 1.
constexpr int kTile = 64;
constexpr int kThreadsX = 32;
constexpr int kThreadsY = 16;

__global__ void transpose_tile64_kernel(const float* input, float* output, int rows, int cols) {
  __shared__ float tile[kTile][kTile + 1];
  const int tile_col = blockIdx.x * kTile;
  const int tile_row = blockIdx.y * kTile;
  const int local_col = threadIdx.x * 2;  // two adjacent input columns
  const int c = tile_col + local_col;
  const bool vector_ok = (cols % 2 == 0);
  for (int k = threadIdx.y; k < kTile; k += kThreadsY) {
    const int r = tile_row + k;
    if (r >= rows) break;
    const size_t base = static_cast<size_t>(r) * cols + c;
    if (vector_ok && c + 1 < cols) {
      const float2 v = *reinterpret_cast<const float2*>(input + base);
      tile[k][local_col] = v.x;
      tile[k][local_col + 1] = v.y;
    } else {
      if (c < cols) tile[k][local_col] = input[base];
      if (c + 1 < cols) tile[k][local_col + 1] = input[base + 1];
    }
  }
  __syncthreads();
  // Each thread writes output columns (input rows) threadIdx.x and threadIdx.x + 32.
  for (int k = threadIdx.y; k < kTile; k += kThreadsY) {
    const int out_row = tile_col + k;  // input column
    if (out_row >= cols) break;
    const size_t base = static_cast<size_t>(out_row) * rows;
    const int out_col0 = tile_row + threadIdx.x;
    const int out_col1 = out_col0 + kThreadsX;
    if (out_col0 < rows) output[base + out_col0] = tile[threadIdx.x][k];
    if (out_col1 < rows) output[base + out_col1] = tile[threadIdx.x + kThreadsX][k];
  }
}

extern "C" void transpose(const float* input, float* output, int rows, int cols, cudaStream_t stream) {
  const dim3 threads(kThreadsX, kThreadsY);
  const dim3 blocks((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
  transpose_tile64_kernel<<<blocks, threads, 0, stream>>>(input, output, rows, cols);
}
