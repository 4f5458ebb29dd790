// mc_option_blocks_tail: blind set 4, other cause (tail effect: a partial last wave of long blocks).
// Monte Carlo prices of 300 European calls (a strike grid) under a Bachelier model, one 1,024-thread block
// per option, each thread simulating 256 terminal prices from xorshift32 uniforms (a 12-uniform
// Irwin-Hall normal), then a block reduction. __launch_bounds__(1024, 2) gives two resident blocks per SM:
// 264 blocks per wave on 132 SMs, so the 300 equally long blocks run as one full wave and a second wave of
// 36 blocks on 18 SMs while the other SMs idle: about 1.14 waves of work take two waves of time. More,
// shorter blocks (several per option, or paths split across a grid-stride loop) fill the machine.
// Usage: ./mc_option_blocks_tail [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kOptions = 300, kThreads = 1024, kPathsPerThread = 256;
constexpr float kS0 = 100.0f, kSigmaSqrtT = 20.0f;

__global__ void __launch_bounds__(kThreads, 2)
    mc_option_blocks_tail(const float* __restrict__ strikes, float* __restrict__ prices) {
  __shared__ float partial[kThreads / 32];
  const float k = strikes[blockIdx.x];
  unsigned s = (blockIdx.x * kThreads + threadIdx.x) * 2654435761u + 0x9e3779b9u;
  s = s ? s : 1u;
  float sum = 0.0f;
  for (int p = 0; p < kPathsPerThread; ++p) {
    float u = 0.0f;
#pragma unroll
    for (int j = 0; j < 12; ++j) {
      s ^= s << 13;
      s ^= s >> 17;
      s ^= s << 5;
      u += float(s >> 8) * (1.0f / 16777216.0f);
    }
    float st = kS0 + kSigmaSqrtT * (u - 6.0f);
    sum += fmaxf(st - k, 0.0f);
  }
  for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = partial[threadIdx.x];
    for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
    if (threadIdx.x == 0) prices[blockIdx.x] = v / float(kThreads * kPathsPerThread);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<float> hk(kOptions);
  for (int i = 0; i < kOptions; ++i) hk[i] = 70.0f + 0.2f * i;
  float* strikes = device_alloc<float>(kOptions);
  float* prices = device_alloc<float>(kOptions);
  CK(cudaMemcpy(strikes, hk.data(), kOptions * sizeof(float), cudaMemcpyHostToDevice));
  auto launch = [&] {
    mc_option_blocks_tail<<<kOptions, kThreads>>>(strikes, prices);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  // Bachelier price: (S - K) Phi(d) + s phi(d), d = (S - K) / s
  for (int i : {0, 150, kOptions - 1}) {
    double d = (kS0 - hk[i]) / kSigmaSqrtT;
    double want = (kS0 - hk[i]) * 0.5 * std::erfc(-d / std::sqrt(2.0)) +
                  kSigmaSqrtT * std::exp(-0.5 * d * d) / std::sqrt(2 * M_PI);
    float got = read_back(prices + i);
    if (!(fabs(got - want) <= 0.01 * kSigmaSqrtT)) fail("wrong price of option %d: %f vs %f\n", i, got, want);
  }
  time_kernel("mc_option_blocks_tail", reps, launch);
  free_device({strikes, prices});
  printf("ok\n");
  return 0;
}
