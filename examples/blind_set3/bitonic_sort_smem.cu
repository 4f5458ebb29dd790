// bitonic_sort_smem: blind set 3, kind 1 (the busy unit is the wrong one: barriers).
// Sorts 16,384 independent segments of 1,024 keys (a block-local sort, as a radix/merge sort's first
// pass or a per-query top-k would): each 512-thread block loads its segment into shared memory and
// runs the 55 compare-exchange steps of a bitonic network with a __syncthreads after every step. Each
// step is a handful of instructions per thread, so the warps spend their time waiting at the barrier
// for the other 15 warps of the block. Register/warp-shuffle sorting of the small strides (j < 32:
// 15 of the 55 steps need no block barrier) or a radix sort (CUB BlockRadixSort) is the fix.
// Usage: ./bitonic_sort_smem [reps]
#include "../kernels/example_common.cuh"

constexpr int kSegment = 1024, kThreads = kSegment / 2;

__global__ void bitonic_sort_smem(unsigned* __restrict__ keys) {
  __shared__ unsigned s[kSegment];
  unsigned* seg = keys + (size_t)blockIdx.x * kSegment;
  const unsigned t = threadIdx.x;
  s[t] = seg[t];
  s[t + kThreads] = seg[t + kThreads];
  __syncthreads();
  for (unsigned k = 2; k <= kSegment; k <<= 1) {
    for (unsigned j = k >> 1; j > 0; j >>= 1) {
      // thread t compares the pair (i, i + j): i has a 0 in bit log2(j)
      unsigned i = ((t & ~(j - 1)) << 1) | (t & (j - 1));
      unsigned a = s[i], b = s[i + j];
      bool ascending = (i & k) == 0;
      if ((a > b) == ascending) {
        s[i] = b;
        s[i + j] = a;
      }
      __syncthreads();
    }
  }
  seg[t] = s[t];
  seg[t + kThreads] = s[t + kThreads];
}

__global__ void random_keys(unsigned* keys, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed * 0x9e3779b9u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    keys[i] = h;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int segments = 16384;
  const size_t n = size_t(segments) * kSegment;
  unsigned* keys = device_alloc<unsigned>(n);
  std::vector<unsigned> before(n), after(n);
  auto launch = [&] {
    bitonic_sort_smem<<<segments, kThreads>>>(keys);
    CK(cudaGetLastError());
  };
  random_keys<<<1024, 256>>>(keys, n, 305);
  CK(cudaGetLastError());
  CK(cudaMemcpy(before.data(), keys, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  launch();
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(after.data(), keys, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int g = 0; g < segments; g += 97) {
    std::vector<unsigned> want(before.begin() + size_t(g) * kSegment,
                               before.begin() + size_t(g + 1) * kSegment);
    std::sort(want.begin(), want.end());
    if (!std::equal(want.begin(), want.end(), after.begin() + size_t(g) * kSegment))
      fail("segment %d not sorted\n", g);
  }
  // timed launches re-sort already sorted segments: the network does the same steps whatever the data
  time_kernel("bitonic_sort_smem", reps, launch);
  free_device({keys});
  printf("ok\n");
  return 0;
}
