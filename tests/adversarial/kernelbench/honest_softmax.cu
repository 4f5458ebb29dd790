// Honest control (problem softmax_small): row softmax with max subtraction,
// one 256-thread block per row (16384 columns). Must pass.
#include <cuda_runtime.h>

__device__ float block_reduce(float v, bool is_max) {
  __shared__ float partial[32];
  for (int o = 16; o > 0; o /= 2) {
    float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = lane < blockDim.x / 32 ? partial[lane] : (is_max ? -INFINITY : 0.0f);
  for (int o = 16; o > 0; o /= 2) {
    float other = __shfl_xor_sync(0xffffffffu, v, o);
    v = is_max ? fmaxf(v, other) : v + other;
  }
  return v;
}

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* row = x + static_cast<long long>(blockIdx.x) * cols;
  float* out = y + static_cast<long long>(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
  m = block_reduce(m, true);
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += expf(row[c] - m);
  s = block_reduce(s, false);
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = expf(row[c] - m) / s;
}

extern "C" void model_forward(const float* x, float* out, cudaStream_t stream) {
  softmax_rows<<<256, 256, 0, stream>>>(x, out, 16384);
}
