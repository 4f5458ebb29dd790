// barrier_split_radix_sort_tiles: blind set 7, kind 1 (barrier-bound).
// Sorting 16-bit bucket keys (e.g. Morton cell ids for a particle sort) in tiles of 1,024, the GPU Gems
// "split" radix sort: one pass per bit (16 passes), each pass an inclusive Hillis-Steele scan of the 0-flags
// over the 1,024-thread block (10 levels, two __syncthreads each) and a scatter: about 370 barriers per tile
// with a shared load, an add and a store between them. 4,096 tiles (4 M keys, 32 MB of traffic): the warps
// wait on the barriers most of the time; a warp-shuffle scan or a 4-bit digit per pass would cut them
// tenfold. Usage: ./barrier_split_radix_sort_tiles [reps]
#include <algorithm>

#include "../kernels/example_common.cuh"

constexpr int kTile = 1024, kBits = 16;

__global__ void __launch_bounds__(kTile)
    barrier_split_radix_sort_tiles(const unsigned* __restrict__ in, unsigned* __restrict__ out) {
  __shared__ unsigned keys[kTile];
  __shared__ int scan[kTile];
  const int t = threadIdx.x;
  keys[t] = in[size_t(blockIdx.x) * kTile + t];
  __syncthreads();
  for (int bit = 0; bit < kBits; ++bit) {
    unsigned k = keys[t];
    int zero = ((k >> bit) & 1u) == 0;
    scan[t] = zero;
    __syncthreads();
    for (int off = 1; off < kTile; off <<= 1) {
      int v = t >= off ? scan[t - off] : 0;
      __syncthreads();
      scan[t] += v;
      __syncthreads();
    }
    int zeros_before = scan[t] - zero, total_zeros = scan[kTile - 1];
    int dst = zero ? zeros_before : total_zeros + (t - zeros_before);
    __syncthreads();
    keys[dst] = k;
    __syncthreads();
  }
  out[size_t(blockIdx.x) * kTile + t] = keys[t];
}

__global__ void fill_keys(unsigned* p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u;
    h ^= h >> 15;
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    p[i] = h & 0xffffu;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tiles = 4096;
  const size_t n = size_t(tiles) * kTile;
  unsigned* in = device_alloc<unsigned>(n);
  unsigned* out = device_alloc<unsigned>(n);
  fill_keys<<<1024, 256>>>(in, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    barrier_split_radix_sort_tiles<<<tiles, kTile>>>(in, out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> hi(kTile), ho(kTile);
  for (int tile : {0, 2049, tiles - 1}) {
    CK(cudaMemcpy(hi.data(), in + size_t(tile) * kTile, kTile * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ho.data(), out + size_t(tile) * kTile, kTile * 4, cudaMemcpyDeviceToHost));
    std::sort(hi.begin(), hi.end());
    if (hi != ho) fail("tile %d not sorted\n", tile);
  }
  time_kernel("barrier_split_radix_sort_tiles", reps, launch);
  free_device({in, out});
  printf("ok\n");
  return 0;
}
