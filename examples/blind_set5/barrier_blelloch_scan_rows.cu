// barrier_blelloch_scan_rows: blind set 5, kind 1 (a scan spending its time at barriers).
// Exclusive prefix sums of 16,384 rows of 1,024 ints (stream-compaction offsets per row), the textbook
// work-efficient (Blelloch) scan: one 512-thread block per row, two elements per thread, an up-sweep and a
// down-sweep of 10 levels each with a __syncthreads after every level (22 barriers per row). In most
// levels only a few warps have work (512, 256, ... 1 active threads) while the whole block waits at the
// next barrier; the strided tree indices add shared-memory bank conflicts on top. A warp-shuffle scan per
// warp plus one pass over the 16 warp totals (cub::BlockScan) needs two barriers.
// Usage: ./barrier_blelloch_scan_rows [reps]
#include "../kernels/example_common.cuh"

constexpr int kRow = 1024;

__global__ void barrier_blelloch_scan_rows(const int* __restrict__ in, int* __restrict__ out) {
  __shared__ int s[kRow];
  const int t = threadIdx.x;
  const int* row = in + (size_t)blockIdx.x * kRow;
  s[2 * t] = row[2 * t];
  s[2 * t + 1] = row[2 * t + 1];
  int offset = 1;
  for (int d = kRow >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      s[bi] += s[ai];
    }
    offset <<= 1;
  }
  if (t == 0) s[kRow - 1] = 0;
  for (int d = 1; d < kRow; d <<= 1) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1, bi = offset * (2 * t + 2) - 1;
      int v = s[ai];
      s[ai] = s[bi];
      s[bi] += v;
    }
  }
  __syncthreads();
  int* o = out + (size_t)blockIdx.x * kRow;
  o[2 * t] = s[2 * t];
  o[2 * t + 1] = s[2 * t + 1];
}

__global__ void make_flags(int* f, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    f[i] = ((unsigned(i) * 2654435761u) >> 29) & 1 ? (int)(i % 5) : 0;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int rows = 16384;
  const size_t n = size_t(rows) * kRow;
  int* in = device_alloc<int>(n);
  int* out = device_alloc<int>(n);
  make_flags<<<1024, 256>>>(in, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    barrier_blelloch_scan_rows<<<rows, kRow / 2>>>(in, out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<int> a(kRow), b(kRow);
  for (int r : {0, 5, rows - 1}) {
    CK(cudaMemcpy(a.data(), in + (size_t)r * kRow, kRow * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), out + (size_t)r * kRow, kRow * 4, cudaMemcpyDeviceToHost));
    int acc = 0;
    for (int i = 0; i < kRow; ++i) {
      if (b[i] != acc) fail("wrong scan at row %d col %d: %d vs %d\n", r, i, b[i], acc);
      acc += a[i];
    }
  }
  time_kernel("barrier_blelloch_scan_rows", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
