// fp64_gbm_paths_literal: blind set 5, kind 1 (float code on the FP64 pipe).
// Monte Carlo pricing of an Asian call under geometric Brownian motion, 1 M paths of 256 steps, all state
// in float. The step is the textbook line s *= exp((mu - 0.5 * sig * sig) * dt + sig * sqrtf(dt) * z): the
// literal 0.5 is a double, which promotes the drift, the exponent and the product to double and selects the
// double exp, so each step runs a double exp polynomial, double FMAs and conversions on the FP64 pipe while
// the random numbers (one xorshift per step) are a few integer operations. 0.5f and __expf/expf keep it in
// FP32. Usage: ./fp64_gbm_paths_literal [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kSteps = 256;

__host__ __device__ inline unsigned xorshift(unsigned& x) {
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return x;
}

__global__ void fp64_gbm_paths_literal(float* __restrict__ payoff, int paths, float s0, float strike,
                                       float mu, float sig, float dt) {
  int p = blockIdx.x * blockDim.x + threadIdx.x;
  if (p >= paths) return;
  unsigned rng = 0x9e3779b9u ^ (p * 2654435761u + 12345u);
  float s = s0, avg = 0.0f;
  for (int t = 0; t < kSteps; ++t) {
    float z = ((xorshift(rng) >> 8) * (1.0f / 16777216.0f) - 0.5f) * 3.4641016f;
    s *= exp((mu - 0.5 * sig * sig) * dt + sig * sqrtf(dt) * z);
    avg += s;
  }
  avg *= 1.0f / kSteps;
  payoff[p] = avg > strike ? avg - strike : 0.0f;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int paths = 1 << 20;
  const float s0 = 100.0f, strike = 102.0f, mu = 0.03f, sig = 0.25f, dt = 1.0f / 256.0f;
  float* payoff = device_alloc<float>(paths);
  auto launch = [&] {
    fp64_gbm_paths_literal<<<paths / 256, 256>>>(payoff, paths, s0, strike, mu, sig, dt);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int p : {0, 4242, paths - 1}) {
    unsigned rng = 0x9e3779b9u ^ (p * 2654435761u + 12345u);
    float s = s0, avg = 0.0f;
    for (int t = 0; t < kSteps; ++t) {
      float z = ((xorshift(rng) >> 8) * (1.0f / 16777216.0f) - 0.5f) * 3.4641016f;
      s *= std::exp((mu - 0.5 * sig * sig) * dt + sig * std::sqrt(dt) * z);
      avg += s;
    }
    avg *= 1.0f / kSteps;
    float want = avg > strike ? avg - strike : 0.0f;
    float got = read_back(payoff + p);
    if (!(std::fabs(got - want) <= 1e-3f * s0)) fail("wrong payoff at %d: %f vs %f\n", p, got, want);
  }
  time_kernel("fp64_gbm_paths_literal", reps, launch);
  free_device({payoff});
  printf("ok\n");
  return 0;
}
