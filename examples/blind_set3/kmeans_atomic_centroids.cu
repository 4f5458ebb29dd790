// kmeans_atomic_centroids: blind set 3, kind 6 (contended atomics, not imbalance).
// The update step of k-means on 8 M points in 4-D with k = 16: one thread per point adds its coordinates
// and a count to its cluster with five global atomicAdds. Every block is the same size and does the same
// work, but all 40 M atomics land on 80 addresses (16 clusters x 5), so they serialize in L2. A per-block
// (shared-memory) or per-warp reduction of the 16 partial sums before one global atomic each is the fix.
// Usage: ./kmeans_atomic_centroids [reps]
#include "../kernels/example_common.cuh"

constexpr int kClusters = 16;

__global__ void kmeans_atomic_centroids(const float4* __restrict__ pts, const int* __restrict__ assign,
                                        float* __restrict__ sums, unsigned* __restrict__ counts, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int c = assign[i];
  float4 p = pts[i];
  atomicAdd(&sums[c * 4 + 0], p.x);
  atomicAdd(&sums[c * 4 + 1], p.y);
  atomicAdd(&sums[c * 4 + 2], p.z);
  atomicAdd(&sums[c * 4 + 3], p.w);
  atomicAdd(&counts[c], 1u);
}

// The assignment of the previous step (a deterministic stand-in: a hash of the point's index).
__global__ void assign_clusters(int* assign, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned h = unsigned(i) * 2654435761u;
    h ^= h >> 15;
    assign[i] = int(h % kClusters);
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 1 << 23;
  float4* pts = device_alloc<float4>(n);
  int* assign = device_alloc<int>(n);
  float* sums = device_alloc<float>(kClusters * 4);
  unsigned* counts = device_alloc<unsigned>(kClusters);
  fill_random<<<2048, 256>>>((float*)pts, 4 * size_t(n), 324, 0.0f, 2.0f);
  assign_clusters<<<2048, 256>>>(assign, n);
  CK(cudaGetLastError());
  auto launch = [&] {
    CK(cudaMemsetAsync(sums, 0, kClusters * 4 * sizeof(float)));
    CK(cudaMemsetAsync(counts, 0, kClusters * sizeof(unsigned)));
    kmeans_atomic_centroids<<<(n + 255) / 256, 256>>>(pts, assign, sums, counts, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> hp(n);
  std::vector<int> ha(n);
  CK(cudaMemcpy(hp.data(), pts, n * sizeof(float4), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(ha.data(), assign, n * sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<double> want(kClusters * 4, 0.0);
  std::vector<unsigned> want_count(kClusters, 0);
  for (int i = 0; i < n; ++i) {
    const float4& p = hp[i];
    double* w = &want[ha[i] * 4];
    w[0] += p.x, w[1] += p.y, w[2] += p.z, w[3] += p.w;
    ++want_count[ha[i]];
  }
  std::vector<float> got(kClusters * 4);
  std::vector<unsigned> got_count(kClusters);
  CK(cudaMemcpy(got.data(), sums, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got_count.data(), counts, got_count.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int c = 0; c < kClusters; ++c) {
    if (got_count[c] != want_count[c])
      fail("wrong count of cluster %d: %u vs %u\n", c, got_count[c], want_count[c]);
    for (int d = 0; d < 4; ++d)
      if (!(fabs(got[c * 4 + d] - want[c * 4 + d]) <= 1e-3 * want[c * 4 + d]))
        fail("wrong sum of cluster %d: %f vs %f\n", c, got[c * 4 + d], want[c * 4 + d]);
  }
  time_kernel("kmeans_atomic_centroids", reps, launch);
  free_device({pts, assign, sums, counts});
  printf("ok\n");
  return 0;
}
