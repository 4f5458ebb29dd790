// pagerank_small_graph_launches: blind set 7, kind 7 (launch overhead of thousands of tiny launches).
// PageRank of a small citation graph (4,096 nodes, in-degree 8, CSR of incoming edges), iterated a fixed
// 2,000 times with one launch of pagerank_pull per iteration (16 blocks of 256 threads, 8 gathers and a few
// FMAs per node, ping-pong rank buffers): well under 2 us of work per launch, so the GPU mostly waits for
// the next launch. Iterating inside one cooperative/persistent kernel or a CUDA graph is the fix.
// Usage: ./pagerank_small_graph_launches [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kNodes = 4096, kDeg = 8, kIters = 2000;

__host__ __device__ inline int in_neighbor(int v, int e) {
  unsigned h = unsigned(v * kDeg + e) * 2654435761u;
  h ^= h >> 13;
  return int(h % kNodes);
}

__global__ void pagerank_pull(const int* __restrict__ src, const float* __restrict__ rank_in,
                              const float* __restrict__ inv_outdeg, float* __restrict__ rank_out,
                              float damping) {
  int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= kNodes) return;
  float s = 0.0f;
  for (int e = 0; e < kDeg; ++e) {
    int u = src[v * kDeg + e];
    s += rank_in[u] * inv_outdeg[u];
  }
  rank_out[v] = (1.0f - damping) / kNodes + damping * s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<int> hsrc(kNodes * kDeg), outdeg(kNodes, 0);
  for (int v = 0; v < kNodes; ++v)
    for (int e = 0; e < kDeg; ++e) ++outdeg[hsrc[v * kDeg + e] = in_neighbor(v, e)];
  std::vector<float> hinv(kNodes), hrank(kNodes, 1.0f / kNodes);
  for (int v = 0; v < kNodes; ++v) hinv[v] = outdeg[v] ? 1.0f / outdeg[v] : 0.0f;
  int* src = device_alloc<int>(kNodes * kDeg);
  float* inv = device_alloc<float>(kNodes);
  float* r[2] = {device_alloc<float>(kNodes), device_alloc<float>(kNodes)};
  CK(cudaMemcpy(src, hsrc.data(), hsrc.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(inv, hinv.data(), kNodes * 4, cudaMemcpyHostToDevice));
  const float damping = 0.85f;
  auto run = [&] {
    CK(cudaMemcpy(r[0], hrank.data(), kNodes * 4, cudaMemcpyHostToDevice));
    for (int it = 0; it < kIters; ++it) {
      pagerank_pull<<<kNodes / 256, 256>>>(src, r[it & 1], inv, r[(it + 1) & 1], damping);
      CK(cudaGetLastError());
    }
  };
  run();
  CK(cudaDeviceSynchronize());
  std::vector<float> a(hrank), b(kNodes), got(kNodes);
  for (int it = 0; it < kIters; ++it) {
    for (int v = 0; v < kNodes; ++v) {
      float s = 0.0f;
      for (int e = 0; e < kDeg; ++e) s += a[hsrc[v * kDeg + e]] * hinv[hsrc[v * kDeg + e]];
      b[v] = (1.0f - damping) / kNodes + damping * s;
    }
    a.swap(b);
  }
  CK(cudaMemcpy(got.data(), r[kIters & 1], kNodes * 4, cudaMemcpyDeviceToHost));
  for (int v = 0; v < kNodes; ++v)
    if (!(std::fabs(got[v] - a[v]) <= 1e-3f * a[v] + 1e-8f))
      fail("wrong rank %d: %g vs %g\n", v, got[v], a[v]);
  time_kernel("pagerank_small_graph_launches_run", reps > 0 ? 3 : 0, run);
  free_device({src, inv, r[0], r[1]});
  printf("ok\n");
  return 0;
}
