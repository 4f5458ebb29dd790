// atomic_token_counts_hot: blind set 5, kind 6 (atomic contention on hot counters).
// Token frequency counts over a padded batch of 64 M token ids (a data-loader statistic for a 50,000-word
// vocabulary), one global atomicAdd per token into the count table. Half the tokens are the pad id 0 and
// another fifth are ten frequent ids (punctuation, "the", ...), interleaved through the batch, so most
// atomics in every warp target the same handful of addresses: the L2 atomic units serialize them and the
// kernel runs far below the 256 MB of id reads' bandwidth. A shared-memory histogram per block (or
// warp-aggregated __match_any_sync counts) with one global add per bin per block removes the contention.
// Usage: ./atomic_token_counts_hot [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

constexpr int kVocab = 50000;

__host__ __device__ inline int token_at(size_t i) {
  uint32_t h = uint32_t(i) * 2654435761u ^ 0x27d4eb2du;
  h ^= h >> 15;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  uint32_t u = h % 100;
  if (u < 50) return 0;                       // padding
  if (u < 70) return 1 + int((h >> 8) % 10);  // frequent ids
  return 11 + int((h >> 8) % (kVocab - 11));  // the rest of the vocabulary
}

__global__ void make_tokens(int* t, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    t[i] = token_at(i);
}

__global__ void atomic_token_counts_hot(const int* __restrict__ tokens, unsigned* __restrict__ counts,
                                        size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    atomicAdd(&counts[tokens[i]], 1u);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(64) << 20;
  int* tokens = device_alloc<int>(n);
  unsigned* counts = device_alloc<unsigned>(kVocab);
  make_tokens<<<2048, 256>>>(tokens, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    CK(cudaMemsetAsync(counts, 0, kVocab * sizeof(unsigned)));
    atomic_token_counts_hot<<<sm_count() * 16, 256>>>(tokens, counts, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> want(kVocab, 0), got(kVocab);
  for (size_t i = 0; i < n; ++i) ++want[token_at(i)];
  CK(cudaMemcpy(got.data(), counts, kVocab * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int v = 0; v < kVocab; ++v)
    if (got[v] != want[v]) fail("wrong count for id %d: %u vs %u\n", v, got[v], want[v]);
  time_kernel("atomic_token_counts_hot", reps, launch);
  free_device({tokens, counts});
  printf("ok\n");
  return 0;
}
