// rk4_oscillator_launches: blind set 4, kind 7 (launch overhead of thousands of tiny launches).
// Classic fourth-order Runge-Kutta for 4,096 independent damped oscillators (x'' = -w^2 x - g x'),
// written the way a first CUDA port of a textbook integrator looks: each of the 2,000 time steps launches
// the stage kernel four times (k1..k4) and a combine kernel once, 10,000 launches of 16 blocks that each
// run for a microsecond or two. The GPU idles between launches most of the run; integrating many steps
// per launch (the state fits in registers) or capturing the step in a CUDA graph is the fix.
// Usage: ./rk4_oscillator_launches [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kOsc = 4096, kSteps = 2000;
constexpr float kDt = 1e-3f, kDamp = 0.3f;

// k_out = f(y + c dt k_in) for the state y = (x, v); k_in may be null (first stage).
__global__ void rk4_stage(const float2* __restrict__ y, const float2* __restrict__ k_in, float c,
                          const float* __restrict__ omega2, float2* __restrict__ k_out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float2 s = y[i];
  if (k_in) {
    float2 k = k_in[i];
    s.x += c * kDt * k.x;
    s.y += c * kDt * k.y;
  }
  k_out[i] = make_float2(s.y, -omega2[i] * s.x - kDamp * s.y);
}

__global__ void rk4_combine(float2* __restrict__ y, const float2* __restrict__ k1,
                            const float2* __restrict__ k2, const float2* __restrict__ k3,
                            const float2* __restrict__ k4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float2 s = y[i], a = k1[i], b = k2[i], c = k3[i], d = k4[i];
  s.x += kDt / 6.0f * (a.x + 2.0f * b.x + 2.0f * c.x + d.x);
  s.y += kDt / 6.0f * (a.y + 2.0f * b.y + 2.0f * c.y + d.y);
  y[i] = s;
}

__global__ void init_state(float2* y, float* omega2) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float w = 1.0f + 0.002f * i;
  omega2[i] = w * w;
  y[i] = make_float2(1.0f, 0.0f);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  float2* y = device_alloc<float2>(kOsc);
  float2* k = device_alloc<float2>(4 * kOsc);
  float* omega2 = device_alloc<float>(kOsc);
  float2 *k1 = k, *k2 = k + kOsc, *k3 = k + 2 * kOsc, *k4 = k + 3 * kOsc;
  const int blocks = kOsc / 256;
  auto simulate = [&] {
    init_state<<<blocks, 256>>>(y, omega2);
    for (int s = 0; s < kSteps; ++s) {
      rk4_stage<<<blocks, 256>>>(y, nullptr, 0.0f, omega2, k1);
      rk4_stage<<<blocks, 256>>>(y, k1, 0.5f, omega2, k2);
      rk4_stage<<<blocks, 256>>>(y, k2, 0.5f, omega2, k3);
      rk4_stage<<<blocks, 256>>>(y, k3, 1.0f, omega2, k4);
      rk4_combine<<<blocks, 256>>>(y, k1, k2, k3, k4);
    }
    CK(cudaGetLastError());
  };
  simulate();
  CK(cudaDeviceSynchronize());
  // exact solution of the underdamped oscillator from x = 1, v = 0 at t = kSteps dt
  const double t = double(kSteps) * kDt, g = kDamp;
  for (int i : {0, 1000, kOsc - 1}) {
    double w0 = 1.0 + 0.002 * float(i), w0s = double(float(w0) * float(w0));
    double wd = std::sqrt(w0s - g * g / 4), e = std::exp(-g * t / 2);
    double x = e * (std::cos(wd * t) + g / (2 * wd) * std::sin(wd * t));
    float2 got = read_back(y + i);
    if (!(fabs(got.x - x) <= 1e-3)) fail("wrong state of oscillator %d: %f vs %f\n", i, got.x, x);
  }
  time_kernel("rk4_oscillator_launches", reps, simulate);
  free_device({y, k, omega2});
  printf("ok\n");
  return 0;
}
