// fp64_implied_vol_newton: blind set 6, kind 1 (the FP64 pipe used by float code).
// Implied volatilities of 4 M listed calls (quant finance): float spot, strike, maturity and market price,
// 12 Newton steps on the Black-Scholes price per option. The normal CDF is written
// 0.5 * erfc(-d / sqrt(2.0)), the drift (r + 0.5 * sig * sig) and the vega exp(-0.5 * d * d) / sqrt(2.0 * M_PI):
// the double literals promote the float operands and select the double erfc and exp, so each Newton step
// runs two double erfc, a double exp and double divisions and multiplies on the FP64 pipe (48 M steps),
// against 20 bytes of global traffic per option. 0.5f, erfcf/normcdff and expf keep it in FP32.
// Usage: ./fp64_implied_vol_newton [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

__device__ float call_price_and_vega(float s, float k, float t, float r, float sig, float* vega) {
  float sqt = sqrtf(t);
  float d1 = (logf(s / k) + (r + 0.5 * sig * sig) * t) / (sig * sqt);
  float d2 = d1 - sig * sqt;
  float n1 = 0.5 * erfc(-d1 / sqrt(2.0));
  float n2 = 0.5 * erfc(-d2 / sqrt(2.0));
  *vega = s * sqt * exp(-0.5 * d1 * d1) / sqrt(2.0 * M_PI);
  return s * n1 - k * expf(-r * t) * n2;
}

__global__ void fp64_implied_vol_newton(const float4* __restrict__ options, const float* __restrict__ price,
                                        float* __restrict__ vol, int n, float r) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 o = options[i];  // spot, strike, maturity, unused
  float target = price[i], sig = 0.3f;
  for (int step = 0; step < 12; ++step) {
    float vega;
    float p = call_price_and_vega(o.x, o.y, o.z, r, sig, &vega);
    sig -= (p - target) / fmaxf(vega, 1e-3f);
    sig = fminf(fmaxf(sig, 0.02f), 2.0f);
  }
  vol[i] = sig;
}

static double bs_call(double s, double k, double t, double r, double sig) {
  double d1 = (std::log(s / k) + (r + 0.5 * sig * sig) * t) / (sig * std::sqrt(t));
  double d2 = d1 - sig * std::sqrt(t);
  return s * 0.5 * std::erfc(-d1 / std::sqrt(2.0)) - k * std::exp(-r * t) * 0.5 * std::erfc(-d2 / std::sqrt(2.0));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 22;
  const float r = 0.03f;
  std::vector<float4> ho(n);
  std::vector<float> hp(n), true_vol(n);
  for (int i = 0; i < n; ++i) {
    unsigned h = unsigned(i) * 2654435761u;
    float k = 90.0f + 20.0f * ((h >> 8) & 1023) / 1023.0f;
    float t = 0.25f + 1.75f * ((h >> 18) & 255) / 255.0f;
    true_vol[i] = 0.15f + 0.45f * (i % 997) / 996.0f;
    ho[i] = make_float4(100.0f, k, t, 0.0f);
    hp[i] = float(bs_call(100.0, k, t, r, true_vol[i]));
  }
  float4* options = device_alloc<float4>(n);
  float* price = device_alloc<float>(n);
  float* vol = device_alloc<float>(n);
  CK(cudaMemcpy(options, ho.data(), sizeof(float4) * n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(price, hp.data(), sizeof(float) * n, cudaMemcpyHostToDevice));
  auto launch = [&] {
    fp64_implied_vol_newton<<<n / 256, 256>>>(options, price, vol, n, r);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 12345, n / 2, n - 1}) {
    float got = read_back(vol + i);
    if (!(std::fabs(got - true_vol[i]) <= 2e-3f)) fail("wrong implied vol at %d: %f vs %f\n", i, got, true_vol[i]);
  }
  time_kernel("fp64_implied_vol_newton", reps, launch);
  free_device({options, price, vol});
  printf("ok\n");
  return 0;
}
