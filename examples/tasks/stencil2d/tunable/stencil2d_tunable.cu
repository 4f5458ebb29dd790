// Tunable 3x3 stencil with zero padding, register sliding window (docs/tuning.md):
// a block of BLOCK_X x BLOCK_Y threads; each thread owns VEC adjacent columns
// and walks down ROWS rows, keeping the rows above, at and below the output
// row in registers (each input row is read once per thread, plus two halo
// rows per ROWS outputs). The column neighbours come from the adjacent lanes
// by warp shuffles; only the two edge lanes of a warp read their outer
// neighbour from memory. Loads and stores are VEC-wide when W % VEC == 0
// (scalar otherwise). The sum follows the reference's order (di, then dj).
// Bounds-checked: any H, W >= 1. Compiles as is with the defaults below.
//
// kopt:tune BLOCK_X values=32,64,128,256 role=block_size
// kopt:tune BLOCK_Y values=1,2,4,8 role=rows_per_block
// kopt:tune VEC values=1,2,4 role=vector_width
// kopt:tune ROWS values=2,4,8,16,32 role=items_per_thread
// kopt:restrict BLOCK_X * BLOCK_Y <= 1024
// kopt:restrict BLOCK_X * BLOCK_Y >= 64
#ifndef BLOCK_X
#define BLOCK_X 128
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 2
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef ROWS
#define ROWS 16
#endif

namespace {
constexpr int kThreads = BLOCK_X * BLOCK_Y;
static_assert(BLOCK_X % 32 == 0, "a warp lies in one row of the block");
template <int V> struct VectorOf;
template <> struct VectorOf<1> { using Type = float; };
template <> struct VectorOf<2> { using Type = float2; };
template <> struct VectorOf<4> { using Type = float4; };
union Pack {
  typename VectorOf<VEC>::Type vector;
  float value[VEC];
};

// One input row segment: columns c0 - 1 .. c0 + VEC (VEC + 2 values), zero
// outside the matrix. Every lane of the warp must call it (shuffles).
struct Segment {
  float value[VEC + 2];
};

__device__ __forceinline__ Segment LoadSegment(const float* x, int H, int W, int row, int c0, bool vector_path) {
  Segment segment;
  Pack pack;
  const bool row_inside = row >= 0 && row < H;
  const float* line = x + static_cast<size_t>(row_inside ? row : 0) * W;
  if (vector_path && row_inside && c0 + VEC <= W) {
    pack.vector = *reinterpret_cast<const typename VectorOf<VEC>::Type*>(line + c0);
  } else {
#pragma unroll
    for (int q = 0; q < VEC; ++q) pack.value[q] = (row_inside && c0 + q < W) ? line[c0 + q] : 0.0f;
  }
#pragma unroll
  for (int q = 0; q < VEC; ++q) segment.value[q + 1] = pack.value[q];
  const int lane = threadIdx.x % 32;
  float left = __shfl_up_sync(0xffffffffu, pack.value[VEC - 1], 1);
  float right = __shfl_down_sync(0xffffffffu, pack.value[0], 1);
  if (lane == 0) left = (row_inside && c0 - 1 >= 0 && c0 - 1 < W) ? line[c0 - 1] : 0.0f;
  if (lane == 31) right = (row_inside && c0 + VEC < W) ? line[c0 + VEC] : 0.0f;
  segment.value[0] = left;
  segment.value[VEC + 1] = right;
  return segment;
}
}  // namespace

__global__ void __launch_bounds__(kThreads) stencil2d_tunable_kernel(const float* x, const float* w, float* y, int H,
                                                                     int W) {
  float weight[9];
#pragma unroll
  for (int q = 0; q < 9; ++q) weight[q] = w[q];
  const bool vector_path = W % VEC == 0;
  const int c0 = (blockIdx.x * BLOCK_X + threadIdx.x) * VEC;
  const int r0 = (blockIdx.y * BLOCK_Y + threadIdx.y) * ROWS;
  Segment above = LoadSegment(x, H, W, r0 - 1, c0, vector_path);
  Segment middle = LoadSegment(x, H, W, r0, c0, vector_path);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int row = r0 + r;
    Segment below = LoadSegment(x, H, W, row + 1, c0, vector_path);
    Pack out;
#pragma unroll
    for (int q = 0; q < VEC; ++q) {
      float acc = 0.0f;
#pragma unroll
      for (int dj = 0; dj < 3; ++dj) acc += weight[dj] * above.value[q + dj];
#pragma unroll
      for (int dj = 0; dj < 3; ++dj) acc += weight[3 + dj] * middle.value[q + dj];
#pragma unroll
      for (int dj = 0; dj < 3; ++dj) acc += weight[6 + dj] * below.value[q + dj];
      out.value[q] = acc;
    }
    if (row < H) {
      float* line = y + static_cast<size_t>(row) * W;
      if (vector_path && c0 + VEC <= W) {
        *reinterpret_cast<typename VectorOf<VEC>::Type*>(line + c0) = out.vector;
      } else {
#pragma unroll
        for (int q = 0; q < VEC; ++q)
          if (c0 + q < W) line[c0 + q] = out.value[q];
      }
    }
    above = middle;
    middle = below;
  }
}

extern "C" void stencil2d(const float* x, const float* w, float* y, int H, int W, cudaStream_t stream) {
  const dim3 threads(BLOCK_X, BLOCK_Y);
  const dim3 blocks((W + BLOCK_X * VEC - 1) / (BLOCK_X * VEC), (H + BLOCK_Y * ROWS - 1) / (BLOCK_Y * ROWS));
  stencil2d_tunable_kernel<<<blocks, threads, 0, stream>>>(x, w, y, H, W);
}
