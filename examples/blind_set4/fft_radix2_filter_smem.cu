// fft_radix2_filter_smem: blind set 4, kind 1 (the busy unit is the wrong one: a block-wide algorithm
// that spends its time at barriers).
// FFT-based filtering of 16,384 complex signals of 1,024 points: each 512-thread block loads its signal
// into shared memory in bit-reversed order, runs an iterative radix-2 forward FFT (10 stages), multiplies
// by a low-pass response, reorders and runs the inverse FFT (10 more stages). Every stage is one
// butterfly per thread (two shared loads, a twiddle, a complex multiply-add, two shared stores) followed
// by __syncthreads across 16 warps: little work between barriers, so warps mostly wait at the barrier.
// Radix-4/8 stages in registers, warp-shuffle stages for the first five levels, or one warp per FFT
// would remove most barriers. Global loads and stores are coalesced float2; the shared array is padded
// (one slot per 32) so that the bit-reversal permutation does not serialize on one bank.
// Usage: ./fft_radix2_filter_smem [reps]
#include <cmath>
#include <complex>

#include "../kernels/example_common.cuh"

constexpr int kN = 1024, kLog = 10, kThreads = kN / 2;

// Shared-memory slot of element i: one float2 of padding after every 32, so that the bit-reversed
// permutation (lanes 32 elements apart) does not land in one bank.
__device__ __forceinline__ int pad(int i) {
  return i + (i >> 5);
}

__device__ __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Radix-2 DIT stages over s (already in bit-reversed order); sign = -1 forward, +1 inverse. tw holds the
// twiddles stage-major (entry half + pos for the stage of length 2 half), so a warp reads them
// contiguously or as a broadcast.
__device__ __forceinline__ void fft_stages(float2* s, const float2* tw, float sign) {
  for (int len = 2; len <= kN; len <<= 1) {
    int half = len >> 1, t = threadIdx.x;
    int pos = t & (half - 1), i = (t / half) * len + pos, j = i + half;
    float2 w = tw[half + pos];  // stage-major table: w_len^pos at half + pos
    w.y *= sign;
    float2 u = s[pad(i)], v = cmul(s[pad(j)], w);
    s[pad(i)] = make_float2(u.x + v.x, u.y + v.y);
    s[pad(j)] = make_float2(u.x - v.x, u.y - v.y);
    __syncthreads();
  }
}

__global__ void fft_radix2_filter_smem(const float2* __restrict__ in, const float2* __restrict__ twiddles,
                                       const float* __restrict__ response, float2* __restrict__ out) {
  __shared__ float2 s[kN + kN / 32];
  __shared__ float2 tw[kN];
  const float2* x = in + size_t(blockIdx.x) * kN;
  int t = threadIdx.x;
  tw[t] = twiddles[t];
  tw[t + kThreads] = twiddles[t + kThreads];
  s[pad(__brev(t) >> (32 - kLog))] = x[t];
  s[pad(__brev(t + kThreads) >> (32 - kLog))] = x[t + kThreads];
  __syncthreads();
  fft_stages(s, tw, -1.0f);
  // filter in the frequency domain, then bit-reverse for the inverse transform
  float2 a = s[pad(t)], b = s[pad(t + kThreads)];
  float ha = response[t], hb = response[t + kThreads];
  __syncthreads();
  s[pad(__brev(t) >> (32 - kLog))] = make_float2(a.x * ha, a.y * ha);
  s[pad(__brev(t + kThreads) >> (32 - kLog))] = make_float2(b.x * hb, b.y * hb);
  __syncthreads();
  fft_stages(s, tw, 1.0f);
  float2* y = out + size_t(blockIdx.x) * kN;
  const float scale = 1.0f / kN;
  float2 p = s[pad(t)], q = s[pad(t + kThreads)];
  y[t] = make_float2(p.x * scale, p.y * scale);
  y[t + kThreads] = make_float2(q.x * scale, q.y * scale);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int signals = 16384;
  const size_t n = size_t(signals) * kN;
  float2* in = device_alloc<float2>(n);
  float2* out = device_alloc<float2>(n);
  float2* tw = device_alloc<float2>(kN);
  float* resp = device_alloc<float>(kN);
  fill_random<<<2048, 256>>>((float*)in, 2 * n, 407, 0.01f, 1.0f);
  std::vector<float2> htw(kN, make_float2(0.0f, 0.0f));
  std::vector<float> hr(kN);
  for (int half = 1; half < kN; half *= 2)  // stage of length 2 half: exp(-2 pi i pos / (2 half))
    for (int pos = 0; pos < half; ++pos)
      htw[half + pos] = make_float2(float(std::cos(M_PI * pos / half)), float(-std::sin(M_PI * pos / half)));
  for (int k = 0; k < kN; ++k) {
    double f = std::min(k, kN - k) / 48.0;
    hr[k] = float(1.0 / (1.0 + f * f));
  }
  CK(cudaMemcpy(tw, htw.data(), htw.size() * sizeof(float2), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(resp, hr.data(), hr.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaGetLastError());
  auto launch = [&] {
    fft_radix2_filter_smem<<<signals, kThreads>>>(in, tw, resp, out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  // reference: direct DFT, filter, inverse DFT in double for two signals
  for (int sig : {0, signals - 1}) {
    std::vector<float2> hx(kN), hy(kN);
    CK(cudaMemcpy(hx.data(), in + size_t(sig) * kN, kN * sizeof(float2), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hy.data(), out + size_t(sig) * kN, kN * sizeof(float2), cudaMemcpyDeviceToHost));
    std::vector<std::complex<double>> X(kN), ex(kN);
    for (int k = 0; k < kN; ++k) ex[k] = std::polar(1.0, -2 * M_PI * k / kN);
    for (int k = 0; k < kN; ++k) {
      std::complex<double> acc = 0;
      for (int m = 0; m < kN; ++m) acc += std::complex<double>(hx[m].x, hx[m].y) * ex[(size_t(k) * m) % kN];
      X[k] = acc * double(hr[k]);
    }
    for (int m : {0, 1, 333, kN - 1}) {
      std::complex<double> acc = 0;
      for (int k = 0; k < kN; ++k) acc += X[k] * std::conj(ex[(size_t(k) * m) % kN]);
      acc /= kN;
      if (!(std::abs(acc - std::complex<double>(hy[m].x, hy[m].y)) <= 1e-4 * (1 + std::abs(acc))))
        fail("wrong filtered sample %d of signal %d: (%f, %f) vs (%f, %f)\n", m, sig, hy[m].x, hy[m].y,
             acc.real(), acc.imag());
    }
  }
  time_kernel("fft_radix2_filter_smem", reps, launch);
  free_device({in, out, tw, resp});
  printf("ok\n");
  return 0;
}
