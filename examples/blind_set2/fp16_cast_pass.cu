// fp16_cast_pass: blind set 2, kind 8 (a pass that exists only to move data).
// Three kernels of one program: a producer writes 96 M floats (a GELU-like activation), a separate
// pass casts them to half precision (384 MB read, 192 MB written, no arithmetic worth the name), and a
// consumer sums the halves per row. The cast pass alone may run near the DRAM ceiling, but it only moves
// data: the cast belongs in the producer's store (or the consumer's load).
// Usage: ./fp16_cast_pass [reps]
#include <cuda_fp16.h>

#include "../kernels/example_common.cuh"

__global__ void produce_activations_f32(float* __restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float x = 0.001f * float(i % 4096) - 2.0f;
    out[i] = x / (1.0f + __expf(-1.702f * x));
  }
}

__global__ void cast_to_half_pass(const float4* __restrict__ in, __half2* __restrict__ out, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = in[i];
    out[2 * i] = __floats2half2_rn(v.x, v.y);
    out[2 * i + 1] = __floats2half2_rn(v.z, v.w);
  }
}

__global__ void consume_row_sums(const __half* __restrict__ in, float* __restrict__ sums, int cols) {
  __shared__ float partial[256];
  float acc = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) acc += __half2float(in[size_t(blockIdx.x) * cols + c]);
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int half = 128; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) sums[blockIdx.x] = partial[0];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 24576, cols = 4096;
  const size_t n = size_t(rows) * cols;
  float* act = device_alloc<float>(n);
  __half* act16 = device_alloc<__half>(n);
  float* sums = device_alloc<float>(rows);
  const int blocks = 4 * sm_count();
  auto pipeline = [&] {
    produce_activations_f32<<<blocks * 8, 256>>>(act, n);
    cast_to_half_pass<<<blocks * 8, 256>>>(reinterpret_cast<const float4*>(act), reinterpret_cast<__half2*>(act16), n / 4);
    consume_row_sums<<<rows, 256>>>(act16, sums, cols);
    CK(cudaGetLastError());
  };
  pipeline();
  CK(cudaDeviceSynchronize());
  std::vector<float> host(cols);
  CK(cudaMemcpy(host.data(), act + size_t(7) * cols, cols * 4, cudaMemcpyDeviceToHost));
  double want = 0;
  for (float v : host) want += double(__half2float(__float2half(v)));
  float got = read_back(sums + 7);
  if (!(fabs(got - want) <= 1e-2 * fabs(want) + 1.0)) fail("wrong row sum %f vs %f\n", got, want);
  time_kernel("cast_to_half_pass", reps, [&] {
    cast_to_half_pass<<<blocks * 8, 256>>>(reinterpret_cast<const float4*>(act), reinterpret_cast<__half2*>(act16), n / 4);
  });
  free_device({act, act16, sums});
  printf("ok\n");
  return 0;
}
