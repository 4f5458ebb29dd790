// short_embedding_gather_12mb: blind set 3, kind 4 (a short kernel near its size-limited ceiling: healthy).
// The embedding lookup of one batch: 1,536 token ids gather rows of a [32,000 x 1,024] float table into a
// [1,536 x 1,024] activation (6 MB read, 6 MB written), one 256-thread block per token copying its row with
// float4 loads and stores. Every access is a full, aligned 16-byte vector of a contiguous row; the launch
// lasts a few microseconds and its size, not its code, limits it (fusing the lookup into the first layer
// is the only remaining gain).
// Usage: ./short_embedding_gather_12mb [reps]
#include "../kernels/example_common.cuh"

constexpr int kDim = 1024, kVocab = 32000;

__global__ void short_embedding_gather_12mb(const int* __restrict__ ids, const float4* __restrict__ table,
                                            float4* __restrict__ out) {
  const float4* row = table + (size_t)ids[blockIdx.x] * (kDim / 4);
  out[(size_t)blockIdx.x * (kDim / 4) + threadIdx.x] = row[threadIdx.x];
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 1536;
  std::vector<int> hids(tokens);
  for (int t = 0; t < tokens; ++t) hids[t] = int((unsigned(t) * 2654435761u >> 7) % kVocab);
  int* ids = device_alloc<int>(tokens);
  float* table = device_alloc<float>(size_t(kVocab) * kDim);
  float* out = device_alloc<float>(size_t(tokens) * kDim);
  CK(cudaMemcpy(ids, hids.data(), tokens * sizeof(int), cudaMemcpyHostToDevice));
  fill_random<<<2048, 256>>>(table, size_t(kVocab) * kDim, 316, -1.0f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    short_embedding_gather_12mb<<<tokens, kDim / 4>>>(ids, (const float4*)table, (float4*)out);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int t : {0, 700, tokens - 1})
    for (int d : {0, 513, kDim - 1})
      if (read_back(out + size_t(t) * kDim + d) != read_back(table + size_t(hids[t]) * kDim + d))
        fail("wrong result at token %d dim %d\n", t, d);
  time_kernel("short_embedding_gather_12mb", reps, launch);
  free_device({ids, table, out});
  printf("ok\n");
  return 0;
}
