// atomic_embedding_grad_padding: blind set 6, kind 6 (atomic contention).
// Embedding backward of a padded NLP batch (512 K token positions, width 64, vocabulary 32,000), written as
// one atomicAdd per gradient element into the weight-gradient row of the token id, with padding_idx not
// skipped: 60 % of the positions are the pad id 0 and another 20 % are sixteen frequent tokens
// (punctuation), so about 20 M of the 33.5 M float atomics land on 64 addresses and 6.7 M more on 1,024:
// the L2 atomic units serialize the same-address updates and the kernel runs far below the bandwidth of its
// 134 MB of coalesced gradient reads (uniform work per thread: no imbalance). Sorting by token id and
// reducing segments (or skipping padding_idx) is the fix.
// Usage: ./atomic_embedding_grad_padding [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kDim = 64, kVocab = 32000;

__global__ void atomic_embedding_grad_padding(const int* __restrict__ ids, const float* __restrict__ grad_out,
                                              float* __restrict__ grad_weight, int tokens) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= size_t(tokens) * kDim) return;
  int t = int(i / kDim), d = int(i % kDim);
  atomicAdd(&grad_weight[size_t(ids[t]) * kDim + d], grad_out[i]);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int tokens = 1 << 19;
  const size_t n = size_t(tokens) * kDim;
  std::vector<int> hid(tokens);
  for (int t = 0; t < tokens; ++t) {
    unsigned h = unsigned(t) * 2654435761u;
    h ^= h >> 15;
    unsigned r = h % 100;
    hid[t] = r < 60 ? 0 : r < 80 ? 1 + int((h >> 8) % 16) : 17 + int((h >> 8) % (kVocab - 17));
  }
  int* ids = device_alloc<int>(tokens);
  float* grad_out = device_alloc<float>(n);
  float* grad_weight = device_alloc<float>(size_t(kVocab) * kDim);
  CK(cudaMemcpy(ids, hid.data(), sizeof(int) * tokens, cudaMemcpyHostToDevice));
  fill_random<<<2048, 256>>>(grad_out, n, 651, 1e-3f, 1.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    CK(cudaMemset(grad_weight, 0, sizeof(float) * kVocab * kDim));
    atomic_embedding_grad_padding<<<unsigned(n / 256), 256>>>(ids, grad_out, grad_weight, tokens);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> hg(n);
  CK(cudaMemcpy(hg.data(), grad_out, n * 4, cudaMemcpyDeviceToHost));
  for (int row : {0, 5, 12345}) {
    for (int d : {0, 63}) {
      double want = 0;
      for (int t = 0; t < tokens; ++t)
        if (hid[t] == row) want += hg[size_t(t) * kDim + d];
      float got = read_back(grad_weight + size_t(row) * kDim + d);
      if (!(std::fabs(got - want) <= 1e-4 * want + 1e-4)) fail("wrong grad row %d dim %d: %f vs %f\n", row, d, got, want);
    }
  }
  time_kernel("atomic_embedding_grad_padding", reps, launch);
  free_device({ids, grad_out, grad_weight});
  printf("ok\n");
  return 0;
}
