// int64_kmer_minimizer_mod: blind set 5, kind 1 (64-bit integer division dominating).
// Minimizer sketch of a DNA read set (bioinformatics): for each of 16 M window starts, the 12 consecutive
// 21-mers (2-bit packed in a uint64, rolled one base at a time) are hashed (a 64-bit mix) and reduced
// modulo the hash-table size, a run-time uint64 (a prime, as the table was sized on the host), and the
// minimum bucket is written. Twelve full 64-bit remainders per window (the slow 64-bit division
// subroutine: the hash uses all 64 bits) outweigh the hash, the 32 one-byte loads (cached: windows overlap)
// and the 4-byte store by far; a power-of-two table (a mask) or a 32-bit fixed-point reduction
// (mulhi(hash32, size)) would remove them.
// Usage: ./int64_kmer_minimizer_mod [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

constexpr int kK = 21, kW = 12;

__host__ __device__ inline uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

__host__ __device__ inline uint32_t minimizer_at(const uint8_t* seq, long p, uint64_t table_size) {
  const uint64_t mask = (1ull << (2 * kK)) - 1;
  uint64_t kmer = 0;
  for (int j = 0; j < kK; ++j) kmer = (kmer << 2) | seq[p + j];
  uint64_t best = ~0ull;
  for (int w = 0; w < kW; ++w) {
    if (w) kmer = ((kmer << 2) | seq[p + kK - 1 + w]) & mask;
    uint64_t b = mix64(kmer) % table_size;
    best = b < best ? b : best;
  }
  return uint32_t(best);
}

__global__ void int64_kmer_minimizer_mod(const uint8_t* __restrict__ seq, uint32_t* __restrict__ mins,
                                         long windows, uint64_t table_size) {
  long p = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (p >= windows) return;
  mins[p] = minimizer_at(seq, p, table_size);
}

__global__ void make_sequence(uint8_t* seq, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    seq[i] = uint8_t((h >> 7) & 3);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const long windows = 1L << 24, len = windows + kK + kW;
  const uint64_t table_size = 2147483647ull * 3;  // sized on the host from the expected distinct k-mers
  uint8_t* seq = device_alloc<uint8_t>(len);
  uint32_t* mins = device_alloc<uint32_t>(windows);
  make_sequence<<<2048, 256>>>(seq, len);
  CK(cudaGetLastError());
  auto launch = [&] {
    int64_kmer_minimizer_mod<<<int(windows / 256), 256>>>(seq, mins, windows, table_size);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<uint8_t> hs(4096);
  for (long p : {0L, 99L, 777777L, windows - 1}) {
    long start = p > 2048 ? p - 2048 : 0;
    CK(cudaMemcpy(hs.data(), seq + start, 4096 < len - start ? 4096 : len - start, cudaMemcpyDeviceToHost));
    uint32_t want = minimizer_at(hs.data(), p - start, table_size);
    uint32_t got = read_back(mins + p);
    if (got != want) fail("wrong minimizer at %ld: %u vs %u\n", p, got, want);
  }
  time_kernel("int64_kmer_minimizer_mod", reps, launch);
  free_device({seq, mins});
  printf("ok\n");
  return 0;
}
