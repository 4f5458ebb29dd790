// int64_coo_unravel_index: blind set 6, kind 1 (64-bit integer division dominating the instruction mix).
// Coalescing step of a 4-D sparse tensor (torch.sparse-style): 32 M int64 linear indices into a
// 100 x 50,000 x 3,000 x 777 shape (1.2e13 cells, so the indices and the first quotients exceed 2^32) are
// unravelled into four int32 coordinates, and each entry's hash bucket is linear % 1,000,003 (a run-time
// int64). Four full 64-bit divisions (the slow subroutine: the dividends use more than 32 bits) per entry,
// 24 bytes of coalesced traffic per entry (768 MB): the integer pipes, not DRAM, limit it. Sorting by the
// index and unravelling once per unique value, or 32-bit magic-number division per dimension, is the fix.
// Usage: ./int64_coo_unravel_index [reps]
#include <cstdint>

#include "../kernels/example_common.cuh"

__global__ void int64_coo_unravel_index(const int64_t* __restrict__ linear, int4* __restrict__ coords,
                                        int* __restrict__ bucket, int64_t d1, int64_t d2, int64_t d3,
                                        int64_t buckets, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int64_t v = linear[i];
  int64_t i3 = v % d3;
  v /= d3;
  int64_t i2 = v % d2;
  v /= d2;
  int64_t i1 = v % d1;
  int64_t i0 = v / d1;
  coords[i] = make_int4(int(i0), int(i1), int(i2), int(i3));
  bucket[i] = int(linear[i] % buckets);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 25;
  const int64_t d0 = 100, d1 = 50000, d2 = 3000, d3 = 777, buckets = 1000003;
  const int64_t cells = d0 * d1 * d2 * d3;
  std::vector<int64_t> hl(n);
  uint64_t s = 88172645463325252ull;
  for (int i = 0; i < n; ++i) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    hl[i] = int64_t(s % uint64_t(cells));
  }
  int64_t* linear = device_alloc<int64_t>(n);
  int4* coords = device_alloc<int4>(n);
  int* bucket = device_alloc<int>(n);
  CK(cudaMemcpy(linear, hl.data(), sizeof(int64_t) * n, cudaMemcpyHostToDevice));
  auto launch = [&] {
    int64_coo_unravel_index<<<n / 256, 256>>>(linear, coords, bucket, d1, d2, d3, buckets, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 1, 99999, n / 2, n - 1}) {
    int4 c = read_back(coords + i);
    int64_t back = ((int64_t(c.x) * d1 + c.y) * d2 + c.z) * d3 + c.w;
    int b = read_back(bucket + i);
    if (back != hl[i] || b != int(hl[i] % buckets) || c.w >= d3 || c.z >= d2 || c.y >= d1)
      fail("wrong unravel at %d\n", i);
  }
  time_kernel("int64_coo_unravel_index", reps, launch);
  free_device({linear, coords, bucket});
  printf("ok\n");
  return 0;
}
