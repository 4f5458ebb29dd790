// barrier_odd_even_tile_sort: blind set 5, kind 1 (a sort spending its time at barriers).
// First pass of a database ORDER BY on a 4 M-row uint32 key column: each 256-thread block sorts a 512-key
// tile in shared memory by odd-even transposition sort, 512 phases, one compare-exchange per thread per
// phase and a __syncthreads after each. The work between two barriers is two shared loads, a compare and two
// stores, so the warps spend most cycles waiting at the barrier (and the 512 phases are O(n) barriers for an
// O(n log^2 n) network's job). A bitonic network in registers and warp shuffles, or cub::BlockRadixSort,
// needs a few dozen barriers per tile.
// Usage: ./barrier_odd_even_tile_sort [reps]
#include <algorithm>
#include <cstdint>

#include "../kernels/example_common.cuh"

constexpr int kTileKeys = 512;

__global__ void barrier_odd_even_tile_sort(const uint32_t* __restrict__ keys, uint32_t* __restrict__ sorted) {
  __shared__ uint32_t s[kTileKeys];
  const uint32_t* in = keys + (size_t)blockIdx.x * kTileKeys;
  s[threadIdx.x] = in[threadIdx.x];
  s[threadIdx.x + blockDim.x] = in[threadIdx.x + blockDim.x];
  __syncthreads();
  for (int phase = 0; phase < kTileKeys; ++phase) {
    int i = 2 * threadIdx.x + (phase & 1);
    if (i + 1 < kTileKeys) {
      uint32_t a = s[i], b = s[i + 1];
      if (a > b) {
        s[i] = b;
        s[i + 1] = a;
      }
    }
    __syncthreads();
  }
  uint32_t* out = sorted + (size_t)blockIdx.x * kTileKeys;
  out[threadIdx.x] = s[threadIdx.x];
  out[threadIdx.x + blockDim.x] = s[threadIdx.x + blockDim.x];
}

__global__ void make_keys(uint32_t* k, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t h = uint32_t(i) * 2654435761u ^ 0x5bd1e995u;
    h ^= h >> 13;
    h *= 0x85ebca6bu;
    h ^= h >> 16;
    k[i] = h;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n = size_t(1) << 22;
  const int tiles = int(n / kTileKeys);
  uint32_t* keys = device_alloc<uint32_t>(n);
  uint32_t* sorted = device_alloc<uint32_t>(n);
  make_keys<<<1024, 256>>>(keys, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    barrier_odd_even_tile_sort<<<tiles, kTileKeys / 2>>>(keys, sorted);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<uint32_t> a(kTileKeys), b(kTileKeys);
  for (int t : {0, 1, tiles / 3, tiles - 1}) {
    CK(cudaMemcpy(a.data(), keys + (size_t)t * kTileKeys, kTileKeys * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), sorted + (size_t)t * kTileKeys, kTileKeys * 4, cudaMemcpyDeviceToHost));
    std::sort(a.begin(), a.end());
    if (a != b) fail("tile %d not sorted\n", t);
  }
  time_kernel("barrier_odd_even_tile_sort", reps, launch);
  free_device({keys, sorted});
  printf("ok\n");
  return 0;
}
