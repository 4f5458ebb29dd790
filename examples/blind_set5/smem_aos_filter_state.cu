// smem_aos_filter_state: blind set 5, kind other (shared-memory bank conflicts).
// A bank of 262,144 independent 16-tap FIR filters (one channel per thread, samples stored time-major so
// the global loads and stores are coalesced), 64 samples each. To "save registers" the author keeps
// each thread's 16-sample delay line in shared memory as a circular buffer in an array of structs,
// state[tid * 16 + (head + k) % 16]: at a fixed tap the 32 lanes of a warp hit addresses 16 words apart,
// only two banks, so the store and each of the 16 loads per sample is a 16-way conflict (16 wavefronts per
// request). The delay line belongs in registers (a fully unrolled shift), or at least a [k][tid] layout.
// Usage: ./smem_aos_filter_state [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kTaps = 16, kSamples = 64, kBlock = 128;

__global__ void smem_aos_filter_state(const float* __restrict__ x, const float* __restrict__ taps,
                                      float* __restrict__ y, int channels) {
  __shared__ float state[kBlock * kTaps];
  __shared__ float h[kTaps];
  if (threadIdx.x < kTaps) h[threadIdx.x] = taps[threadIdx.x];
  float* st = state + threadIdx.x * kTaps;
  for (int k = 0; k < kTaps; ++k) st[k] = 0.0f;
  __syncthreads();
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  int head = 0;  // circular delay line: st[(head + k) % kTaps] holds x[t - k]
  for (int t = 0; t < kSamples; ++t) {
    head = (head + kTaps - 1) & (kTaps - 1);
    st[head] = x[(size_t)t * channels + c];
    float acc = 0.0f;
    for (int k = 0; k < kTaps; ++k) acc += h[k] * st[(head + k) & (kTaps - 1)];
    y[(size_t)t * channels + c] = acc;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int channels = 262144;
  const size_t n = size_t(channels) * kSamples;
  float* x = device_alloc<float>(n);
  float* taps = device_alloc<float>(kTaps);
  float* y = device_alloc<float>(n);
  fill_random<<<2048, 256>>>(x, n, 611, 0.0f + 1e-3f, 1.0f);
  fill_random<<<1, 32>>>(taps, kTaps, 612, 0.01f, 0.1f);
  CK(cudaGetLastError());
  auto launch = [&] {
    smem_aos_filter_state<<<channels / kBlock, kBlock>>>(x, taps, y, channels);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hx(n), hy(n), ht(kTaps);
  CK(cudaMemcpy(hx.data(), x, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hy.data(), y, n * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ht.data(), taps, kTaps * 4, cudaMemcpyDeviceToHost));
  for (int c : {0, 12345, channels - 1})
    for (int t : {0, 5, kSamples - 1}) {
      double want = 0;
      for (int k = 0; k < kTaps && k <= t; ++k) want += double(ht[k]) * hx[size_t(t - k) * channels + c];
      float got = hy[size_t(t) * channels + c];
      if (!(std::fabs(got - want) <= 1e-5 * std::fabs(want) + 1e-6))
        fail("wrong output c=%d t=%d: %f vs %f\n", c, t, got, want);
    }
  time_kernel("smem_aos_filter_state", reps, launch);
  free_device({x, taps, y});
  printf("ok\n");
  return 0;
}
