// pipeline_scale_bias: blind set, kind 8 (a pass that exists only to move data), in a three-kernel program.
// A producer computes activations (a few FMAs and a tanhf per element) into a 400 MB tensor
// [rows=25,600 x cols=4,096], a separate element-wise pass applies a per-column scale and bias in place
// (scale_bias_pass: read 400 MB, write 400 MB, 2 flops per element), and a consumer reduces each row. The
// middle kernel runs near the DRAM ceiling, so it looks healthy alone; in the program it is pure data
// movement: fused into the producer's epilogue (or the consumer's prologue) it costs nothing. The
// profile holds all three kernels; the labelled launch is scale_bias_pass.
// Usage: ./pipeline_scale_bias [reps]
#include "../kernels/example_common.cuh"

constexpr int kCols = 4096;

__global__ void produce_activations(const float* __restrict__ seed, float4* __restrict__ act, size_t n4) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float s = seed[i % 1024];
  float b = float(i & 1023) * 1e-3f;
  act[i] = make_float4(tanhf(s * 0.5f + b), tanhf(s * 0.25f - b), tanhf(s - 0.5f * b), tanhf(0.75f * s + b));
}

__global__ void scale_bias_pass(float4* __restrict__ act, const float4* __restrict__ scale,
                                const float4* __restrict__ bias, size_t n4) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= n4) return;
  float4 v = act[i], s = scale[i % (kCols / 4)], b = bias[i % (kCols / 4)];
  act[i] = make_float4(v.x * s.x + b.x, v.y * s.y + b.y, v.z * s.z + b.z, v.w * s.w + b.w);
}

__global__ void consume_rowsum(const float4* __restrict__ act, float* __restrict__ out) {
  const float4* row = act + (size_t)blockIdx.x * (kCols / 4);
  float acc = 0.0f;
  for (int k = threadIdx.x; k < kCols / 4; k += blockDim.x) {
    float4 v = row[k];
    acc += v.x + v.y + v.z + v.w;
  }
  __shared__ float part[8];
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int w = 0; w < 8; ++w) t += part[w];
    out[blockIdx.x] = t;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 25600;
  const size_t n4 = size_t(rows) * kCols / 4;  // 400 MB of floats
  float* seed = device_alloc<float>(1024);
  float4* act = device_alloc<float4>(n4);
  float* scale = device_alloc<float>(kCols);
  float* bias = device_alloc<float>(kCols);
  float* out = device_alloc<float>(rows);
  fill_random<<<4, 256>>>(seed, 1024, 126, 0.5f, 1.5f);
  fill_random<<<16, 256>>>(scale, kCols, 127, 0.5f, 1.5f);
  fill_random<<<16, 256>>>(bias, kCols, 128, -0.5f, 0.5f);
  CK(cudaGetLastError());
  const unsigned grid = unsigned((n4 + 255) / 256);
  auto step = [&] {
    produce_activations<<<grid, 256>>>(seed, act, n4);
    scale_bias_pass<<<grid, 256>>>(act, (const float4*)scale, (const float4*)bias, n4);
    consume_rowsum<<<rows, 256>>>(act, out);
    CK(cudaGetLastError());
  };
  step();
  CK(cudaDeviceSynchronize());
  float h = read_back(out + 3);
  if (!(fabsf(h) < float(kCols) * 4.0f) || h == 0.0f) fail("wrong result %f\n", h);
  time_kernel("pipeline_scale_bias_step", reps, step);
  free_device({seed, act, scale, bias, out});
  printf("ok\n");
  return 0;
}
