// Tunable 3x3 stencil with zero padding (docs/tuning.md): a block computes a
// TILE_X x TILE_Y output tile; the (TILE_Y + 2) x (TILE_X + 2) input tile
// with its one-element halo is staged in shared memory, then each of the
// TILE_X x (TILE_Y / ITEMS_Y) threads computes ITEMS_Y outputs down a
// column. Weights are read once into registers; the sum follows the
// reference's order (di, then dj). Bounds-checked: any H, W >= 1. Compiles
// as is with the defaults below.
//
// kopt:tune TILE_X values=32,64,128 role=tile_x
// kopt:tune TILE_Y values=4,8,16,32 role=tile_y
// kopt:tune ITEMS_Y values=1,2,4 role=items_per_thread
// kopt:restrict ITEMS_Y <= TILE_Y
// kopt:restrict TILE_X * TILE_Y / ITEMS_Y <= 1024
// kopt:restrict TILE_X * TILE_Y / ITEMS_Y >= 64
#ifndef TILE_X
#define TILE_X 64
#endif
#ifndef TILE_Y
#define TILE_Y 8
#endif
#ifndef ITEMS_Y
#define ITEMS_Y 2
#endif

namespace {
constexpr int kThreadsY = TILE_Y / ITEMS_Y;
constexpr int kThreads = TILE_X * kThreadsY;
}  // namespace

__global__ void __launch_bounds__(kThreads) stencil2d_tunable_kernel(const float* x, const float* w, float* y, int H,
                                                                     int W) {
  __shared__ float tile[TILE_Y + 2][TILE_X + 2];
  const int origin_row = blockIdx.y * TILE_Y - 1;
  const int origin_col = blockIdx.x * TILE_X - 1;
  const int thread = threadIdx.y * TILE_X + threadIdx.x;
  for (int e = thread; e < (TILE_Y + 2) * (TILE_X + 2); e += kThreads) {
    const int r = origin_row + e / (TILE_X + 2);
    const int c = origin_col + e % (TILE_X + 2);
    tile[e / (TILE_X + 2)][e % (TILE_X + 2)] =
        (r >= 0 && r < H && c >= 0 && c < W) ? x[static_cast<size_t>(r) * W + c] : 0.0f;
  }
  float weight[9];
#pragma unroll
  for (int q = 0; q < 9; ++q) weight[q] = w[q];
  __syncthreads();
  const int j = blockIdx.x * TILE_X + threadIdx.x;
#pragma unroll
  for (int item = 0; item < ITEMS_Y; ++item) {
    const int local_row = threadIdx.y * ITEMS_Y + item;
    const int i = blockIdx.y * TILE_Y + local_row;
    if (i >= H || j >= W) continue;
    float acc = 0.0f;
#pragma unroll
    for (int di = 0; di < 3; ++di)
#pragma unroll
      for (int dj = 0; dj < 3; ++dj) acc += weight[di * 3 + dj] * tile[local_row + di][threadIdx.x + dj];
    y[static_cast<size_t>(i) * W + j] = acc;
  }
}

extern "C" void stencil2d(const float* x, const float* w, float* y, int H, int W, cudaStream_t stream) {
  const dim3 threads(TILE_X, kThreadsY);
  const dim3 blocks((W + TILE_X - 1) / TILE_X, (H + TILE_Y - 1) / TILE_Y);
  stencil2d_tunable_kernel<<<blocks, threads, 0, stream>>>(x, w, y, H, W);
}
