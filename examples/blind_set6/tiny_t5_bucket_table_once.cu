// tiny_t5_bucket_table_once: blind set 6, kind healthy (a tiny kernel launched once).
// The T5 relative-position bucket table of a 2,048-token encoder (relative positions -2047..2047, 32
// bidirectional buckets, max distance 128, log-spaced beyond 8), built once at model load: 4,095 ints
// written by 16 blocks with one logf per entry, a few microseconds once per process: nothing to optimize.
// Usage: ./tiny_t5_bucket_table_once [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kMaxPos = 2048, kBuckets = 32, kMaxDistance = 128;

__host__ __device__ inline int t5_bucket(int rel) {
  int half = kBuckets / 2, ret = rel > 0 ? half : 0, n = rel < 0 ? -rel : rel, exact = half / 2;
  if (n < exact) return ret + n;
  int large = exact + int(logf(float(n) / exact) / logf(float(kMaxDistance) / exact) * (half - exact));
  return ret + (large < half - 1 ? large : half - 1);
}

__global__ void tiny_t5_bucket_table_once(int* __restrict__ table) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 2 * kMaxPos - 1) table[i] = t5_bucket(i - (kMaxPos - 1));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 2 * kMaxPos - 1;
  int* table = device_alloc<int>(n);
  auto launch = [&] {
    tiny_t5_bucket_table_once<<<(n + 255) / 256, 256>>>(table);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<int> got(n);
  CK(cudaMemcpy(got.data(), table, n * 4, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    int want = t5_bucket(i - (kMaxPos - 1));
    if (std::abs(got[i] - want) > 1 || got[i] < 0 || got[i] >= kBuckets) fail("wrong bucket at %d: %d vs %d\n", i, got[i], want);
  }
  time_kernel("tiny_t5_bucket_table_once", reps, launch);
  free_device({table});
  printf("ok\n");
  return 0;
}
