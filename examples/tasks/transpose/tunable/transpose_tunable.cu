// Tunable tiled transpose (docs/tuning.md): a TILE x TILE tile of the input
// goes through shared memory (each row padded by PAD floats against bank
// conflicts on the transposed read), read and written by TILE x BLOCK_ROWS
// threads, each moving TILE / BLOCK_ROWS elements per phase; both global
// accesses are row-contiguous. Bounds-checked: any rows, cols >= 1. Compiles
// as is with the defaults below.
//
// kopt:tune TILE values=16,32,64 role=tile_x
// kopt:tune BLOCK_ROWS values=4,8,16,32 role=block_size
// kopt:tune PAD values=0,1 role=padding
// kopt:restrict BLOCK_ROWS <= TILE
// kopt:restrict TILE * BLOCK_ROWS <= 1024
#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif
#ifndef PAD
#define PAD 1
#endif

__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
    transpose_tunable_kernel(const float* input, float* output, int rows, int cols) {
  __shared__ float tile[TILE][TILE + PAD];
  const int tile_col = blockIdx.x * TILE;
  const int tile_row = blockIdx.y * TILE;
  const int c = tile_col + threadIdx.x;
#pragma unroll
  for (int k = 0; k < TILE; k += BLOCK_ROWS) {
    const int r = tile_row + threadIdx.y + k;
    if (r < rows && c < cols) tile[threadIdx.y + k][threadIdx.x] = input[static_cast<size_t>(r) * cols + c];
  }
  __syncthreads();
  const int out_col = tile_row + threadIdx.x;  // output row = input column
#pragma unroll
  for (int k = 0; k < TILE; k += BLOCK_ROWS) {
    const int out_row = tile_col + threadIdx.y + k;
    if (out_row < cols && out_col < rows) {
      output[static_cast<size_t>(out_row) * rows + out_col] = tile[threadIdx.x][threadIdx.y + k];
    }
  }
}

extern "C" void transpose(const float* input, float* output, int rows, int cols, cudaStream_t stream) {
  const dim3 threads(TILE, BLOCK_ROWS);
  const dim3 blocks((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose_tunable_kernel<<<blocks, threads, 0, stream>>>(input, output, rows, cols);
}
