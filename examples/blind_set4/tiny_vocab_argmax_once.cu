// tiny_vocab_argmax_once: blind set 4, healthy (a tiny kernel launched once).
// Greedy choice of the first generated token: the argmax over 50,257 vocabulary logits, one 1,024-thread
// block (each thread scans about 50 logits, then a warp-shuffle and shared-memory reduction), launched
// once. A few microseconds on one SM for a 200 KB input: the grid is small because the problem is, the
// launch happens once, and nothing in the kernel is worth changing.
// Usage: ./tiny_vocab_argmax_once [reps]
#include "../kernels/example_common.cuh"

constexpr int kVocab = 50257, kThreads = 1024;

__global__ void tiny_vocab_argmax_once(const float* __restrict__ logits, int n, int* __restrict__ token) {
  __shared__ float best_v[kThreads / 32];
  __shared__ int best_i[kThreads / 32];
  float v = -INFINITY;
  int arg = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    float x = logits[i];
    if (x > v) {
      v = x;
      arg = i;
    }
  }
  for (int off = 16; off > 0; off /= 2) {
    float ov = __shfl_xor_sync(0xffffffffu, v, off);
    int oi = __shfl_xor_sync(0xffffffffu, arg, off);
    if (ov > v || (ov == v && oi < arg)) {
      v = ov;
      arg = oi;
    }
  }
  if (threadIdx.x % 32 == 0) {
    best_v[threadIdx.x / 32] = v;
    best_i[threadIdx.x / 32] = arg;
  }
  __syncthreads();
  if (threadIdx.x < 32) {
    v = best_v[threadIdx.x];
    arg = best_i[threadIdx.x];
    for (int off = 16; off > 0; off /= 2) {
      float ov = __shfl_xor_sync(0xffffffffu, v, off);
      int oi = __shfl_xor_sync(0xffffffffu, arg, off);
      if (ov > v || (ov == v && oi < arg)) {
        v = ov;
        arg = oi;
      }
    }
    if (threadIdx.x == 0) *token = arg;
  }
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  float* logits = device_alloc<float>(kVocab);
  int* token = device_alloc<int>(1);
  fill_random<<<64, 256>>>(logits, kVocab, 432, 0.01f, 10.0f);
  CK(cudaGetLastError());
  auto launch = [&] {
    tiny_vocab_argmax_once<<<1, kThreads>>>(logits, kVocab, token);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> h(kVocab);
  CK(cudaMemcpy(h.data(), logits, kVocab * sizeof(float), cudaMemcpyDeviceToHost));
  int want = 0;
  for (int i = 1; i < kVocab; ++i)
    if (h[i] > h[want]) want = i;
  int got = read_back(token);
  if (got != want) fail("wrong token: %d vs %d\n", got, want);
  time_kernel("tiny_vocab_argmax_once", reps, launch);
  free_device({logits, token});
  printf("ok\n");
  return 0;
}
