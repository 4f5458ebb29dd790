// clone_hidden_pass: blind set 4, kind 8 (a pass that exists only to move data), in a three-kernel
// program.
// A transformer block that keeps its residual with hidden.clone() before an in-place update: the producer
// writes the hidden state [32,768 tokens x 3,072] float (403 MB), clone_hidden_pass copies it to a second
// buffer (reads 403 MB, writes 403 MB, no arithmetic: a float4 grid-stride copy), and the consumer
// updates the hidden state in place with a gated residual that reads the clone. Nothing in the clone is
// new data: the consumer can read the producer's output and write its result to a fresh buffer (or the
// producer can write both), and the whole DRAM round trip disappears. The profile holds all three
// kernels; the labelled launch is clone_hidden_pass.
// Usage: ./clone_hidden_pass [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kHidden = 3072;

__global__ void attention_output(const float* __restrict__ seed, float* __restrict__ h, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    h[i] = seed[i % 8192] * 0.5f + float(i % kHidden) * 1e-4f;
}

__global__ void clone_hidden_pass(const float4* __restrict__ src, float4* __restrict__ dst, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

// h = residual + gate[c] * tanh(h), in place on h.
__global__ void gated_residual_update(float* __restrict__ h, const float* __restrict__ residual,
                                      const float* __restrict__ gate, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    h[i] = residual[i] + gate[i % kHidden] * tanhf(h[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t tokens = 32768, n = tokens * kHidden;
  float* seed = device_alloc<float>(8192);
  float* gate = device_alloc<float>(kHidden);
  float* h = device_alloc<float>(n);
  float* residual = device_alloc<float>(n);
  fill_random<<<32, 256>>>(seed, 8192, 423, 0.01f, 2.0f);
  fill_random<<<12, 256>>>(gate, kHidden, 424, 0.01f, 1.0f);
  CK(cudaGetLastError());
  const int blocks = sm_count() * 16;
  auto forward = [&] {
    attention_output<<<blocks, 256>>>(seed, h, n);
    clone_hidden_pass<<<blocks, 256>>>((const float4*)h, (float4*)residual, n / 4);
    gated_residual_update<<<blocks, 256>>>(h, residual, gate, n);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> hs(8192), hg(kHidden);
  CK(cudaMemcpy(hs.data(), seed, hs.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hg.data(), gate, hg.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (size_t i : {size_t(0), size_t(3071), size_t(50000000), n - 1}) {
    float x = hs[i % 8192] * 0.5f + float(i % kHidden) * 1e-4f;
    float want = x + hg[i % kHidden] * std::tanh(x);
    float got = read_back(h + i), got_r = read_back(residual + i);
    if (!(fabsf(got - want) <= 1e-5f * (1 + fabsf(want))) || !(fabsf(got_r - x) <= 1e-6f * (1 + x)))
      fail("wrong result at %zu: %f vs %f\n", i, got, want);
  }
  time_kernel("clone_hidden_pass_forward", reps, forward);
  free_device({seed, gate, h, residual});
  printf("ok\n");
  return 0;
}
