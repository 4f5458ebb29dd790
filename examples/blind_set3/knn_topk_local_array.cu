// knn_topk_local_array: blind set 3, other (local memory).
// Brute-force k-nearest-neighbour search: each of 1,048,576 query threads scans 2,048 reference points
// (4-D, staged through shared memory in tiles of 256) and keeps its 16 best distances and indices in
// per-thread arrays, inserting each better candidate by shifting the arrays with a data-dependent loop.
// The run-time indexing puts both arrays in local memory: every candidate's compare reads the worst
// kept distance from local memory and every insertion shifts local words. A fixed-size register
// sorting network (or a warp-cooperative top-k in shared memory) keeps them out of local memory.
// Usage: ./knn_topk_local_array [reps]
#include "../kernels/example_common.cuh"

constexpr int kK = 16, kTile = 256;

__global__ void knn_topk_local_array(const float4* __restrict__ queries, const float4* __restrict__ refs,
                                     int n_refs, float* __restrict__ out_dist, int* __restrict__ out_idx) {
  __shared__ float4 tile[kTile];
  int q = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = queries[q];
  float best[kK];
  int best_idx[kK];
  for (int k = 0; k < kK; ++k) {
    best[k] = 3.0e38f;
    best_idx[k] = -1;
  }
  for (int t = 0; t < n_refs; t += kTile) {
    tile[threadIdx.x] = refs[t + threadIdx.x];
    __syncthreads();
    for (int j = 0; j < kTile; ++j) {
      float4 r = tile[j];
      float dx = r.x - p.x, dy = r.y - p.y, dz = r.z - p.z, dw = r.w - p.w;
      float d = dx * dx + dy * dy + dz * dz + dw * dw;
      if (d < best[kK - 1]) {
        int k = kK - 1;
        while (k > 0 && best[k - 1] > d) {
          best[k] = best[k - 1];
          best_idx[k] = best_idx[k - 1];
          --k;
        }
        best[k] = d;
        best_idx[k] = t + j;
      }
    }
    __syncthreads();
  }
  for (int k = 0; k < kK; ++k) {
    out_dist[(size_t)q * kK + k] = best[k];
    out_idx[(size_t)q * kK + k] = best_idx[k];
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n_queries = 1 << 20, n_refs = 2048;
  float4* queries = device_alloc<float4>(n_queries);
  float4* refs = device_alloc<float4>(n_refs);
  float* dist = device_alloc<float>(size_t(n_queries) * kK);
  int* idx = device_alloc<int>(size_t(n_queries) * kK);
  fill_random<<<1024, 256>>>((float*)queries, 4 * size_t(n_queries), 329, 0.0f, 1.0f);
  fill_random<<<32, 256>>>((float*)refs, 4 * size_t(n_refs), 330, 0.0f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    knn_topk_local_array<<<n_queries / kTile, kTile>>>(queries, refs, n_refs, dist, idx);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> hr(n_refs);
  CK(cudaMemcpy(hr.data(), refs, n_refs * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int q : {0, 4321, n_queries - 1}) {
    float4 p = read_back(queries + q);
    std::vector<float> d(n_refs);
    for (int j = 0; j < n_refs; ++j) {
      float dx = hr[j].x - p.x, dy = hr[j].y - p.y, dz = hr[j].z - p.z, dw = hr[j].w - p.w;
      d[j] = dx * dx + dy * dy + dz * dz + dw * dw;
    }
    std::sort(d.begin(), d.end());
    for (int k = 0; k < kK; ++k) {
      float got = read_back(dist + size_t(q) * kK + k);
      if (!(fabsf(got - d[k]) <= 1e-5f * d[k] + 1e-7f))
        fail("wrong %d-th distance of query %d: %f vs %f\n", k, q, got, d[k]);
    }
  }
  time_kernel("knn_topk_local_array", reps, launch);
  free_device({queries, refs, dist, idx});
  printf("ok\n");
  return 0;
}
