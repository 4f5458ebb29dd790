// Issue 13 flag knob check: softmax_tunable.cu at its defaults, compiled with -Xptxas -dlcm=cg (tests/gpu/flag_knobs/README.md).
// kopt:nvcc -Xptxas -dlcm=cg
// Tunable softmax over rows (docs/tuning.md): a block of THREADS_PER_ROW x
// ROWS_PER_BLOCK threads handles ROWS_PER_BLOCK rows, each row by
// THREADS_PER_ROW threads (one warp or several: warp shuffles, then shared
// memory across the row's warps). When cols % VEC == 0 and the row fits in
// THREADS_PER_ROW * VEC * ITEMS floats, the row is read once with VEC-wide
// loads and kept in registers; otherwise a general three-pass path over
// global memory runs. Output exp(x - max) * (1 / sum). Correct for any
// rows, cols >= 1. Compiles as is with the defaults below.
//
#ifndef THREADS_PER_ROW
#define THREADS_PER_ROW 256
#endif
#ifndef ROWS_PER_BLOCK
#define ROWS_PER_BLOCK 1
#endif
#ifndef VEC
#define VEC 4
#endif
#ifndef ITEMS
#define ITEMS 4
#endif

namespace {
constexpr int kWarpsPerRow = THREADS_PER_ROW / 32;
template <int V> struct VectorOf;
template <> struct VectorOf<1> { using Type = float; };
template <> struct VectorOf<2> { using Type = float2; };
template <> struct VectorOf<4> { using Type = float4; };
union Pack {
  typename VectorOf<VEC>::Type vector;
  float value[VEC];
};

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// Reduces over the THREADS_PER_ROW threads of this row (threadIdx.y); every
// one of them gets the result. All threads of the block must call it.
template <typename Op>
__device__ float RowReduce(float value, Op op, float identity, float (*scratch)[kWarpsPerRow]) {
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  if (kWarpsPerRow == 1) return value;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  __syncthreads();  // the previous call's readers are done with scratch
  if (lane == 0) scratch[threadIdx.y][warp] = value;
  __syncthreads();
  value = lane < kWarpsPerRow ? scratch[threadIdx.y][lane] : identity;
  for (int offset = 16; offset > 0; offset /= 2) value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}
}  // namespace

__global__ void __launch_bounds__(THREADS_PER_ROW * ROWS_PER_BLOCK)
    softmax_tunable_registers_kernel(const float* x, float* y, int rows, int cols) {
  __shared__ float scratch[ROWS_PER_BLOCK][kWarpsPerRow];
  const int row_index = blockIdx.x * ROWS_PER_BLOCK + threadIdx.y;
  const bool active = row_index < rows;
  const int vectors = cols / VEC;
  const auto* row = reinterpret_cast<const typename VectorOf<VEC>::Type*>(x + static_cast<size_t>(row_index) * cols);
  auto* out = reinterpret_cast<typename VectorOf<VEC>::Type*>(y + static_cast<size_t>(row_index) * cols);
  Pack v[ITEMS];
  float row_max = -INFINITY;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int index = threadIdx.x + k * THREADS_PER_ROW;
    if (active && index < vectors) {
      v[k].vector = row[index];
    } else {
#pragma unroll
      for (int q = 0; q < VEC; ++q) v[k].value[q] = -INFINITY;
    }
#pragma unroll
    for (int q = 0; q < VEC; ++q) row_max = fmaxf(row_max, v[k].value[q]);
  }
  row_max = RowReduce(row_max, MaxOp(), -INFINITY, scratch);
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    if (active && threadIdx.x + k * THREADS_PER_ROW < vectors) {
#pragma unroll
      for (int q = 0; q < VEC; ++q) {
        v[k].value[q] = expf(v[k].value[q] - row_max);
        sum += v[k].value[q];
      }
    }
  }
  sum = RowReduce(sum, SumOp(), 0.0f, scratch);
  const float inverse = 1.0f / sum;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const int index = threadIdx.x + k * THREADS_PER_ROW;
    if (active && index < vectors) {
#pragma unroll
      for (int q = 0; q < VEC; ++q) v[k].value[q] *= inverse;
      out[index] = v[k].vector;
    }
  }
}

__global__ void __launch_bounds__(THREADS_PER_ROW * ROWS_PER_BLOCK)
    softmax_tunable_general_kernel(const float* x, float* y, int rows, int cols) {
  __shared__ float scratch[ROWS_PER_BLOCK][kWarpsPerRow];
  const int row_index = blockIdx.x * ROWS_PER_BLOCK + threadIdx.y;
  const int limit = row_index < rows ? cols : 0;
  const float* row = x + static_cast<size_t>(row_index) * cols;
  float* out = y + static_cast<size_t>(row_index) * cols;
  float row_max = -INFINITY;
  for (int c = threadIdx.x; c < limit; c += THREADS_PER_ROW) row_max = fmaxf(row_max, row[c]);
  row_max = RowReduce(row_max, MaxOp(), -INFINITY, scratch);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < limit; c += THREADS_PER_ROW) sum += expf(row[c] - row_max);
  sum = RowReduce(sum, SumOp(), 0.0f, scratch);
  const float inverse = 1.0f / sum;
  for (int c = threadIdx.x; c < limit; c += THREADS_PER_ROW) out[c] = expf(row[c] - row_max) * inverse;
}

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  const dim3 threads(THREADS_PER_ROW, ROWS_PER_BLOCK);
  const int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
  if (cols % VEC == 0 && cols <= THREADS_PER_ROW * VEC * ITEMS) {
    softmax_tunable_registers_kernel<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
  } else {
    softmax_tunable_general_kernel<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
  }
}
