// tail_bootstrap_ci_blocks: blind set 8, kind other (tail effect: a partial last wave of long blocks).
// Bootstrap confidence intervals of an A/B-test metric: 166 bootstrap replicates, one 1,024-thread block
// each, every block drawing 2 M resamples (an LCG per thread) of a 32 K-value sample staged in 128 KB of
// shared memory and reducing the resampled mean. With 128 KB of shared memory a block fills an SM alone, so
// 132 blocks run in the first wave and the remaining 34 in a second wave that leaves 98 SMs idle: 1.26 waves,
// about 45 % of the time spent on a quarter of the machine. 132 or 264 replicates per launch (or smaller
// blocks sharing the sample) would fix it.
// Usage: ./tail_bootstrap_ci_blocks [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSample = 32768, kDraws = 1 << 21, kThreads = 1024;

__global__ void __launch_bounds__(kThreads)
    tail_bootstrap_ci_blocks(const float* __restrict__ sample, float* __restrict__ replicate_mean) {
  extern __shared__ float s[];
  __shared__ float part[32];
  for (int k = threadIdx.x; k < kSample; k += kThreads) s[k] = sample[k];
  __syncthreads();
  unsigned state = 2654435761u * (blockIdx.x + 1) ^ (threadIdx.x * 0x9e3779b9u);
  float acc = 0.0f;
  for (int d = threadIdx.x; d < kDraws; d += kThreads) {
    state = state * 1664525u + 1013904223u;  // LCG per thread
    acc += s[(state >> 8) & (kSample - 1)];
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = part[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if (threadIdx.x == 0) replicate_mean[blockIdx.x] = v / kDraws;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int replicates = 166;
  const size_t smem = kSample * sizeof(float);  // the sample, 128 KB
  float* sample = device_alloc<float>(kSample);
  float* means = device_alloc<float>(replicates);
  fill_random<<<64, 256>>>(sample, kSample, 951, 1.0f, 3.0f);
  CK(cudaGetLastError());
  CK(cudaFuncSetAttribute(tail_bootstrap_ci_blocks, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  auto launch = [&] {
    tail_bootstrap_ci_blocks<<<replicates, kThreads, smem>>>(sample, means);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hs(kSample);
  CK(cudaMemcpy(hs.data(), sample, kSample * 4, cudaMemcpyDeviceToHost));
  for (int b : {0, 131, replicates - 1}) {  // exact replay of one replicate's draws
    double sum = 0;
    for (int t = 0; t < kThreads; ++t) {
      unsigned state = 2654435761u * (b + 1) ^ (t * 0x9e3779b9u);
      for (int d = t; d < kDraws; d += kThreads) {
        state = state * 1664525u + 1013904223u;
        sum += hs[(state >> 8) & (kSample - 1)];
      }
    }
    float got = read_back(means + b);
    double want = sum / kDraws;
    if (!(std::fabs(got - want) <= 1e-4 * want)) fail("wrong replicate %d: %g vs %g\n", b, got, want);
  }
  time_kernel("tail_bootstrap_ci_blocks", reps, launch);
  free_device({sample, means});
  printf("ok\n");
  return 0;
}
