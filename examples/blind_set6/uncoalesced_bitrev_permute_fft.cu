// uncoalesced_bitrev_permute_fft: blind set 6, other cause (uncoalesced loads).
// The bit-reversal reordering before an iterative radix-2 FFT of 2^25 complex samples (signal processing),
// written as the textbook gather out[i] = in[bitrev(i)]: the lanes of a warp differ in the low index bits,
// so their source addresses differ in the top bits, 8 MB apart: each 8-byte load is its own 32-byte sector
// (32 sectors per request where 8 would do), and the other three samples of each sector are only read
// 2^23 threads later, long after it left the 50 MB L2. About 1 GB of DRAM sectors fetched for 256 MB of
// useful reads (plus 256 MB of coalesced writes). A tiled (shared-memory) bit reversal or a self-sorting
// Stockham FFT is the fix.
// Usage: ./uncoalesced_bitrev_permute_fft [reps]
#include "../kernels/example_common.cuh"

constexpr int kLog = 25;

__global__ void uncoalesced_bitrev_permute_fft(const float2* __restrict__ in, float2* __restrict__ out) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= (1u << kLog)) return;
  out[i] = in[__brev(i) >> (32 - kLog)];
}

static unsigned bitrev_host(unsigned i) {
  unsigned r = 0;
  for (int b = 0; b < kLog; ++b) r |= ((i >> b) & 1u) << (kLog - 1 - b);
  return r;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(1) << kLog;
  float2* in = device_alloc<float2>(n);
  float2* out = device_alloc<float2>(n);
  fill_random<<<2048, 256>>>(reinterpret_cast<float*>(in), 2 * n, 691, 1e-3f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    uncoalesced_bitrev_permute_fft<<<unsigned(n / 256), 256>>>(in, out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (unsigned i : {0u, 1u, 12345u, unsigned(n / 2 + 7), unsigned(n - 1)}) {
    float2 got = read_back(out + i), want = read_back(in + bitrev_host(i));
    if (got.x != want.x || got.y != want.y) fail("wrong sample at %u\n", i);
  }
  time_kernel("uncoalesced_bitrev_permute_fft", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
