// graph_indegree_hub_atomics: blind set 4, kind 6 (atomic contention, not imbalance).
// In-degree counting over the edge list of a social graph of 4 M vertices and 32 M edges whose
// destinations are dominated by a few celebrities: half of the edges point at one of 8 hub vertices.
// One thread per edge does atomicAdd(&indeg[dst], 1) (grid-stride, uniform blocks, coalesced 4-byte
// reads of the destination array): 16 M same-address atomics on 8 counters serialize in the L2 slices
// that hold them, while the streaming read of 128 MB would take tens of microseconds. Warp-level
// aggregation (match_any + one atomic per distinct key) or per-block privatized hub counters would fix
// it; the work per thread is uniform, so this is not load imbalance.
// Usage: ./graph_indegree_hub_atomics [reps]
#include "../kernels/example_common.cuh"

constexpr int kVertices = 1 << 22, kHubs = 8;

__global__ void graph_indegree_hub_atomics(const int* __restrict__ dst, size_t n_edges,
                                           int* __restrict__ indeg) {
  for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < n_edges;
       e += (size_t)gridDim.x * blockDim.x)
    atomicAdd(&indeg[dst[e]], 1);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const size_t n_edges = size_t(32) << 20;
  std::vector<int> hdst(n_edges);
  unsigned long long s = 0x2545F4914F6CDD1Dull;
  for (size_t e = 0; e < n_edges; ++e) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    unsigned r = unsigned(s >> 32);
    hdst[e] = (r & 1) ? int((r >> 1) % kHubs) * 524287 % kVertices : int((r >> 1) % kVertices);
  }
  int* dst = device_alloc<int>(n_edges);
  int* indeg = device_alloc<int>(kVertices);
  CK(cudaMemcpy(dst, hdst.data(), n_edges * sizeof(int), cudaMemcpyHostToDevice));
  const int blocks = sm_count() * 8;
  auto launch = [&] {
    CK(cudaMemsetAsync(indeg, 0, kVertices * sizeof(int)));
    graph_indegree_hub_atomics<<<blocks, 256>>>(dst, n_edges, indeg);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<int> want(kVertices, 0), got(kVertices);
  for (size_t e = 0; e < n_edges; ++e) ++want[hdst[e]];
  CK(cudaMemcpy(got.data(), indeg, kVertices * sizeof(int), cudaMemcpyDeviceToHost));
  for (int v = 0; v < kVertices; ++v)
    if (got[v] != want[v]) fail("wrong in-degree of %d: %d vs %d\n", v, got[v], want[v]);
  time_kernel("graph_indegree_hub_atomics", reps, launch);
  free_device({dst, indeg});
  printf("ok\n");
  return 0;
}
