// MEASURED SLOWER (H200, bench/results/builtin_tuning/memory_floor: 152.8-167.8 µs against
// stencil2d_tunable.cu's 140.6 µs): kept here, out of examples/tasks/stencil2d/tunable/, so the
// builtin generator (the first tunable file in name order) tunes the faster space.
//
// Tunable 3x3 stencil with zero padding, rows streamed by the bulk copy
// engine (docs/tuning.md): a block owns a strip of TILE_W columns and
// ROWS_PER_BLOCK output rows. It streams its input rows (the strip plus 4
// columns each side, clipped to the matrix) one by one into a ring of
// STAGES shared-memory row buffers with cp.async.bulk (Hopper's TMA, 1-D,
// each buffer completing on its own mbarrier), STAGES rows ahead of the row
// it computes: each input byte crosses DRAM and the SM once, plus two halo
// rows per ROWS_PER_BLOCK rows and 8 halo columns per TILE_W. Each thread
// owns 4 adjacent columns and keeps the rows above, at and below the output
// row in registers (a sliding window: each row is read from shared memory
// once per thread); column neighbours come from the adjacent lanes by
// shuffles, the two edge lanes of a warp read theirs from shared memory.
// Outputs are 16-byte stores (st.global.cs with STREAM_STORES=1). The sum
// follows the reference's order (di, then dj). The copy engine needs W % 4 ==
// 0 and 16-byte aligned x and y; otherwise the block's threads fill each row
// buffer themselves with bounds-checked loads (any H, W >= 1). Compiles as is
// with the defaults below.
//
// kopt:tune TILE_W values=256,512,1024 role=tile_x
// kopt:tune ROWS_PER_BLOCK values=16,32,64,128,256 role=items_per_thread
// kopt:tune STAGES values=3,4,6,8,12 role=stages
// kopt:tune STREAM_STORES values=0,1 role=other
// kopt:restrict STAGES * (TILE_W + 8) * 4 <= 49152
#ifndef TILE_W
#define TILE_W 512
#endif
#ifndef ROWS_PER_BLOCK
#define ROWS_PER_BLOCK 64
#endif
#ifndef STAGES
#define STAGES 6
#endif
#ifndef STREAM_STORES
#define STREAM_STORES 0
#endif

namespace {
constexpr int kThreads = TILE_W / 4;
constexpr int kRowFloats = TILE_W + 8;  // columns c0 - 4 .. c0 + TILE_W + 3
static_assert(TILE_W % 128 == 0, "whole warps of 4-column threads");

__device__ __forceinline__ unsigned SharedAddress(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void IssueRow(float* dst, const float* src, unsigned bytes, unsigned long long* barrier) {
  const unsigned bar = SharedAddress(barrier);
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   SharedAddress(dst)),
               "l"(src), "r"(bytes), "r"(bar)
               : "memory");
}

__device__ __forceinline__ void BarrierWait(unsigned long long* barrier, unsigned phase) {
  const unsigned bar = SharedAddress(barrier);
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(bar), "r"(phase)
        : "memory");
  }
}

struct Segment {
  float value[6];  // columns c - 1 .. c + 4 of one input row
};

// Thread t's columns c0 + 4t .. c0 + 4t + 3 and their two neighbours, from a
// row buffer (index i holds column c0 - 4 + i). Every lane must call it.
__device__ __forceinline__ Segment ReadSegment(const float* row) {
  Segment segment;
  const int p = 4 * threadIdx.x + 4;
  const float4 v = *reinterpret_cast<const float4*>(row + p);
  segment.value[1] = v.x;
  segment.value[2] = v.y;
  segment.value[3] = v.z;
  segment.value[4] = v.w;
  const int lane = threadIdx.x % 32;
  float left = __shfl_up_sync(0xffffffffu, v.w, 1);
  float right = __shfl_down_sync(0xffffffffu, v.x, 1);
  if (lane == 0) left = row[p - 1];
  if (lane == 31) right = row[p + 4];
  segment.value[0] = left;
  segment.value[5] = right;
  return segment;
}

__device__ __forceinline__ Segment ZeroSegment() {
  Segment segment;
#pragma unroll
  for (int q = 0; q < 6; ++q) segment.value[q] = 0.0f;
  return segment;
}

__device__ __forceinline__ void StoreVector(float* p, float4 v) {
#if STREAM_STORES
  __stcs(reinterpret_cast<float4*>(p), v);
#else
  *reinterpret_cast<float4*>(p) = v;
#endif
}
}  // namespace

__global__ void __launch_bounds__(kThreads) stencil2d_bulk_kernel(const float* x, const float* w, float* y, int H,
                                                                  int W) {
  __shared__ __align__(128) float ring[STAGES][kRowFloats];
  __shared__ __align__(8) unsigned long long full[STAGES];
  float weight[9];
#pragma unroll
  for (int q = 0; q < 9; ++q) weight[q] = w[q];
  const bool bulk = W % 4 == 0 && (reinterpret_cast<unsigned long long>(x) & 15u) == 0 &&
                    (reinterpret_cast<unsigned long long>(y) & 15u) == 0;
  const int c0 = blockIdx.x * TILE_W;
  const int r0 = blockIdx.y * ROWS_PER_BLOCK;
  const int rows = min(ROWS_PER_BLOCK, H - r0);  // output rows r0 .. r0 + rows - 1
  const int first_row = max(r0 - 1, 0);          // input rows first_row .. last_row
  const int last_row = min(r0 + rows, H - 1);
  const int input_rows = last_row - first_row + 1;
  // the part of a row buffer the copy engine fills: columns lo .. hi - 1
  const int lo = max(c0 - 4, 0);
  const int hi = min(c0 + TILE_W + 4, W);
  const int offset = lo - (c0 - 4);
  const unsigned bytes = static_cast<unsigned>(hi - lo) * 4u;
  if (bulk) {
    // columns outside the matrix stay zero (the copies never write them)
    for (int i = threadIdx.x; i < STAGES * kRowFloats; i += kThreads) {
      const int index = i % kRowFloats;
      if (index < offset || index >= offset + (hi - lo)) ring[i / kRowFloats][index] = 0.0f;
    }
    if (threadIdx.x == 0) {
      for (int s = 0; s < STAGES; ++s)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(SharedAddress(&full[s])));
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int m = 0; m < STAGES && m < input_rows; ++m)
        IssueRow(&ring[m][offset], x + static_cast<size_t>(first_row + m) * W + lo, bytes, &full[m]);
    }
  }
  Segment above = ZeroSegment(), middle = ZeroSegment();
  const int c = c0 + 4 * threadIdx.x;
  for (int k = 0; k < rows + 2; ++k) {
    const int row = r0 - 1 + k;
    Segment below = ZeroSegment();
    const bool inside = row >= 0 && row < H;
    const int m = row - first_row;  // its place in the stream of input rows
    const int s = m % STAGES;
    if (inside) {
      if (bulk) {
        BarrierWait(&full[s], static_cast<unsigned>((m / STAGES) & 1));
      } else {
        for (int i = threadIdx.x; i < kRowFloats; i += kThreads) {
          const int column = c0 - 4 + i;
          ring[s][i] = column >= 0 && column < W ? x[static_cast<size_t>(row) * W + column] : 0.0f;
        }
        __syncthreads();
      }
      below = ReadSegment(ring[s]);
    }
    __syncthreads();  // every thread has read buffer s: it may be refilled
    if (bulk && inside && threadIdx.x == 0 && m + STAGES < input_rows)
      IssueRow(&ring[s][offset], x + static_cast<size_t>(first_row + m + STAGES) * W + lo, bytes, &full[s]);
    if (k >= 2) {
      const int out_row = row - 1;
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
      if (bulk && c + 4 <= W) {
        StoreVector(line + c, make_float4(out[0], out[1], out[2], out[3]));
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

extern "C" void stencil2d(const float* x, const float* w, float* y, int H, int W, cudaStream_t stream) {
  const dim3 blocks((W + TILE_W - 1) / TILE_W, (H + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
  stencil2d_bulk_kernel<<<blocks, kThreads, 0, stream>>>(x, w, y, H, W);
}
