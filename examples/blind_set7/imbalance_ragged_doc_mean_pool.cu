// imbalance_ragged_doc_mean_pool: blind set 7, kind 6 (load imbalance).
// Document embeddings for retrieval: mean-pool the token embeddings (dim 256, fp32) of 4,096 documents of
// very different lengths, one 256-thread block per document (thread = feature), lengths from a heavy-tailed
// distribution: 4,032 documents of 16-64 tokens and 64 of 8,192 tokens. The 64 long documents hold 3/4 of
// the 700 MB of tokens; their blocks keep 64 SMs streaming for the whole run while the other 68 SMs finish
// the short documents early and idle. Splitting long documents across blocks (or a token-parallel
// segmented reduction) fixes it.
// Usage: ./imbalance_ragged_doc_mean_pool [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kDim = 256;

__global__ void imbalance_ragged_doc_mean_pool(const float* __restrict__ tokens,
                                               const long long* __restrict__ offsets,
                                               float* __restrict__ pooled) {
  const int doc = blockIdx.x, f = threadIdx.x;
  long long b = offsets[doc], e = offsets[doc + 1];
  float s = 0.0f;
  for (long long t = b; t < e; ++t) s += tokens[t * kDim + f];
  pooled[size_t(doc) * kDim + f] = s / float(e - b);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int docs = 4096;
  std::vector<long long> off(docs + 1, 0);
  for (int d = 0; d < docs; ++d) off[d + 1] = off[d] + (d % 64 == 17 ? 8192 : 16 + (d * 37) % 49);
  const long long ntok = off[docs];
  float* tokens = device_alloc<float>(size_t(ntok) * kDim);
  long long* offsets = device_alloc<long long>(docs + 1);
  float* pooled = device_alloc<float>(size_t(docs) * kDim);
  fill_random<<<2048, 256>>>(tokens, size_t(ntok) * kDim, 718, -1.0f, 1.0f);
  CK(cudaGetLastError());
  CK(cudaMemcpy(offsets, off.data(), off.size() * 8, cudaMemcpyHostToDevice));
  auto launch = [&] {
    imbalance_ragged_doc_mean_pool<<<docs, kDim>>>(tokens, offsets, pooled);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int d : {0, 17, docs - 1})
    for (int f : {0, 255}) {
      double want = 0;
      for (long long t = off[d]; t < off[d + 1]; ++t) want += read_back(tokens + t * kDim + f);
      want /= double(off[d + 1] - off[d]);
      float got = read_back(pooled + size_t(d) * kDim + f);
      if (!(std::fabs(got - want) <= 1e-4)) fail("wrong pooled value (%d,%d): %g vs %g\n", d, f, got, want);
    }
  time_kernel("imbalance_ragged_doc_mean_pool", reps, launch);
  free_device({tokens, offsets, pooled});
  printf("ok\n");
  return 0;
}
