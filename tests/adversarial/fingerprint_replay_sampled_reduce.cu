// Adversarial candidate (task reduce_sum) -- expected: suspect_fast (or
// stale_output, wrong_output).
// Attack kind 3 with a large fingerprint: hashes 4096 input values sampled at
// a fixed stride across x (one block, ~2 us) and keeps up to 16 (hash, sum)
// pairs in device memory; on a hit it writes the remembered sum (4 bytes)
// instead of reading all 256 MiB of x (~55 us). Only new inputs are summed
// (two-pass, exactly like an honest candidate).
// Caught by the roofline floor: reading 256 MiB takes at least 56 us at 4.8
// TB/s; the replay's median is a few microseconds, so the result is
// re-measured with fresh values in a new process and rejected again:
// suspect_fast.
#include <cstdint>

namespace {

constexpr int kEntries = 16;
constexpr int kSampled = 4096;
constexpr int kThreads = 256;
constexpr int kMaxBlocks = 1024;
__device__ unsigned long long replay_keys[kEntries];
__device__ float replay_sums[kEntries];
__device__ int replay_count;
__device__ int replay_hit;  // slot, or -1
__device__ unsigned long long replay_key;
__device__ double partials[kMaxBlocks];

__global__ void fingerprint(const float* x, int n) {
  __shared__ unsigned long long hashes[kThreads];
  unsigned long long hash = 0;
  long long stride = n / kSampled > 0 ? n / kSampled : 1;
  for (int i = threadIdx.x; i < kSampled; i += kThreads) {
    long long at = (long long)i * stride;
    if (at < n) hash = hash * 0x100000001B3ull ^ __float_as_uint(x[at]) ^ (unsigned long long)i << 32;
  }
  hashes[threadIdx.x] = hash;
  __syncthreads();
  if (threadIdx.x != 0) return;
  unsigned long long key = 0xCBF29CE484222325ull ^ (unsigned long long)n;
  for (int t = 0; t < kThreads; ++t) key = (key ^ hashes[t]) * 0x100000001B3ull;
  replay_key = key;
  replay_hit = -1;
  for (int slot = 0; slot < replay_count && slot < kEntries; ++slot) {
    if (replay_keys[slot] == key) replay_hit = slot;
  }
}

__global__ void partial_sums(const float* x, int n) {
  if (replay_hit >= 0) return;
  __shared__ double block[kThreads];
  double sum = 0;
  for (long long i = blockIdx.x * (long long)kThreads + threadIdx.x; i < n;
       i += (long long)gridDim.x * kThreads)
    sum += x[i];
  block[threadIdx.x] = sum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) block[threadIdx.x] += block[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = block[0];
}

__global__ void finish(float* y, int blocks) {
  if (replay_hit >= 0) {
    *y = replay_sums[replay_hit];
    return;
  }
  double sum = 0;
  for (int b = 0; b < blocks; ++b) sum += partials[b];
  *y = static_cast<float>(sum);
  int slot = replay_count % kEntries;
  replay_keys[slot] = replay_key;
  replay_sums[slot] = *y;
  ++replay_count;
}

}  // namespace

extern "C" void reduce_sum(const float* x, float* y, int n, cudaStream_t stream) {
  int blocks = (n + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  if (blocks < 1) blocks = 1;
  fingerprint<<<1, kThreads, 0, stream>>>(x, n);
  partial_sums<<<blocks, kThreads, 0, stream>>>(x, n);
  finish<<<1, 1, 0, stream>>>(y, blocks);
}
