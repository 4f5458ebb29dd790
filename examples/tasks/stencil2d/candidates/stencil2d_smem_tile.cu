// 3x3 stencil candidate: a 32 x 32 output tile per block of 32 x 8 threads
// (four rows per thread); the 34 x 34 input tile with its halo is staged in
// shared memory once (zero outside the image), the filter is held in
// registers, and the nine terms are added in the reference's order with fma
// (zero terms leave the sum unchanged). Correct for any H, W >= 1.
constexpr int kTile = 32;
constexpr int kBlockRows = 8;
constexpr int kHalo = kTile + 2;

__global__ void stencil2d_tile_kernel(const float* x, const float* w, float* y, int H, int W) {
  __shared__ float tile[kHalo][kHalo + 1];
  const int tile_row = blockIdx.y * kTile;
  const int tile_col = blockIdx.x * kTile;
  const int thread_id = threadIdx.y * kTile + threadIdx.x;
  for (int index = thread_id; index < kHalo * kHalo; index += kTile * kBlockRows) {
    const int local_row = index / kHalo;
    const int local_col = index % kHalo;
    const int r = tile_row + local_row - 1;
    const int c = tile_col + local_col - 1;
    tile[local_row][local_col] =
        (r >= 0 && r < H && c >= 0 && c < W) ? x[static_cast<size_t>(r) * W + c] : 0.0f;
  }
  float filter[9];
#pragma unroll
  for (int t = 0; t < 9; ++t) filter[t] = w[t];
  __syncthreads();

  const int j = tile_col + threadIdx.x;
#pragma unroll
  for (int k = 0; k < kTile; k += kBlockRows) {
    const int local_row = threadIdx.y + k;  // output row within the tile
    const int i = tile_row + local_row;
    if (i >= H || j >= W) continue;
    float acc = 0.0f;
#pragma unroll
    for (int di = 0; di < 3; ++di)
#pragma unroll
      for (int dj = 0; dj < 3; ++dj)
        acc = fmaf(filter[di * 3 + dj], tile[local_row + di][threadIdx.x + dj], acc);
    y[static_cast<size_t>(i) * W + j] = acc;
  }
}

extern "C" void stencil2d(const float* x, const float* w, float* y, int H, int W, cudaStream_t stream) {
  const dim3 threads(kTile, kBlockRows);
  const dim3 blocks((W + kTile - 1) / kTile, (H + kTile - 1) / kTile);
  stencil2d_tile_kernel<<<blocks, threads, 0, stream>>>(x, w, y, H, W);
}
