// memory_latency_low_mlp: PLANTED BOTTLENECK = memory latency with too little in flight (pointer chasing).
// 4M nodes of 128 bytes (512 MB) are linked into one random cycle. Each warp walks its own stretch of it:
// lane l loads word l of the node (one coalesced 4-byte-per-lane load) and the next node's index is lane 0's
// word. Each load depends on the previous one, so a warp has one DRAM access in flight: long-scoreboard
// stalls dominate and DRAM runs at about half its bandwidth even at full occupancy. The fix: walk several
// lists per warp (independent chains), prefetch, or lay the data out so addresses are known in advance.
// Usage: ./memory_latency_low_mlp [reps]
#include "example_common.cuh"

__global__ void memory_latency_low_mlp(const int* __restrict__ nodes, const int* __restrict__ start,
                                       int* __restrict__ out, int steps) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
  unsigned cur = start[t >> 5];
  int acc = 0;
  for (int s = 0; s < steps; ++s) {
    int v = nodes[(size_t)cur * 32 + lane];
    acc += v;
    cur = (unsigned)__shfl_sync(0xffffffffu, v, 0);  // next pointer: lane 0's word
  }
  out[t] = acc;
}

__global__ void fill_int(int* p, size_t n, unsigned seed) {  // non-zero payload words
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = (int)(((unsigned)i * 2654435761u ^ seed) | 1u);
}
__global__ void set_links(int* nodes, const int* next, int num_nodes) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < num_nodes; i += gridDim.x * blockDim.x)
    nodes[(size_t)i * 32] = next[i];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int num_nodes = 1 << 22, steps = 256;  // 4M x 128 B = 512 MB
  const int sms = sm_count();
  const int blocks = sms * 8, threads = blocks * 256, warps = threads / 32;  // one full wave
  std::vector<int> next(num_nodes), order(num_nodes), start(warps);
  for (int i = 0; i < num_nodes; ++i) next[i] = i;
  unsigned long long rng = 88172645463325252ull;
  for (int i = num_nodes - 1; i > 0; --i) {  // Sattolo: a single random cycle through all nodes
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    std::swap(next[i], next[rng % i]);
  }
  for (int k = 0, cur = 0; k < num_nodes; ++k, cur = next[cur]) order[k] = cur;
  for (int w = 0; w < warps; ++w) start[w] = order[(size_t)w * (num_nodes / warps)];  // disjoint stretches
  int* nodes = device_alloc<int>((size_t)num_nodes * 32);
  int* dnext = device_alloc<int>(num_nodes);
  int* dstart = device_alloc<int>(warps);
  int* out = device_alloc<int>(threads);
  CK(cudaMemcpy(dnext, next.data(), num_nodes * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dstart, start.data(), warps * sizeof(int), cudaMemcpyHostToDevice));
  fill_int<<<4096, 256>>>(nodes, (size_t)num_nodes * 32, 20);
  CK(cudaGetLastError());
  set_links<<<4096, 256>>>(nodes, dnext, num_nodes);
  CK(cudaGetLastError());
  auto launch = [&] {
    memory_latency_low_mlp<<<blocks, 256>>>(nodes, dstart, out, steps);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  int o = read_back(out + 7 * 32);  // lane 0 of warp 7 sums the links it followed
  int acc = 0;
  for (int s = 0, cur = start[7]; s < steps; ++s) {
    acc += next[cur];
    cur = next[cur];
  }
  if (acc != o) fail("wrong result\n");
  time_kernel("memory_latency_low_mlp", reps, launch);
  free_device({nodes, dnext, dstart, out});
  printf("ok\n");
  return 0;
}
