// tiny_label_smoothing_targets_once: blind set 6, kind healthy (a tiny kernel launched once).
// The label-smoothed target table of a 64-image evaluation batch over 1,000 classes (eps = 0.1), built
// once before a calibration pass: 64 K floats (256 KB) written by 250 blocks, a compare and a select per
// entry, a few microseconds once per run: nothing worth optimizing.
// Usage: ./tiny_label_smoothing_targets_once [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kBatch = 64, kClasses = 1000;

__global__ void tiny_label_smoothing_targets_once(const int* __restrict__ labels, float* __restrict__ target, float eps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= kBatch * kClasses) return;
  int b = i / kClasses, c = i % kClasses;
  target[i] = (c == labels[b] ? 1.0f - eps : 0.0f) + eps / kClasses;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  std::vector<int> hl(kBatch);
  for (int b = 0; b < kBatch; ++b) hl[b] = (b * 389 + 17) % kClasses;
  int* labels = device_alloc<int>(kBatch);
  float* target = device_alloc<float>(kBatch * kClasses);
  CK(cudaMemcpy(labels, hl.data(), sizeof(int) * kBatch, cudaMemcpyHostToDevice));
  const float eps = 0.1f;
  auto launch = [&] {
    tiny_label_smoothing_targets_once<<<kBatch * kClasses / 256, 256>>>(labels, target, eps);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int i : {0, 17, 1000 + 406, kBatch * kClasses - 1}) {
    int b = i / kClasses, c = i % kClasses;
    float want = (c == hl[b] ? 1.0f - eps : 0.0f) + eps / kClasses, got = read_back(target + i);
    if (!(std::fabs(got - want) <= 1e-7f)) fail("wrong target %d: %f vs %f\n", i, got, want);
  }
  time_kernel("tiny_label_smoothing_targets_once", reps, launch);
  free_device({labels, target});
  printf("ok\n");
  return 0;
}
