// bellman_ford_launches: blind set 6, kind 7 (launch overhead of thousands of tiny launches).
// Single-source shortest paths on a 4,096-node sensor-network graph (in-degree 8, integer weights) by
// textbook Bellman-Ford: V - 1 = 4,095 relaxation rounds, one launch of bf_relax per round (pull style:
// each node takes the minimum over its in-edges, ping-ponging two distance arrays), 16 blocks of 256 threads
// and about a microsecond of cached work per launch. The host enqueues the 4,095 launches back to back, so
// launch cost and inter-kernel gaps dominate the run. Stopping at convergence, running many rounds per
// launch in one block (the graph is about 300 KB), or a CUDA graph is the fix.
// Usage: ./bellman_ford_launches [reps]
#include "../kernels/example_common.cuh"

constexpr int kNodes = 4096, kDeg = 8, kInf = 1 << 29;

__global__ void bf_relax(const int* __restrict__ src, const int* __restrict__ wt, const int* __restrict__ cur,
                         int* __restrict__ next) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= kNodes) return;
  int d = cur[v];
  for (int e = v * kDeg; e < (v + 1) * kDeg; ++e) d = min(d, cur[src[e]] + wt[e]);
  next[v] = d;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<int> hsrc(kNodes * kDeg), hwt(kNodes * kDeg), init(kNodes, kInf);
  for (int e = 0; e < kNodes * kDeg; ++e) {
    unsigned h = unsigned(e) * 2654435761u;
    h ^= h >> 13;
    int v = e / kDeg;
    // mostly local links (a chain of neighbours) plus a few long ones: long shortest paths, slow convergence
    hsrc[e] = (e % kDeg < 6) ? (v + kNodes - 1 - int(h % 3)) % kNodes : int(h % kNodes);
    hwt[e] = 1 + int((h >> 8) % 50);
  }
  init[0] = 0;
  int* src = device_alloc<int>(kNodes * kDeg);
  int* wt = device_alloc<int>(kNodes * kDeg);
  int* a = device_alloc<int>(kNodes);
  int* b = device_alloc<int>(kNodes);
  CK(cudaMemcpy(src, hsrc.data(), sizeof(int) * kNodes * kDeg, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(wt, hwt.data(), sizeof(int) * kNodes * kDeg, cudaMemcpyHostToDevice));
  const int rounds = kNodes - 1;
  auto run = [&] {
    CK(cudaMemcpy(a, init.data(), sizeof(int) * kNodes, cudaMemcpyHostToDevice));
    for (int r = 0; r < rounds; ++r) {
      bf_relax<<<kNodes / 256, 256>>>(src, wt, r % 2 ? b : a, r % 2 ? a : b);
      CK(cudaGetLastError());
    }
  };
  run();
  CK(cudaDeviceSynchronize());
  std::vector<int> cur = init, next(kNodes), got(kNodes);
  for (int r = 0; r < rounds; ++r) {
    for (int v = 0; v < kNodes; ++v) {
      int d = cur[v];
      for (int e = v * kDeg; e < (v + 1) * kDeg; ++e) d = std::min(d, cur[hsrc[e]] + hwt[e]);
      next[v] = d;
    }
    cur.swap(next);
  }
  CK(cudaMemcpy(got.data(), rounds % 2 ? b : a, sizeof(int) * kNodes, cudaMemcpyDeviceToHost));
  if (got != cur) fail("wrong distances\n");
  time_kernel("bellman_ford_launches_run", reps > 0 ? 3 : 0, run);
  free_device({src, wt, a, b});
  printf("ok\n");
  return 0;
}
