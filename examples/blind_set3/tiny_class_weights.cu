// tiny_class_weights: blind set 3, HEALTHY control (a tiny kernel launched once).
// Before training, the inverse-frequency weights of 1,000 classes are computed once from their label
// counts: one launch of one 1,024-thread block (block reduction of the counts, then
// w[c] = total / (classes * count[c])). It lasts a few microseconds, mostly launch latency, and runs once:
// there is nothing in it worth changing, and a single launch is no launch-overhead problem.
// Usage: ./tiny_class_weights [reps]
#include "../kernels/example_common.cuh"

constexpr int kClasses = 1000;

__global__ void tiny_class_weights(const unsigned* __restrict__ counts, float* __restrict__ weights) {
  __shared__ unsigned part[32];
  unsigned c = threadIdx.x < kClasses ? counts[threadIdx.x] : 0u;
  unsigned s = c;
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = s;
  __syncthreads();
  unsigned total = 0;
  for (int w = 0; w < 32; ++w) total += part[w];
  if (threadIdx.x < kClasses) weights[threadIdx.x] = float(total) / (float(kClasses) * float(c));
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<unsigned> h(kClasses);
  unsigned long long total = 0;
  for (int c = 0; c < kClasses; ++c) total += h[c] = 50u + (unsigned(c) * 7919u) % 4000u;
  unsigned* counts = device_alloc<unsigned>(kClasses);
  float* weights = device_alloc<float>(kClasses);
  CK(cudaMemcpy(counts, h.data(), kClasses * sizeof(unsigned), cudaMemcpyHostToDevice));
  auto launch = [&] {
    tiny_class_weights<<<1, 1024>>>(counts, weights);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> w(kClasses);
  CK(cudaMemcpy(w.data(), weights, kClasses * sizeof(float), cudaMemcpyDeviceToHost));
  for (int c = 0; c < kClasses; ++c) {
    double want = double(total) / (double(kClasses) * h[c]);
    if (!(fabs(w[c] - want) <= 1e-5 * want)) fail("wrong weight %d: %f vs %f\n", c, w[c], want);
  }
  time_kernel("tiny_class_weights", reps, launch);
  free_device({counts, weights});
  printf("ok\n");
  return 0;
}
