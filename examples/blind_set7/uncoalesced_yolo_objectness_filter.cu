// uncoalesced_yolo_objectness_filter: blind set 7, other cause (uncoalesced loads).
// Post-processing of a YOLO detection head: predictions [anchors][85] fp32 (x, y, w, h, objectness, 80 class
// scores), 4 M anchors over a batch of images; the first filter keeps anchors whose sigmoid(objectness) is
// above 0.25, one thread per anchor reading p[a * 85 + 4]. A warp's 32 loads are 340 bytes apart, one 32-byte
// sector each for 4 useful bytes: 134 MB of sectors moved for 16 MB used (8x), ~35 us where a coalesced
// objectness plane (or a warp reading the row cooperatively) would take a few.
// Usage: ./uncoalesced_yolo_objectness_filter [reps]
#include <cmath>

#include "../kernels/example_common.cuh"

constexpr int kAttrs = 85;

__global__ void uncoalesced_yolo_objectness_filter(const float* __restrict__ pred,
                                                   unsigned char* __restrict__ keep, int anchors,
                                                   float logit_threshold) {
  int a = blockIdx.x * blockDim.x + threadIdx.x;
  if (a >= anchors) return;
  keep[a] = pred[size_t(a) * kAttrs + 4] > logit_threshold;
}

int main(int argc, char** argv) {
  const int reps = reps_arg(argc, argv);
  const int anchors = 1 << 22;
  float* pred = device_alloc<float>(size_t(anchors) * kAttrs);
  unsigned char* keep = device_alloc<unsigned char>(anchors);
  fill_random<<<2048, 256>>>(pred, size_t(anchors) * kAttrs, 726, -6.0f, 2.0f);
  CK(cudaGetLastError());
  const float logit = std::log(0.25f / 0.75f);  // sigmoid(x) > 0.25
  auto launch = [&] {
    uncoalesced_yolo_objectness_filter<<<anchors / 256, 256>>>(pred, keep, anchors, logit);
    CK(cudaGetLastError());
  };
  launch();
  CK(cudaDeviceSynchronize());
  for (int a : {0, 1, 99999, anchors - 1}) {
    bool want = read_back(pred + size_t(a) * kAttrs + 4) > logit;
    if (read_back(keep + a) != want) fail("wrong keep flag %d\n", a);
  }
  time_kernel("uncoalesced_yolo_objectness_filter", reps, launch);
  free_device({pred, keep});
  printf("ok\n");
  return 0;
}
