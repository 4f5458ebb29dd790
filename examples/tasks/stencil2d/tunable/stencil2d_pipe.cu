// Tunable 3x3 stencil with zero padding, a software-pipelined register
// window (docs/tuning.md): each thread owns 4 adjacent columns and walks
// down ROWS output rows (ROWS + 2 input rows: the halo costs 2 / ROWS of the
// reads), keeping PF input rows in flight ahead of the row it computes: a
// ring of PF 16-byte registers (and, on the two edge lanes of each warp, the
// scalar column neighbour), refilled with the row PF ahead as soon as a row
// is consumed; the ring is indexed by the unrolled loop's constants only.
// The rows above, at and below the output row stay in registers; column
// neighbours come from the adjacent lanes by warp shuffles. A block is
// BLOCK_X threads in one row (BLOCK_X * 4 columns); the grid is (W / (4 *
// BLOCK_X)) x (H / ROWS) blocks, about one wave on the H200 for ROWS 64 at
// 8192 x 8192. The sum follows the reference's order (di, then dj). 16-byte
// loads and stores when W % 4 == 0 and x, y are 16-byte aligned; scalar,
// bounds-checked otherwise (any H, W >= 1). Compiles as is with the
// defaults below.
//
// kopt:tune BLOCK_X values=64,128,256,512 role=block_size
// kopt:tune ROWS values=8,16,32,64,128 role=items_per_thread
// kopt:tune PF values=2,3,4,6,8 role=stages
// kopt:restrict PF <= ROWS
#ifndef BLOCK_X
#define BLOCK_X 128
#endif
#ifndef ROWS
#define ROWS 64
#endif
#ifndef PF
#define PF 4
#endif

namespace {
static_assert(BLOCK_X % 32 == 0, "whole warps");
constexpr int kInputRows = ROWS + 2;

// One input row's part for this thread: its 4 columns and, on the warp's
// edge lanes, the outer column neighbour (zero outside the matrix).
struct Slice {
  float4 v;
  float edge;
};

template <bool kVector>
__device__ __forceinline__ Slice LoadSlice(const float* x, int H, int W, int row, int c, int lane) {
  Slice slice;
  const bool row_inside = row >= 0 && row < H;
  const float* line = x + static_cast<size_t>(row_inside ? row : 0) * W;
  if (kVector) {
    slice.v = row_inside && c < W ? *reinterpret_cast<const float4*>(line + c) : make_float4(0.f, 0.f, 0.f, 0.f);
  } else {
    slice.v.x = row_inside && c < W ? line[c] : 0.0f;
    slice.v.y = row_inside && c + 1 < W ? line[c + 1] : 0.0f;
    slice.v.z = row_inside && c + 2 < W ? line[c + 2] : 0.0f;
    slice.v.w = row_inside && c + 3 < W ? line[c + 3] : 0.0f;
  }
  const int outer = lane == 0 ? c - 1 : c + 4;
  slice.edge = (lane == 0 || lane == 31) && row_inside && outer >= 0 && outer < W ? line[outer] : 0.0f;
  return slice;
}

struct Segment {
  float value[6];  // columns c - 1 .. c + 4
};

// Every lane of the warp must call it (shuffles).
__device__ __forceinline__ Segment ToSegment(const Slice& slice, int lane) {
  Segment segment;
  segment.value[1] = slice.v.x;
  segment.value[2] = slice.v.y;
  segment.value[3] = slice.v.z;
  segment.value[4] = slice.v.w;
  const float left = __shfl_up_sync(0xffffffffu, slice.v.w, 1);
  const float right = __shfl_down_sync(0xffffffffu, slice.v.x, 1);
  segment.value[0] = lane == 0 ? slice.edge : left;
  segment.value[5] = lane == 31 ? slice.edge : right;
  return segment;
}
}  // namespace

// kVector: 16-byte loads and stores (W % 4 == 0, x and y 16-byte aligned).
template <bool kVector>
__global__ void __launch_bounds__(BLOCK_X) stencil2d_pipe_kernel(const float* x, const float* w, float* y, int H,
                                                                 int W) {
  float weight[9];
#pragma unroll
  for (int q = 0; q < 9; ++q) weight[q] = w[q];
  const int lane = threadIdx.x % 32;
  const int c = (blockIdx.x * BLOCK_X + threadIdx.x) * 4;
  const int r0 = blockIdx.y * ROWS;
  // input row k (0 .. ROWS + 1) is matrix row r0 - 1 + k; ring[k % PF] holds it
  Slice ring[PF];
#pragma unroll
  for (int k = 0; k < PF; ++k) ring[k] = LoadSlice<kVector>(x, H, W, r0 - 1 + k, c, lane);
  Segment above, middle;
#pragma unroll
  for (int q = 0; q < 6; ++q) above.value[q] = middle.value[q] = 0.0f;
#pragma unroll 1
  for (int base = 0; base < kInputRows; base += PF) {
#pragma unroll
    for (int j = 0; j < PF; ++j) {
      const int k = base + j;
      if (k < kInputRows) {
        const Segment below = ToSegment(ring[j], lane);
        if (k + PF < kInputRows) ring[j] = LoadSlice<kVector>(x, H, W, r0 - 1 + k + PF, c, lane);
        const int out_row = r0 + k - 2;
        if (k >= 2 && out_row < H) {
          float out[4];
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            float acc = 0.0f;
#pragma unroll
            for (int dj = 0; dj < 3; ++dj) acc += weight[dj] * above.value[q + dj];
#pragma unroll
            for (int dj = 0; dj < 3; ++dj) acc += weight[3 + dj] * middle.value[q + dj];
#pragma unroll
            for (int dj = 0; dj < 3; ++dj) acc += weight[6 + dj] * below.value[q + dj];
            out[q] = acc;
          }
          float* line = y + static_cast<size_t>(out_row) * W;
          if (kVector) {
            if (c < W) *reinterpret_cast<float4*>(line + c) = make_float4(out[0], out[1], out[2], out[3]);
          } else {
#pragma unroll
            for (int q = 0; q < 4; ++q)
              if (c + q < W) line[c + q] = out[q];
          }
        }
        above = middle;
        middle = below;
      }
    }
  }
}

extern "C" void stencil2d(const float* x, const float* w, float* y, int H, int W, cudaStream_t stream) {
  const dim3 blocks((W + BLOCK_X * 4 - 1) / (BLOCK_X * 4), (H + ROWS - 1) / ROWS);
  const bool vector_path = W % 4 == 0 && (reinterpret_cast<unsigned long long>(x) & 15u) == 0 &&
                           (reinterpret_cast<unsigned long long>(y) & 15u) == 0;
  if (vector_path)
    stencil2d_pipe_kernel<true><<<blocks, BLOCK_X, 0, stream>>>(x, w, y, H, W);
  else
    stencil2d_pipe_kernel<false><<<blocks, BLOCK_X, 0, stream>>>(x, w, y, H, W);
}
