// interleave_complex_pass: blind set 8, kind 8 (a pass that only moves data, between a producer and a
// consumer). A software-radio front end: mix_down produces the in-phase and quadrature parts of 16 M samples
// as two planar float arrays, interleave_complex_pass copies them into the float2 (I, Q) layout the next
// stage expects (134 MB read, 134 MB written, nothing computed), and iq_power, the consumer, sums the power
// of each 1,024-sample block. The interleave runs near DRAM bandwidth but only moves data: reading the planar
// arrays in iq_power (or writing float2 in mix_down) removes 268 MB of traffic and a launch. The labelled
// launch is interleave_complex_pass. Usage: ./interleave_complex_pass [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kBlock = 1024;

__global__ void mix_down(const float* __restrict__ rf, float* __restrict__ i_out, float* __restrict__ q_out,
                         int n, float w) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n) return;
  float s, c;
  __sincosf(w * (k & 4095), &s, &c);
  i_out[k] = rf[k] * c;
  q_out[k] = -rf[k] * s;
}

__global__ void interleave_complex_pass(const float4* __restrict__ i_in, const float4* __restrict__ q_in,
                                        float4* __restrict__ iq, int n4) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= n4) return;
  float4 a = i_in[k], b = q_in[k];
  iq[2 * k] = make_float4(a.x, b.x, a.y, b.y);
  iq[2 * k + 1] = make_float4(a.z, b.z, a.w, b.w);
}

__global__ void iq_power(const float2* __restrict__ iq, float* __restrict__ power) {
  __shared__ float part[8];
  const float2* p = iq + size_t(blockIdx.x) * kBlock;
  float s = 0.0f;
  for (int k = threadIdx.x; k < kBlock; k += 256) s += p[k].x * p[k].x + p[k].y * p[k].y;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < 8; ++w) t += part[w];
    power[blockIdx.x] = t;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 16 << 20, n4 = n / 4;
  float* rf = device_alloc<float>(n);
  float* i_pl = device_alloc<float>(n);
  float* q_pl = device_alloc<float>(n);
  float* iq = device_alloc<float>(2 * size_t(n));
  float* power = device_alloc<float>(n / kBlock);
  fill_random<<<2048, 256>>>(rf, n, 931, -1.0f, 1.0f);
  CK(cudaGetLastError());
  auto forward = [&] {
    mix_down<<<n / 256, 256>>>(rf, i_pl, q_pl, n, 0.0123f);
    interleave_complex_pass<<<n4 / 256, 256>>>((const float4*)i_pl, (const float4*)q_pl, (float4*)iq, n4);
    iq_power<<<n / kBlock, 256>>>((const float2*)iq, power);
    CK(cudaGetLastError());
  };
  forward();
  CK(cudaDeviceSynchronize());
  std::vector<float> hr(kBlock);
  for (int b : {0, 7777, n / kBlock - 1}) {
    CK(cudaMemcpy(hr.data(), rf + size_t(b) * kBlock, kBlock * 4, cudaMemcpyDeviceToHost));
    double want = 0;
    for (int k = 0; k < kBlock; ++k) want += double(hr[k]) * hr[k];  // |rf e^{-iwk}|^2 = rf^2
    float got = read_back(power + b);
    if (!(std::fabs(got - want) <= 1e-3 * want + 1e-3))
      fail("wrong power block %d: %g vs %g\n", b, got, want);
  }
  time_kernel("interleave_complex_pass_forward", reps, forward);
  free_device({rf, i_pl, q_pl, iq, power});
  printf("ok\n");
  return 0;
}
