// dependent_chain_gather: blind set 2, memory latency with too little in flight.
// Each thread follows a chain of 24 dependent indices through a 256 MB table (next = table[next]), the
// classic pointer chase: one load in flight per warp at a time, each a DRAM round trip, at full
// occupancy the SMs still mostly wait. DRAM bandwidth is far from its peak; independent chains per thread
// (several walks interleaved) or prefetching would put more bytes in flight.
// Usage: ./dependent_chain_gather [reps]
#include "../kernels/example_common.cuh"

__global__ void make_chain(unsigned* __restrict__ next, unsigned n) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    next[i] = (i * 2654435761u + 40503u) & (n - 1);  // a scattered permutation-like map, n a power of two
}

__global__ void dependent_chain_gather(const unsigned* __restrict__ next, unsigned* __restrict__ out, int walkers) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= walkers) return;
  unsigned at = t * 977u;
#pragma unroll 1
  for (int step = 0; step < 24; ++step) at = next[at & ((1u << 26) - 1)];
  out[t] = at;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const unsigned n = 1u << 26;  // 256 MB
  const int walkers = 1 << 20;
  unsigned* next = device_alloc<unsigned>(n);
  unsigned* out = device_alloc<unsigned>(walkers);
  make_chain<<<1024, 256>>>(next, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    dependent_chain_gather<<<walkers / 256, 256>>>(next, out, walkers);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  unsigned at = 5u * 977u;
  for (int s = 0; s < 24; ++s) at = ((at & (n - 1)) * 2654435761u + 40503u) & (n - 1);
  if (read_back(out + 5) != at) fail("wrong result\n");
  time_kernel("dependent_chain_gather", reps, launch);
  free_device({next, out});
  printf("ok\n");
  return 0;
}
