// atomic_iou_best_gt_match: blind set 8, kind 6 (atomic contention on a few addresses).
// Anchor-to-ground-truth matching of a detector's target assignment: every one of 4 M anchors computes its
// IoU with each of the 8 ground-truth boxes of the image and raises that box's best IoU with an atomicMax on
// the float bits (IoU >= 0, so unsigned order is float order) - 33.5 M atomics on 8 addresses, serialized at
// the L2 slices that own them, against 64 MB of coalesced anchor reads (~15 us). A block-level max (warp
// shuffles, one atomic per block and box) would remove the contention. Usage: ./atomic_iou_best_gt_match
// [reps]
#include <cmath>
#include <cstring>

#include "../kernels/example_common.cuh"

constexpr int kGt = 8;

__global__ void atomic_iou_best_gt_match(const float4* __restrict__ anchors, const float4* __restrict__ gt,
                                         unsigned* __restrict__ best_iou_bits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 a = anchors[i];  // x1, y1, x2, y2
  float area_a = (a.z - a.x) * (a.w - a.y);
  for (int g = 0; g < kGt; ++g) {
    float4 b = gt[g];
    float iw = fmaxf(0.0f, fminf(a.z, b.z) - fmaxf(a.x, b.x));
    float ih = fmaxf(0.0f, fminf(a.w, b.w) - fmaxf(a.y, b.y));
    float inter = iw * ih;
    float iou = inter / (area_a + (b.z - b.x) * (b.w - b.y) - inter);
    atomicMax(&best_iou_bits[g], __float_as_uint(iou));
  }
}

__global__ void make_anchors(float4* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float cx = (i % 2048) * 0.5f, cy = ((i / 2048) % 2048) * 0.5f, s = 4.0f + 2.0f * (i % 7);
  a[i] = make_float4(cx - s, cy - s, cx + s, cy + s);
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int n = 4 << 20;
  float4* anchors = device_alloc<float4>(n);
  float4* gt = device_alloc<float4>(kGt);
  unsigned* best = device_alloc<unsigned>(kGt);
  make_anchors<<<(n + 255) / 256, 256>>>(anchors, n);
  CK(cudaGetLastError());
  std::vector<float4> hg(kGt);
  for (int g = 0; g < kGt; ++g)
    hg[g] = make_float4(50.0f + 100 * g, 80.0f + 90 * g, 70.0f + 100 * g + 3 * g, 110.0f + 90 * g);
  CK(cudaMemcpy(gt, hg.data(), kGt * 16, cudaMemcpyHostToDevice));
  auto launch = [&] {
    CK(cudaMemsetAsync(best, 0, kGt * 4));
    atomic_iou_best_gt_match<<<(n + 255) / 256, 256>>>(anchors, gt, best, n);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  std::vector<float4> ha(n);
  CK(cudaMemcpy(ha.data(), anchors, size_t(n) * 16, cudaMemcpyDeviceToHost));
  for (int g = 0; g < kGt; g += 3) {
    float4 b = hg[g];
    float want = 0.0f;
    for (const float4& a : ha) {
      float iw = std::max(0.0f, std::min(a.z, b.z) - std::max(a.x, b.x));
      float ih = std::max(0.0f, std::min(a.w, b.w) - std::max(a.y, b.y));
      float inter = iw * ih;
      want = std::max(want, inter / ((a.z - a.x) * (a.w - a.y) + (b.z - b.x) * (b.w - b.y) - inter));
    }
    unsigned bits = read_back(best + g);
    float got;
    memcpy(&got, &bits, 4);
    if (!(std::fabs(got - want) <= 1e-5f)) fail("wrong best IoU %d: %g vs %g\n", g, got, want);
  }
  time_kernel("atomic_iou_best_gt_match", reps, launch);
  free_device({anchors, gt, best});
  printf("ok\n");
  return 0;
}
