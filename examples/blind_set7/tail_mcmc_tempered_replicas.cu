// tail_mcmc_tempered_replicas: blind set 7, other cause (tail effect: a partial last wave).
// Parallel tempering for a 1-D double-well model: 165 temperature replicas, one 256-thread block each (256
// Metropolis walkers per replica), each block first tabulating its Boltzmann weights exp(-U(x)/T) on a
// 32,768-point grid in 128 KB of shared memory, then every walker doing 6,000 dependent Metropolis steps
// (xorshift RNG, two table lookups, one compare): uniform, latency-bound work per block. The 128 KB table
// fits one block per SM, so 165 blocks are 1.25 waves on 132 SMs: the second wave runs 33 blocks on 33 SMs
// while 99 idle, about 2 block-times for 1.25 of work (~37 % of the run lost). 132 (or 264 smaller) replicas
// per launch, or splitting each replica's walkers over two blocks, would remove the tail.
// Usage: ./tail_mcmc_tempered_replicas [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kGrid = 32768, kSteps = 6000, kWalkers = 256;
constexpr float kLo = -3.0f, kHi = 3.0f;

__host__ __device__ inline float potential(float x) {
  return (x * x - 1.0f) * (x * x - 1.0f) * 4.0f;
}

__global__ void __launch_bounds__(kWalkers)
    tail_mcmc_tempered_replicas(const float* __restrict__ temperature, float* __restrict__ mean_x2) {
  extern __shared__ float weight[];
  const float T = temperature[blockIdx.x], dx = (kHi - kLo) / (kGrid - 1);
  for (int i = threadIdx.x; i < kGrid; i += blockDim.x) weight[i] = __expf(-potential(kLo + i * dx) / T);
  __syncthreads();
  unsigned s = 2463534242u ^ (blockIdx.x * 9781u + threadIdx.x * 6271u);
  int pos = kGrid / 2 + (threadIdx.x % 2 ? 5461 : -5461);  // start in one of the wells
  float acc = 0.0f;
  for (int step = 0; step < kSteps; ++step) {
    s ^= s << 13, s ^= s >> 17, s ^= s << 5;
    int prop = pos + int(s % 201u) - 100;
    prop = prop < 0 ? 0 : (prop >= kGrid ? kGrid - 1 : prop);
    float u = (s >> 8) * (1.0f / 16777216.0f);
    if (u * weight[pos] < weight[prop]) pos = prop;
    float x = kLo + pos * dx;
    acc += x * x;
  }
  for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) atomicAdd(&mean_x2[blockIdx.x], acc / (float(kSteps) * kWalkers));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int replicas = 165;
  std::vector<float> ht(replicas);
  for (int r = 0; r < replicas; ++r) ht[r] = 0.2f * std::pow(1.03f, float(r));
  float* temperature = device_alloc<float>(replicas);
  float* mean_x2 = device_alloc<float>(replicas);
  CK(cudaMemcpy(temperature, ht.data(), replicas * 4, cudaMemcpyHostToDevice));
  const int smem = kGrid * sizeof(float);
  CK(cudaFuncSetAttribute(tail_mcmc_tempered_replicas, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  auto launch = [&] {
    CK(cudaMemset(mean_x2, 0, replicas * 4));
    tail_mcmc_tempered_replicas<<<replicas, kWalkers, smem>>>(temperature, mean_x2);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> got(replicas);
  CK(cudaMemcpy(got.data(), mean_x2, replicas * 4, cudaMemcpyDeviceToHost));
  // <x^2> of a walker confined to [-3, 3] is between 0 and 9 and near 1 for the cold replicas (the wells at
  // +-1)
  for (int r = 0; r < replicas; ++r)
    if (!(got[r] > 0.3f && got[r] < 9.0f)) fail("implausible <x^2> %g of replica %d\n", got[r], r);
  if (!(std::fabs(got[0] - 1.0f) < 0.2f)) fail("cold replica <x^2> %g, expected near 1\n", got[0]);
  time_kernel("tail_mcmc_tempered_replicas", reps, launch);
  free_device({temperature, mean_x2});
  printf("ok\n");
  return 0;
}
