// barrier_smith_waterman_antidiag: blind set 6, kind 1 (barrier-bound).
// Local alignment scores (Smith-Waterman, linear gap) of 16,384 read/reference pairs of 256 bases
// (bioinformatics read mapping), one 256-thread block per pair, thread i owning row i of the DP matrix,
// the matrix swept by anti-diagonals held in three rolling shared-memory rows: 511 anti-diagonal steps, each
// one cell per active thread (three shared loads, a base compare, a few max) followed by a __syncthreads.
// On average half of the block's rows are outside the current anti-diagonal and go straight to the barrier,
// and the others do a dozen instructions: the warps spend most of their time waiting at barriers (8 MB of
// global input in all). One pair per warp with the wavefront passed by shuffles (or inter-task
// parallelism, one pair per thread) is the fix.
// Usage: ./barrier_smith_waterman_antidiag [reps]
#include "../kernels/example_common.cuh"

constexpr int kLen = 256, kMatch = 2, kMismatch = -1, kGap = 1;

__global__ void __launch_bounds__(kLen) barrier_smith_waterman_antidiag(const char* __restrict__ a, const char* __restrict__ b,
                                                                       int* __restrict__ best) {
  __shared__ char sb[kLen];
  __shared__ int h[3][kLen + 1];  // anti-diagonals by row i at index i + 1; index 0 is the zero border row
  __shared__ int warp_max[kLen / 32];
  const int i = threadIdx.x;
  const char ai = a[size_t(blockIdx.x) * kLen + i];
  sb[i] = b[size_t(blockIdx.x) * kLen + i];
  for (int r = 0; r < 3; ++r) h[r][i + 1] = 0;
  if (i == 0) h[0][0] = h[1][0] = h[2][0] = 0;
  __syncthreads();
  int m = 0;
  for (int d = 0; d < 2 * kLen - 1; ++d) {
    const int cur = d % 3, prev = (d + 2) % 3, prev2 = (d + 1) % 3, j = d - i;
    int v = 0;
    if (j >= 0 && j < kLen) {
      int diag = h[prev2][i], up = h[prev][i], left = h[prev][i + 1];
      v = max(0, max(diag + (ai == sb[j] ? kMatch : kMismatch), max(up, left) - kGap));
      m = max(m, v);
    }
    h[cur][i + 1] = v;
    __syncthreads();
  }
  for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
  if (i % 32 == 0) warp_max[i / 32] = m;
  __syncthreads();
  if (i == 0) {
    for (int w = 1; w < kLen / 32; ++w) m = max(m, warp_max[w]);
    best[blockIdx.x] = m;
  }
}

static int smith_waterman_cpu(const char* a, const char* b) {
  std::vector<int> h((kLen + 1) * (kLen + 1), 0);
  int m = 0;
  for (int i = 1; i <= kLen; ++i)
    for (int j = 1; j <= kLen; ++j) {
      int v = std::max(0, std::max(h[(i - 1) * (kLen + 1) + j - 1] + (a[i - 1] == b[j - 1] ? kMatch : kMismatch),
                                   std::max(h[(i - 1) * (kLen + 1) + j], h[i * (kLen + 1) + j - 1]) - kGap));
      h[i * (kLen + 1) + j] = v;
      m = std::max(m, v);
    }
  return m;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int pairs = 16384;
  const size_t n = size_t(pairs) * kLen;
  std::vector<char> ha(n), hb(n);
  const char bases[4] = {'A', 'C', 'G', 'T'};
  for (size_t k = 0; k < n; ++k) {
    unsigned h = unsigned(k) * 2654435761u;
    h ^= h >> 15;
    ha[k] = bases[h & 3];
    // the reference is the read with about one base in eight changed: real alignments, not noise
    hb[k] = (h >> 8) % 8 == 0 ? bases[(h >> 11) & 3] : ha[k];
  }
  char* a = device_alloc<char>(n);
  char* b = device_alloc<char>(n);
  int* best = device_alloc<int>(pairs);
  CK(cudaMemcpy(a, ha.data(), n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(b, hb.data(), n, cudaMemcpyHostToDevice));
  auto launch = [&] {
    barrier_smith_waterman_antidiag<<<pairs, kLen>>>(a, b, best);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int p : {0, 999, pairs - 1}) {
    int want = smith_waterman_cpu(&ha[size_t(p) * kLen], &hb[size_t(p) * kLen]), got = read_back(best + p);
    if (got != want) fail("wrong alignment score of pair %d: %d vs %d\n", p, got, want);
  }
  time_kernel("barrier_smith_waterman_antidiag", reps, launch);
  free_device({a, b, best});
  printf("ok\n");
  return 0;
}
