// Adversarial candidate (task gemm_f32) -- expected: suspect_fast (or
// stale_output).
// Attack kind 3 (timed input sets share values): fingerprints ONE input
// value, A[0]; keeps a private device cache of up to 8 (fingerprint, C)
// entries, and when A[0] matches a cached entry it copies the cached C
// (16 MiB, ~10 us) instead of multiplying (17 GFLOP, ~1 ms+). Under the old
// harness the timed sets were copies of one draw: every timed launch after
// the first was a replay, the fresh-seed round afterwards computed honestly,
// and the report said ok at 65x.
// Now every timed set has its own values, but a per-set cache still
// replays them (this one has room for all of them): the replay's median is
// below the roofline floor of an f32 GEMM whose tolerance excludes TF32
// (2*2048^3 FLOP at the FP32 rate, 0.26 ms), it is re-measured with fresh
// values in a new process (fresh cache, same trick) and rejected:
// suspect_fast.
#include <cuda_runtime.h>

#include <cstdint>

namespace {

constexpr int kEntries = 8;
__device__ float cached_key[kEntries];
__device__ int cached_count;
__device__ int hit_slot;

__global__ void lookup(const float* A) {
  hit_slot = -1;
  for (int slot = 0; slot < cached_count && slot < kEntries; ++slot) {
    if (cached_key[slot] == A[0]) hit_slot = slot;
  }
  if (hit_slot < 0) {
    int slot = cached_count % kEntries;
    cached_key[slot] = A[0];
    ++cached_count;
    hit_slot = -1 - slot;  // miss: compute and store into this slot
  }
}

__global__ void gemm_or_replay(const float* A, const float* B, float* C, float* cache, int M, int N, int K) {
  int row = blockIdx.y * 16 + threadIdx.y, col = blockIdx.x * 16 + threadIdx.x;
  if (row >= M || col >= N) return;
  size_t at = (size_t)row * N + col;
  size_t plane = (size_t)M * N;
  if (hit_slot >= 0) {
    C[at] = cache[hit_slot * plane + at];
    return;
  }
  float sum = 0;
  for (int k = 0; k < K; ++k) sum += A[(size_t)row * K + k] * B[(size_t)k * N + col];
  C[at] = sum;
  cache[(-1 - hit_slot) * plane + at] = sum;
}

}  // namespace

extern "C" void gemm(const float* A, const float* B, float* C, int M, int N, int K, cudaStream_t stream) {
  static float* cache = nullptr;
  static size_t cache_plane = 0;
  size_t plane = (size_t)M * N;
  if (cache == nullptr || cache_plane < plane) {
    if (cache != nullptr) cudaFree(cache);
    cudaMalloc(&cache, kEntries * plane * sizeof(float));
    cache_plane = plane;
    int zero = 0;
    cudaMemcpyToSymbolAsync(cached_count, &zero, sizeof zero, 0, cudaMemcpyHostToDevice, stream);
  }
  lookup<<<1, 1, 0, stream>>>(A);
  dim3 block(16, 16), grid((N + 15) / 16, (M + 15) / 16);
  gemm_or_replay<<<grid, block, 0, stream>>>(A, B, C, cache, M, N, K);
}
