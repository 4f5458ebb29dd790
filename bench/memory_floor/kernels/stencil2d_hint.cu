// MEASURED SLOWER with HINT 1 and 2 (H200, bench/results/builtin_tuning/memory_floor: 170-198 µs;
// HINT 0 is stencil2d_tunable.cu's 140.6 µs): kept here, out of examples/tasks/stencil2d/tunable/,
// so the builtin generator (the first tunable file in name order) tunes the faster space.
//
// Tunable 3x3 stencil with zero padding, register sliding window, with an L2
// eviction policy on its loads and stores (docs/tuning.md): the kernel of
// stencil2d_tunable.cu (a block of BLOCK_X x BLOCK_Y threads; each thread
// owns 4 adjacent columns and walks down ROWS rows, keeping the rows above,
// at and below the output row in registers; column neighbours by warp
// shuffles, the two edge lanes of a warp read theirs from memory), its
// 16-byte loads issued as
//   HINT 0  plain loads and stores (stencil2d_tunable.cu with VEC=4)
//   HINT 1  ld.global.nc.L1::no_allocate with an L2 evict_first policy: the
//           streamed input lines are the first the L2 replaces, so the
//           outputs' dirty lines (and those another kernel left) are not
//           pushed out early
//   HINT 2  as 1, and the stores st.global.L1::no_allocate with an L2
//           evict_last policy (the written lines stay in L2 longest)
// Bounds-checked: any H, W >= 1 (scalar loads and stores when W % 4 != 0).
// Compiles as is with the defaults below.
//
// kopt:tune BLOCK_X values=32,64,128,256 role=block_size
// kopt:tune BLOCK_Y values=1,2,4,8 role=rows_per_block
// kopt:tune ROWS values=2,4,8 role=items_per_thread
// kopt:tune HINT values=0,1,2 role=load_caching
// kopt:restrict BLOCK_X * BLOCK_Y <= 1024
// kopt:restrict BLOCK_X * BLOCK_Y >= 128
#ifndef BLOCK_X
#define BLOCK_X 128
#endif
#ifndef BLOCK_Y
#define BLOCK_Y 2
#endif
#ifndef ROWS
#define ROWS 4
#endif
#ifndef HINT
#define HINT 1
#endif

namespace {
constexpr int VEC = 4;
constexpr int kThreads = BLOCK_X * BLOCK_Y;
static_assert(BLOCK_X % 32 == 0, "a warp lies in one row of the block");
union Pack {
  float4 vector;
  float value[VEC];
};

__device__ __forceinline__ unsigned long long Policy(bool evict_last) {
  unsigned long long policy = 0;
#if HINT >= 1
  if (evict_last)
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  else
    asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#else
  (void)evict_last;
#endif
  return policy;
}

__device__ __forceinline__ float4 LoadVector(const float* p, unsigned long long policy) {
  float4 v;
#if HINT >= 1
  asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.f32 {%0,%1,%2,%3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p), "l"(policy));
#else
  (void)policy;
  v = *reinterpret_cast<const float4*>(p);
#endif
  return v;
}

__device__ __forceinline__ void StoreVector(float* p, float4 v, unsigned long long policy) {
#if HINT == 2
  asm volatile("st.global.L1::no_allocate.L2::cache_hint.v4.f32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "f"(v.x),
               "f"(v.y), "f"(v.z), "f"(v.w), "l"(policy)
               : "memory");
#else
  (void)policy;
  *reinterpret_cast<float4*>(p) = v;
#endif
}

// One input row segment: columns c0 - 1 .. c0 + VEC (VEC + 2 values), zero
// outside the matrix. Every lane of the warp must call it (shuffles).
struct Segment {
  float value[VEC + 2];
};

__device__ __forceinline__ Segment LoadSegment(const float* x, int H, int W, int row, int c0, bool vector_path,
                                           unsigned long long policy) {
  Segment segment;
  Pack pack;
  const bool row_inside = row >= 0 && row < H;
  const float* line = x + static_cast<size_t>(row_inside ? row : 0) * W;
  if (vector_path && row_inside && c0 + VEC <= W) {
    pack.vector = LoadVector(line + c0, policy);
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

__global__ void __launch_bounds__(kThreads) stencil2d_hint_kernel(const float* x, const float* w, float* y, int H,
                                                                     int W) {
  float weight[9];
#pragma unroll
  for (int q = 0; q < 9; ++q) weight[q] = w[q];
  const bool vector_path = W % VEC == 0;
  const unsigned long long load_policy = Policy(false);
  const unsigned long long store_policy = Policy(true);
  const int c0 = (blockIdx.x * BLOCK_X + threadIdx.x) * VEC;
  const int r0 = (blockIdx.y * BLOCK_Y + threadIdx.y) * ROWS;
  Segment above = LoadSegment(x, H, W, r0 - 1, c0, vector_path, load_policy);
  Segment middle = LoadSegment(x, H, W, r0, c0, vector_path, load_policy);
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int row = r0 + r;
    Segment below = LoadSegment(x, H, W, row + 1, c0, vector_path, load_policy);
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
        StoreVector(line + c0, out.vector, store_policy);
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
  stencil2d_hint_kernel<<<blocks, threads, 0, stream>>>(x, w, y, H, W);
}
