// mufu_focal_loss_logits: blind set 7, kind 1 (transcendental / division-bound code).
// Dense object detection (RetinaNet): the sigmoid focal loss over 96 K anchors x 80 classes, summed per
// anchor, written the textbook way: p = 1 / (1 + expf(-x)) with an IEEE division, powf(1 - p_t, gamma) and
// logf(p_t) per logit. Each logit costs an accurate expf, an IEEE reciprocal, a powf (with a run-time
// gamma: the general log/exp expansion and special-case checks) and a logf: MUFU EX2/RCP plus ~100
// polynomial and correction instructions for 4 bytes of coalesced input (7.9 M logits, 31 MB: 7 us of DRAM).
// gamma = 2 as a multiply, log-sigmoid algebra and
// __expf/__fdividef would remove most of it.
// Usage: ./mufu_focal_loss_logits [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kClasses = 80;

__host__ __device__ inline float focal_term(float x, bool positive, float alpha, float gamma) {
  float p = 1.0f / (1.0f + expf(-x));
  float pt = positive ? p : 1.0f - p;
  float at = positive ? alpha : 1.0f - alpha;
  return -at * powf(1.0f - pt, gamma) * logf(fmaxf(pt, 1e-12f));
}

__global__ void mufu_focal_loss_logits(const float* __restrict__ logits, const int* __restrict__ target,
                                       float* __restrict__ loss, int anchors, float alpha, float gamma) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (warp >= anchors) return;
  int t = target[warp];
  float s = 0.0f;
  for (int c = lane; c < kClasses; c += 32)
    s += focal_term(logits[size_t(warp) * kClasses + c], c == t, alpha, gamma);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (lane == 0) loss[warp] = s;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int anchors = 96 * 1024;
  const size_t n = size_t(anchors) * kClasses;
  std::vector<int> ht(anchors);
  for (int a = 0; a < anchors; ++a) ht[a] = (a * 7919) % 97 < kClasses ? (a * 7919) % 97 : -1;
  float* logits = device_alloc<float>(n);
  int* target = device_alloc<int>(anchors);
  float* loss = device_alloc<float>(anchors);
  fill_random<<<2048, 256>>>(logits, n, 703, -6.0f, 4.0f);
  CK(cudaGetLastError());
  CK(cudaMemcpy(target, ht.data(), anchors * 4, cudaMemcpyHostToDevice));
  auto launch = [&] {
    mufu_focal_loss_logits<<<anchors * 32 / 256, 256>>>(logits, target, loss, anchors, 0.25f, 2.0f);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float> row(kClasses);
  for (int a : {0, 5, anchors - 1}) {
    CK(cudaMemcpy(row.data(), logits + size_t(a) * kClasses, kClasses * 4, cudaMemcpyDeviceToHost));
    double want = 0;
    for (int c = 0; c < kClasses; ++c) want += focal_term(row[c], c == ht[a], 0.25f, 2.0f);
    float got = read_back(loss + a);
    if (!(std::fabs(got - want) <= 1e-4 * std::fabs(want) + 1e-5))
      fail("wrong focal loss %d: %g vs %g\n", a, got, want);
  }
  time_kernel("mufu_focal_loss_logits", reps, launch);
  free_device({logits, target, loss});
  printf("ok\n");
  return 0;
}
