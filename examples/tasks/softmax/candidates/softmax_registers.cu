// Softmax candidate: one block of 256 threads per row; when cols % 4 == 0 and
// cols <= 4096 the row is read once with float4 loads and kept in registers
// (16 values per thread), reductions use warp shuffles, and the output is
// exp * (1/sum). Other shapes take a general three-pass path over global
// memory. Correct for any rows, cols >= 1.
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kVectorsPerThread = 4;  // float4 each: cols <= 4 * 4 * 256 = 4096

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

// Reduces `value` over the block; every thread gets the result. `scratch`
// holds kWarps floats; safe to call repeatedly with the same scratch.
template <typename Op>
__device__ float BlockReduce(float value, Op op, float identity, float* scratch) {
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  __syncthreads();  // the previous call's readers are done with scratch
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = lane < kWarps ? scratch[lane] : identity;
  for (int offset = 16; offset > 0; offset /= 2)
    value = op(value, __shfl_xor_sync(0xffffffffu, value, offset));
  return value;
}

__global__ void softmax_registers_kernel(const float* x, float* y, int cols) {
  __shared__ float scratch[kWarps];
  const int vectors = cols / 4;
  const float4* row = reinterpret_cast<const float4*>(x + static_cast<size_t>(blockIdx.x) * cols);
  float4* out = reinterpret_cast<float4*>(y + static_cast<size_t>(blockIdx.x) * cols);
  float4 v[kVectorsPerThread];
  float row_max = -INFINITY;
#pragma unroll
  for (int k = 0; k < kVectorsPerThread; ++k) {
    const int index = threadIdx.x + k * kThreads;
    v[k] = index < vectors ? row[index] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    row_max = fmaxf(row_max, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
  }
  row_max = BlockReduce(row_max, MaxOp(), -INFINITY, scratch);
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < kVectorsPerThread; ++k) {
    if (threadIdx.x + k * kThreads < vectors) {
      v[k].x = expf(v[k].x - row_max);
      v[k].y = expf(v[k].y - row_max);
      v[k].z = expf(v[k].z - row_max);
      v[k].w = expf(v[k].w - row_max);
      sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
  }
  sum = BlockReduce(sum, SumOp(), 0.0f, scratch);
  const float inverse = 1.0f / sum;
#pragma unroll
  for (int k = 0; k < kVectorsPerThread; ++k) {
    const int index = threadIdx.x + k * kThreads;
    if (index < vectors)
      out[index] = make_float4(v[k].x * inverse, v[k].y * inverse, v[k].z * inverse, v[k].w * inverse);
  }
}

__global__ void softmax_general_kernel(const float* x, float* y, int cols) {
  __shared__ float scratch[kWarps];
  const float* row = x + static_cast<size_t>(blockIdx.x) * cols;
  float* out = y + static_cast<size_t>(blockIdx.x) * cols;
  float row_max = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += kThreads) row_max = fmaxf(row_max, row[c]);
  row_max = BlockReduce(row_max, MaxOp(), -INFINITY, scratch);
  float sum = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kThreads) sum += expf(row[c] - row_max);
  sum = BlockReduce(sum, SumOp(), 0.0f, scratch);
  const float inverse = 1.0f / sum;
  for (int c = threadIdx.x; c < cols; c += kThreads) out[c] = expf(row[c] - row_max) * inverse;
}

extern "C" void softmax(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  if (cols % 4 == 0 && cols / 4 <= kVectorsPerThread * kThreads) {
    softmax_registers_kernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
  } else {
    softmax_general_kernel<<<rows, kThreads, 0, stream>>>(x, y, cols);
  }
}
